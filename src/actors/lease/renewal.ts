import { DeadlineExceededError, callWithDeadline } from '../../lib/callWithDeadline.js';
import { onAbort } from '../../lib/abortFanOut.js';
import { sleep } from '../../lib/clock.js';
import { describeApiError, KubeApiError } from '../../adapters/kubernetes/errors.js';
import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import type { EffectContext } from '../../runtime/behavior.js';
import type { LeaseConfig } from './config.js';
import { desiredLease } from './leaseObject.js';
import type { LeaseEffect, LeaseMsg } from './protocol.js';
import { renewLease } from './renewLease.js';

/**
 * The `renew` effect. Its start is timed by the clock, not by a message: nact runs each message
 * of each actor in one FIFO of `setImmediate`s, so a renewal started by a message would wait
 * behind one message of every busy actor (hundreds of ms at 10k pods). The decision of when is
 * the actor's (decide.ts); this only waits for that moment, makes the call with its deadline,
 * and reports the outcome. An error that is neither an API failure nor the deadline is a bug: the
 * effect rejects, so the actor crashes and its supervisor restarts it (and the renewals).
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
    try {
      const wait = effect.startAt - clock.now();
      if (wait > 0) await sleep(clock, wait, signal);
      own.started = true;
      const renewAt = clock.now();
      const build = (base: Lease | undefined): Lease => desiredLease(config, renewAt, effect.nodeUid, base);
      const lease = await callWithDeadline(clock, config.renewTimeoutMs, signal, () => renewLease(deps.leaseApi, config, build, effect.known));
      if (!signal.aborted) ctx.self.tell({ type: 'lease.renewed', lease, at: clock.now() });
    } catch (err) {
      if (signal.aborted) return; // replaced while waiting, stopped, or the incarnation ended
      if (!(err instanceof KubeApiError || err instanceof DeadlineExceededError)) throw err;
      const error = describeApiError(err);
      deps.logger.warn('lease renewal failed', { node: config.nodeName, error });
      ctx.self.tell({ type: 'lease.renew-failed', error, at: clock.now(), jitter: (deps.random ?? Math.random)() });
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
