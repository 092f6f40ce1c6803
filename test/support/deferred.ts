/** A promise and the functions that settle it, for tests that hold a call open (Node 20 lacks Promise.withResolvers). */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve = (_: T): void => undefined;
  let reject = (_: Error): void => undefined;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
