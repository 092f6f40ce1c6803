/**
 * Exponential backoff with jitter and a cap: the one formula and the one policy type behind every
 * retry in Tether (supervisor restarts, watch restarts, reconcile keys, pod, node and lease
 * retries). The config file's `retry:` and `backoff:` blocks have these very fields.
 */
export interface BackoffPolicy {
  /** The first delay (attempt 0). */
  readonly minMs: number;
  /** The cap: no delay grows past it. */
  readonly maxMs: number;
  /** Growth per consecutive attempt. */
  readonly factor: number;
  /** Fraction of the delay added or removed at random, 0..1, so a storm does not retry in lockstep. */
  readonly jitter: number;
}

/** Each delay doubles the one before, unless a policy says otherwise. */
export const DEFAULT_BACKOFF_FACTOR = 2;
/** ±20 % of each delay is random, unless a policy says otherwise. */
export const DEFAULT_BACKOFF_JITTER = 0.2;

/** A policy from its first and longest delay, with the default factor and jitter unless given. */
export function backoffPolicy(minMs: number, maxMs: number, shape: Partial<Pick<BackoffPolicy, 'factor' | 'jitter'>> = {}): BackoffPolicy {
  return { minMs, maxMs, factor: shape.factor ?? DEFAULT_BACKOFF_FACTOR, jitter: shape.jitter ?? DEFAULT_BACKOFF_JITTER };
}

/**
 * The delay before attempt number `attempt` (0 for the first retry after a quiet period).
 * `random` is injectable so tests pin the jitter; it must return a value in [0, 1).
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.minMs * Math.pow(policy.factor, Math.max(0, attempt)));
  const spread = base * policy.jitter;
  const jittered = base - spread + 2 * spread * random();
  return Math.round(Math.min(policy.maxMs, Math.max(0, jittered)));
}

/**
 * A retry delay that honours the server's Retry-After: never sooner than it asks, even past the
 * cap (the server knows its own load; the cap only bounds our own growth).
 */
export function notBefore(delayMs: number, retryAfterMs: number | undefined): number {
  return retryAfterMs !== undefined && retryAfterMs > delayMs ? Math.ceil(retryAfterMs) : delayMs;
}

/**
 * A repeatable "random" draw for `backoffDelay`, derived from a seed (an object's identity and the
 * attempt): decisions stay pure functions of their input while a storm of failing objects still
 * spreads its retries. A fraction in [0, 1).
 */
export function seededJitter(seed: string): () => number {
  // FNV-1a: seeds that differ in their last character (attempt 1, attempt 2) still land far apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193);
  const fraction = (hash >>> 0) / 0x1_0000_0000;
  return () => fraction;
}
