/**
 * The one-line message of anything thrown: an Error's message, a string as it is, anything else as
 * JSON (so an object says what it holds rather than `[object Object]`).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}

/** The string `code` of anything thrown (a Node errno, `ERR_*`, a TLS reason), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
