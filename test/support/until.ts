/**
 * Waits for a condition without sleeping for a fixed time: re-checks after every turn of the event
 * loop (actors handle each message in its own macrotask) until it holds or the timeout passes.
 */
export async function until(description: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${description}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets every message already queued be handled (a few event-loop turns). */
export async function drain(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
