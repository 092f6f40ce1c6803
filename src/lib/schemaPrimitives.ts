/**
 * The small schema pieces every part of the config file uses (the file's own sections in
 * src/config, and each provider's block in its folder). Each carries, as its message, what
 * is expected ("a positive number"); src/config/problems.ts turns an issue into
 * "<file>: <field path>: expected <that>, got <the value>".
 */
import { z } from 'zod';

export const positiveNumber = z.number('a positive number').positive('a positive number');
export const nonNegativeNumber = z.number('a non-negative number').nonnegative('a non-negative number');
export const positiveInt = z.number('a positive integer').int('a positive integer').positive('a positive integer');
export const nonNegativeInt = z.number('a non-negative integer').int('a non-negative integer').nonnegative('a non-negative integer');
export const fraction = z.number('a fraction from 0 to 1').min(0, 'a fraction from 0 to 1').max(1, 'a fraction from 0 to 1');
export const port = z.number('a port number from 1 to 65535').int('a port number from 1 to 65535')
  .min(1, 'a port number from 1 to 65535').max(65535, 'a port number from 1 to 65535');
/** A port, or 0 to turn the server off. */
export const portOrOff = z.number('a port number from 1 to 65535, or 0 for off').int('a port number from 1 to 65535, or 0 for off')
  .min(0, 'a port number from 1 to 65535, or 0 for off').max(65535, 'a port number from 1 to 65535, or 0 for off');
export const nonEmptyString = z.string('a non-empty string').min(1, 'a non-empty string');
export const stringMap = z.record(z.string('a string key'), z.string('a string value'), 'a mapping of strings to strings');

/** Client-side API rate limit (token bucket). */
export const rateLimit = z.strictObject({ qps: positiveNumber, burst: positiveInt }, 'a mapping with qps and burst');

export const logLevel = z.enum(['debug', 'info', 'warn', 'error', 'silent'], 'one of debug, info, warn, error, silent');

/**
 * The fields of a `BackoffPolicy` (src/lib/backoff.ts) as the file writes them, each optional (the
 * part's defaults fill the rest); `delay` is what minMs and maxMs must be.
 */
export function backoffFields<D extends z.ZodNumber>(delay: D): {
  minMs: z.ZodOptional<D>; maxMs: z.ZodOptional<D>; factor: z.ZodOptional<z.ZodNumber>; jitter: z.ZodOptional<typeof fraction>;
} {
  return { minMs: delay.optional(), maxMs: delay.optional(), factor: z.number('a number >= 1').min(1, 'a number >= 1').optional(), jitter: fraction.optional() };
}
