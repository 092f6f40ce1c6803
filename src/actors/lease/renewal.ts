import { callWithDeadline } from '../../lib/callWithDeadline.js';
import { onAbort } from '../../lib/abortFanOut.js';
import { sleep } from '../../lib/clock.js';
import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import { apiFailure } from '../../runtime/apiFailures.js';
import type { EffectContext } from '../../runtime/behavior.js';
import { reportTo } from '../../runtime/effectOutcome.js';
import type { LeaseConfig } from './config.js';
import { desiredLease } from './leaseObject.js';
import type { LeaseEffect, LeaseMsg } from './protocol.js';
import { renewLease } from './renewLease.js';

/**
 * The `renew` effect. Its start is timed by the clock, not by a message: nact runs each message
 * of each actor in one FIFO of `setImmediate`s, so a renewal started by a message would wait
 * behind one message of every busy actor (hundreds of ms at 10k pods). The decision of when is
 * the actor's (decide.ts); this only waits for that moment, makes the call with its deadline,
 * and reports the outcome (runtime/effectOutcome.ts). An error that is neither an API failure nor
 * the deadline (runtime/apiFailures.ts) is a bug: the effect rejects, so the actor crashes and its
 * supervisor restarts it (and the renewals).
 *
 * One slot per incarnation: the attempt outstanding. The same attempt again replaces it while it
 * waits (a new owner uid) and is ignored once its call has started; the incarnation's end or
 * `stop-renewal` abandons it, and an abandoned attempt reports nothing.
 */
export interface RenewalDeps {
  readonly leaseApi: LeaseApi;
  readonly logger: Logger;
  /** Draws the retry jitter (tests pin it); Math.random by default. */
  readonly random?: () => number;
}

type RenewEffect = Extract<LeaseEffect, { type: 'renew' }>;

interface Slot {
  readonly incarnation: AbortSignal;
  readonly attempt: number;
  readonly abandon: AbortController;
  started: boolean;
}

export interface LeaseRenewal {
  renew(effect: RenewEffect, ctx: EffectContext<LeaseMsg>): Promise<void> | void;
  stop(ctx: EffectContext<LeaseMsg>): void;
}

export function leaseRenewal(deps: RenewalDeps, config: LeaseConfig): LeaseRenewal {
  let slot: Slot | undefined;
  const current = (ctx: EffectContext<LeaseMsg>): Slot | undefined => (slot?.incarnation === ctx.signal ? slot : undefined);

  async function run(own: Slot, effect: RenewEffect, ctx: EffectContext<LeaseMsg>): Promise<void> {
    const { clock } = ctx;
    const signal = own.abandon.signal;
    const leave = onAbort(ctx.signal, () => own.abandon.abort(ctx.signal.reason));
    // Reported as this attempt: replaced while waiting, stopped, or the incarnation ended, it tells nothing.
    const report = reportTo({ ...ctx, signal });
    try {
      await report(async () => {
        const wait = effect.startAt - clock.now();
        if (wait > 0) await sleep(clock, wait, signal);
        own.started = true;
        const renewAt = clock.now();
        const build = (base: Lease | undefined): Lease => desiredLease(config, renewAt, effect.nodeUid, base);
        return callWithDeadline(clock, config.renewTimeoutMs, signal, () => renewLease(deps.leaseApi, config, build, effect.known));
      }, {
        classify: apiFailure,
        done: (lease) => (signal.aborted ? undefined : { type: 'lease.renewed', lease, at: clock.now() }),
        failed: ({ message: error }) => {
          deps.logger.warn('lease renewal failed', { node: config.nodeName, error });
          return { type: 'lease.renew-failed', error, at: clock.now(), jitter: (deps.random ?? Math.random)() };
        },
      });
    } finally {
      leave();
    }
  }

  return {
    renew(effect, ctx) {
      const previous = current(ctx);
      if (previous?.attempt === effect.attempt) {
        if (previous.started) return; // too late for this one: the next attempt carries the change
        previous.abandon.abort(new Error('lease renewal replaced'));
      }
      const own: Slot = { incarnation: ctx.signal, attempt: effect.attempt, abandon: new AbortController(), started: false };
      slot = own;
      return run(own, effect, ctx);
    },
    stop(ctx) {
      current(ctx)?.abandon.abort(new Error('lease renewals stopped'));
    },
  };
}
