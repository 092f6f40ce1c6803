/**
 * The self-signed serving certificate, renewed before it expires: a new key and certificate once
 * two thirds of its lifetime have passed (about 243 days into 365, four months before expiry), so a
 * Tether that runs for years never serves an expired certificate. The kubelet's own certificate
 * manager rotates at 70–90 % of the lifetime, with jitter to spread its CSRs over the API server;
 * a certificate made in-process asks nothing of anyone, so the point is fixed.
 *
 * The wait is taken in steps of at most a day: a Node timer holds at most 2^31-1 ms (24.8 days;
 * a longer one fires at once), and a step re-reads the clock, so a suspended host or a clock set
 * forward renews on the next step rather than late.
 */
import { X509Certificate } from 'node:crypto';
import { backgroundClock } from '../adapters/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock, Timer } from '../lib/clock.js';
import { errorMessage } from '../lib/errorMessage.js';
import { LifecycleControl, type Lifecycle } from '../lib/lifecycle.js';
import { ChangeListeners } from './changeListeners.js';
import { selfSignedCertificate, type ServingCertificate } from './servingCertificate.js';

export const SELF_SIGNED_DAYS = 365;
/** Renewed once this share of its lifetime (notBefore to notAfter) has passed. */
export const RENEW_AT_FRACTION = 2 / 3;
/** The longest one timer is asked to wait; well under setTimeout's 2^31-1 ms. */
export const MAX_TIMER_STEP_MS = 86_400_000;
/** After a renewal that failed (it should not: nothing but the CPU is involved), the next try. */
export const RENEW_RETRY_MS = 3_600_000;

/** With the one lifecycle (src/lib/lifecycle.ts): ready once the first certificate is made; `stop()` ends the renewals. */
export interface RenewingCertificate extends Lifecycle {
  current(): ServingCertificate;
  /** When the certificate in use is renewed (ms since the epoch). */
  renewsAt(): number;
  subscribe(listener: (certificate: ServingCertificate) => void): () => void;
}

export interface RenewingCertificateOptions {
  readonly nodeName: string;
  readonly addresses: readonly string[];
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly days?: number;
  /** Makes a certificate valid from `now`; default selfSignedCertificate for the name and addresses. */
  readonly issue?: (now: Date) => Promise<ServingCertificate>;
}

/** The renewal point of a certificate: RENEW_AT_FRACTION of the way from notBefore to notAfter. */
export function renewalTime(certificatePem: string): number {
  const x = new X509Certificate(certificatePem);
  const from = new Date(x.validFrom).getTime();
  const to = new Date(x.validTo).getTime();
  return from + Math.floor((to - from) * RENEW_AT_FRACTION);
}

export async function renewingSelfSigned(options: RenewingCertificateOptions): Promise<RenewingCertificate> {
  const clock = options.clock ?? backgroundClock;
  const days = options.days ?? SELF_SIGNED_DAYS;
  // Under a day, the renewal point could fall before the certificate is even made (it is backdated).
  if (!(days >= 1)) throw new RangeError(`a self-signed certificate lives at least 1 day, not ${days}`);
  const issue = options.issue ?? ((now: Date) => selfSignedCertificate(options.nodeName, options.addresses, days, now));
  const make = (): Promise<ServingCertificate> => issue(new Date(clock.now()));
  let certificate = await make();
  let due = renewalTime(certificate.cert);
  let timer: Timer | undefined;
  let stopped = false;
  const listeners = new ChangeListeners<ServingCertificate>('the self-signed kubelet API certificate', options.logger);

  const renew = async (): Promise<void> => {
    try {
      const next = await make();
      if (stopped) return;
      certificate = next;
      due = renewalTime(next.cert);
      options.logger?.info('self-signed kubelet API certificate renewed; new connections use it', {
        validTo: new X509Certificate(next.cert).validTo, renewsAt: new Date(due).toISOString(),
      });
      listeners.emit(next);
    } catch (error) {
      due = clock.now() + RENEW_RETRY_MS;
      options.logger?.error('self-signed kubelet API certificate could not be renewed; trying again', { error: errorMessage(error), retryInMs: RENEW_RETRY_MS });
    }
  };

  const step = (): void => {
    if (stopped) return;
    const wait = due - clock.now();
    if (wait <= 0) {
      timer = undefined;
      void renew().then(step);
      return;
    }
    timer = clock.setTimer(Math.min(wait, MAX_TIMER_STEP_MS), step);
  };
  step();

  const life = new LifecycleControl({
    clock,
    release: () => {
      stopped = true;
      timer?.cancel();
      listeners.clear();
    },
  });
  life.markReady();
  return {
    current: () => certificate,
    renewsAt: () => due,
    subscribe: (listener) => listeners.add(listener),
    ready: life.ready,
    done: life.done,
    stop: (o) => life.stop(o),
  };
}
