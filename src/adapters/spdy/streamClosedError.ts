/** A write or open on a SPDY stream (or connection) that is closed, reset or gone. */
export class StreamClosedError extends Error {
  override readonly name = 'StreamClosedError';
}
