/**
 * The self-signed certificate's renewal on a ManualClock: at two thirds of its lifetime, waited
 * for in steps no Node timer overflows, tried again after a failure, and gone once stopped.
 */
import { X509Certificate } from 'node:crypto';
import t from 'tap';
import type { Clock } from '../../src/lib/clock.js';
import { MAX_TIMER_STEP_MS, RENEW_RETRY_MS, renewalTime, renewingSelfSigned } from '../../src/kubelet/selfSignedRenewal.js';
import { selfSignedCertificate, type ServingCertificate } from '../../src/kubelet/servingCertificate.js';
import { ManualClock } from '../support/manualClock.js';
import { waitFor } from '../harness/waitFor.js';

const DAY = 86_400_000;
/** setTimeout's limit: a longer delay fires at once. */
const NODE_TIMER_LIMIT_MS = 2 ** 31 - 1;

/** A ManualClock that remembers every delay it was asked for. */
function recording(manual: ManualClock): { clock: Clock; delays: number[] } {
  const delays: number[] = [];
  return { delays, clock: { now: () => manual.now(), setTimer: (ms, fn) => (delays.push(ms), manual.setTimer(ms, fn)) } };
}

/** Counts the certificates made; `fail` makes the next ones reject. */
function issuer(): { issue: (now: Date) => Promise<ServingCertificate>; made: () => number; failNext: (n: number) => void } {
  let made = 0;
  let failing = 0;
  return {
    issue: (now) => {
      made++;
      if (failing > 0) {
        failing--;
        return Promise.reject(new Error('no entropy today'));
      }
      return selfSignedCertificate('vk-1', ['10.0.0.7'], 365, now);
    },
    made: () => made,
    failNext: (n) => (failing = n),
  };
}

function nextCertificate(renewing: { subscribe(fn: (c: ServingCertificate) => void): () => void }): Promise<ServingCertificate> {
  return new Promise((resolve) => {
    const stop = renewing.subscribe((c) => {
      stop();
      resolve(c);
    });
  });
}

void t.test('the renewal point is two thirds of the way from notBefore to notAfter', async (t) => {
  const { cert } = await selfSignedCertificate('vk-1', [], 365, new Date(1_700_000_000_000));
  const x = new X509Certificate(cert);
  const from = new Date(x.validFrom).getTime();
  const to = new Date(x.validTo).getTime();
  t.equal(renewalTime(cert), from + Math.floor((to - from) * 2 / 3));
  t.ok(to - renewalTime(cert) > 120 * DAY, 'four months before expiry');
});

void t.test('a 365-day certificate is renewed once the clock passes its point, not before, and every timer fits in a Node timer', async (t) => {
  const manual = new ManualClock();
  const { clock, delays } = recording(manual);
  const made = issuer();
  const renewing = await renewingSelfSigned({ nodeName: 'vk-1', addresses: [], clock, issue: made.issue });
  t.teardown(() => renewing.stop());
  const first = renewing.current();
  const due = renewing.renewsAt();
  t.equal(due, renewalTime(first.cert));

  manual.advance(due - manual.now() - 1);
  t.equal(made.made(), 1, 'one millisecond before the point: the first certificate only');
  const renewed = nextCertificate(renewing);
  manual.advance(1);
  t.equal(made.made(), 2, 'at the point: a new one is being made');
  const second = await renewed;
  t.not(second.cert, first.cert);
  t.equal(renewing.current(), second);
  t.ok(new Date(new X509Certificate(second.cert).validFrom).getTime() <= manual.now(), 'valid from the clock\'s now');
  t.ok(renewing.renewsAt() - manual.now() > 240 * DAY, 'and renewed again in about 243 days');

  t.ok(delays.length > 240, `${delays.length} steps of the wait`);
  t.ok(delays.every((ms) => ms > 0 && ms <= MAX_TIMER_STEP_MS), 'each step at most a day');
  t.ok(Math.max(...delays) <= NODE_TIMER_LIMIT_MS, 'none beyond setTimeout\'s 2^31-1 ms');
});

void t.test('a renewal that fails keeps the certificate in use and is tried again an hour later', async (t) => {
  const manual = new ManualClock();
  const made = issuer();
  const renewing = await renewingSelfSigned({ nodeName: 'vk-1', addresses: [], clock: manual, issue: made.issue });
  t.teardown(() => renewing.stop());
  const first = renewing.current();
  made.failNext(1);
  manual.advance(renewing.renewsAt() - manual.now());
  t.equal(made.made(), 2, 'tried');
  const retryAt = manual.now() + RENEW_RETRY_MS;
  // The failure is noticed once the rejected promise settles; then the next try is an hour away.
  await waitFor('the next try an hour away', () => renewing.renewsAt() === retryAt, { timeoutMs: 5_000, intervalMs: 1 });
  t.equal(renewing.current(), first, 'the certificate in use stays');
  const renewed = nextCertificate(renewing);
  manual.advance(RENEW_RETRY_MS);
  t.equal(made.made(), 3, 'tried again an hour later');
  t.not((await renewed).cert, first.cert);
});

void t.test('stop cancels the wait, and a certificate being made when it stops is not taken', async (t) => {
  const manual = new ManualClock();
  const made = issuer();
  const renewing = await renewingSelfSigned({ nodeName: 'vk-1', addresses: [], clock: manual, issue: made.issue });
  const first = renewing.current();
  t.equal(manual.pendingTimers, 1);
  manual.advance(renewing.renewsAt() - manual.now());
  t.equal(await renewing.stop(), 'clean');
  t.equal(manual.pendingTimers, 0, 'no timer left');
  manual.advance(400 * DAY);
  t.equal(made.made(), 2, 'nothing made after stop');
  t.equal(renewing.current(), first);
});

void t.test('a lifetime under a day is refused: its renewal point would come before it is made', async (t) => {
  await t.rejects(renewingSelfSigned({ nodeName: 'vk-1', addresses: [], clock: new ManualClock(), days: 0.001 }), RangeError);
});
