/**
 * The one-line message of anything thrown: an Error's message, a string as it is, anything else as
 * JSON (so an object says what it holds rather than `[object Object]`).
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return JSON.stringify(error) ?? String(error);
}
