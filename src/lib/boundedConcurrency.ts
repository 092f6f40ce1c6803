/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Resolves when every call has
 * settled; a rejected call does not stop the others (its rejection is swallowed: `fn` is expected
 * to handle its own errors).
 */
export async function forEachBounded<T>(items: Iterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const iterator = items[Symbol.iterator]();
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); next.done !== true; next = iterator.next()) {
      try {
        await fn(next.value);
      } catch {
        // fn owns its errors; one failure must not stop the rest.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}

/**
 * `Promise.allSettled` over `items` with at most `limit` calls of `fn` in flight: every outcome,
 * in the order of `items`.
 */
export async function settledBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  await forEachBounded(items.keys(), limit, async (i) => {
    results[i] = await fn(items[i] as T).then((value) => ({ status: 'fulfilled', value }), (reason: unknown) => ({ status: 'rejected', reason }));
  });
  return results;
}
