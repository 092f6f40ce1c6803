/**
 * Last-resort cleanup for resources that must not outlive this Node process (child process groups,
 * network namespaces), even when a test fails, times out or is interrupted. Cleanups run
 * synchronously from the 'exit' event and from SIGINT/SIGTERM/SIGHUP, because nothing asynchronous
 * can run at exit. Orderly teardown should still happen through the owners' async `stop()`.
 */
type Cleanup = () => void;

const cleanups = new Set<Cleanup>();
let installed = false;

/** Registers a synchronous cleanup; returns a function that unregisters it. */
export function registerExitCleanup(cleanup: Cleanup): () => void {
  install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

function runAll(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Best effort: one failed cleanup must not stop the others.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      runAll();
      process.removeListener(signal, onSignal);
      // Re-raise so the process still dies of the signal. Listeners like signal-exit (loaded by tap)
      // stand down while another listener exists, so "only re-raise when alone" would leave the
      // process running; a second delivery reaches them with this listener gone.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
