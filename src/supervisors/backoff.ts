import type { BackoffPolicy } from './restartPolicy.js';

/**
 * The delay before restart number `attempt` (0 for the first restart after a quiet period).
 * `random` is injectable so tests pin the jitter; it must return a value in [0, 1).
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.minMs * Math.pow(policy.factor, Math.max(0, attempt)));
  const spread = base * policy.jitter;
  const jittered = base - spread + 2 * spread * random();
  return Math.round(Math.min(policy.maxMs, Math.max(0, jittered)));
}
