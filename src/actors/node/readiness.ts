import type { PingConfig } from './config.js';
import type { Readiness } from './protocol.js';

/**
 * Readiness from ping results, without flapping: the first answer decides; after that a Ready
 * node turns NotReady only after `failureThreshold` consecutive failures, and a NotReady node
 * turns Ready only after `successThreshold` consecutive successes. Any other result resets the
 * opposite count.
 */
export interface Health {
  readonly readiness: Readiness | undefined;
  readonly consecutiveFailures: number;
  readonly consecutiveSuccesses: number;
}

export type PingOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

export const READY_REASON = 'KubeletReady';
export const NOT_READY_REASON = 'ProviderUnreachable';

export function readyNow(providerName: string): Readiness {
  return { ready: true, reason: READY_REASON, message: `kubelet is posting ready status; provider ${providerName} answers pings` };
}

export function notReadyNow(providerName: string, failures: number, error: string): Readiness {
  const times = failures === 1 ? 'its last ping' : `${failures} consecutive pings`;
  return { ready: false, reason: NOT_READY_REASON, message: `provider ${providerName} failed ${times}: ${error}` };
}

/** The health after one ping, and whether readiness flipped (or was decided for the first time). */
export function afterPing(health: Health, outcome: PingOutcome, ping: PingConfig, providerName: string): { health: Health; changed: boolean } {
  const current = health.readiness;
  if (outcome.ok) {
    const successes = health.consecutiveSuccesses + 1;
    const flip = current === undefined || (!current.ready && successes >= ping.successThreshold);
    const readiness = flip ? readyNow(providerName) : current;
    return { health: { readiness, consecutiveFailures: 0, consecutiveSuccesses: successes }, changed: flip };
  }
  const failures = health.consecutiveFailures + 1;
  const flip = current === undefined || (current.ready && failures >= ping.failureThreshold);
  // While NotReady, the message follows the latest error (written with the next status, no Event).
  const readiness = flip || (current !== undefined && !current.ready) ? notReadyNow(providerName, failures, outcome.error) : current;
  return { health: { readiness, consecutiveFailures: failures, consecutiveSuccesses: 0 }, changed: flip };
}
