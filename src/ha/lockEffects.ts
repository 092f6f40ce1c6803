/**
 * A node lock's effects. The calls (read, write, release) each end by the look's deadline; an API
 * failure or a passed deadline is a message (runtime/effectOutcome.ts, classified by
 * runtime/apiFailures.ts), anything else a bug that crashes the actor (its supervisor restarts
 * it). The next look is the runtime's `schedule`. The hold is the safety part, kept outside every mailbox:
 *
 * - the node is driven from `hold` until the hold ends, and a hold ends three ways, each of which
 *   calls `onLost` at once: the decision to lose it (`lose`, `stopped`), its deadline timer (armed
 *   by `hold`, moved by `renewed`), and the end of the incarnation that took it (a crash, a
 *   restart, a stop). So a replica whose lock calls hang stops driving the node at the renew
 *   deadline, before the lock expires for the others, and a crashed lock actor leaves no node
 *   driven behind it: its next incarnation starts holding nothing and takes the lock back first.
 * - a hold lost by its timer is told to the actor (`lock.deadline-passed`); until the actor reads
 *   that, what it decides about that hold (`renewed`, `lose`) finds it gone and does nothing.
 */
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { onAbort } from '../lib/abortFanOut.js';
import type { Timer } from '../lib/clock.js';
import type { LeaseApi } from '../adapters/kubernetes/leaseApi.js';
import type { Logger } from '../adapters/logger.js';
import { apiFailure } from '../runtime/apiFailures.js';
import type { EffectContext } from '../runtime/behavior.js';
import { reportTo, withSchedule, type OwnEffect } from '../runtime/effectOutcome.js';
import { releaseLease } from './leaseRelease.js';
import type { LockConfig } from './lockDecide.js';
import type { LockGroupMember } from './lockGroup.js';
import type { LockEffect, LockMsg } from './lockProtocol.js';

export interface LockActorDeps {
  /** The node's lock client ('lease' priority, outside the node's write fence). */
  readonly leaseApi: LeaseApi;
  readonly logger: Logger;
  readonly group: LockGroupMember;
  /** Start driving the node. */
  onAcquired(): void;
  /** Stop driving the node, now. */
  onLost(): void;
  /** The actor has stopped (and released the lock, if asked). */
  onStopped(): void;
}

interface Hold {
  readonly incarnation: AbortSignal;
  readonly gen: number;
  ended: boolean;
  timer: Timer | undefined;
  leave: () => void;
}

type Ctx = EffectContext<LockMsg>;

export function lockEffects(deps: LockActorDeps, config: LockConfig): (effect: LockEffect, ctx: Ctx) => Promise<void> | void {
  const { namespace, identity } = config.settings;
  let hold: Hold | undefined;
  const current = (ctx: Ctx, gen: number): Hold | undefined =>
    hold && hold.incarnation === ctx.signal && hold.gen === gen && !hold.ended ? hold : undefined;

  const end = (h: Hold, why: string): void => {
    if (h.ended) return;
    h.ended = true;
    h.timer?.cancel();
    h.leave();
    deps.group.holding(false);
    deps.logger.warn('node lock lost: stopping the node', { node: config.nodeName, why });
    try {
      deps.onLost();
    } catch (error) {
      // Called from a timer or an abort listener, where a throw would reach the process.
      deps.logger.error('node lock: giving the node up failed', { node: config.nodeName, error: String(error) });
    }
  };

  const arm = (h: Hold, deadlineAt: number, ctx: Ctx): void => {
    h.timer?.cancel();
    h.timer = ctx.clock.setTimer(Math.max(0, deadlineAt - ctx.clock.now()), () => {
      if (h.ended) return;
      end(h, 'renew deadline passed: no renewal succeeded in time');
      ctx.self.tell({ type: 'lock.deadline-passed', gen: h.gen });
    });
  };

  /** One call, ended by `deadlineAt`; its answer told as a message, an API failure too. */
  const call = <T>(ctx: Ctx, deadlineAt: number, seq: number, work: () => Promise<T>, answer: (value: T) => LockMsg): Promise<void> =>
    reportTo(ctx)((signal) => callWithDeadline(ctx.clock, Math.max(0, deadlineAt - ctx.clock.now()), signal, work), {
      classify: apiFailure,
      done: answer,
      failed: ({ kind, message: error }): LockMsg => {
        if (kind === 'conflict' || kind === 'already-exists') return { type: 'lock.outrun', seq };
        deps.logger.debug('node lock: API call failed', { node: config.nodeName, error });
        return { type: 'lock.call-failed', seq, error };
      },
    });

  return withSchedule<LockMsg, LockEffect>((effect: OwnEffect<LockEffect, LockMsg>, ctx) => {
    switch (effect.type) {
      case 'read':
        return call(ctx, effect.deadlineAt, effect.seq, () => deps.leaseApi.getLease(namespace, config.name), (lease) => ({
          type: 'lock.read', seq: effect.seq, lease, spread: deps.group.spread(ctx.clock.now()),
        }));
      case 'write':
        return call(ctx, effect.deadlineAt, effect.seq,
          () => (effect.kind === 'create' ? deps.leaseApi.createLease(effect.lease) : deps.leaseApi.updateLease(effect.lease)),
          (lease) => ({ type: 'lock.written', seq: effect.seq, lease }));
      case 'hold': {
        if (ctx.signal.aborted) return;
        const h: Hold = { incarnation: ctx.signal, gen: effect.gen, ended: false, timer: undefined, leave: () => undefined };
        hold = h;
        h.leave = onAbort(ctx.signal, () => end(h, 'the lock actor ended (crash, restart or stop)'));
        arm(h, effect.deadlineAt, ctx);
        deps.group.holding(true);
        deps.logger.info('node lock acquired: driving the node', { node: config.nodeName, lock: `${namespace}/${config.name}`, identity });
        deps.onAcquired();
        return;
      }
      case 'renewed': {
        const h = current(ctx, effect.gen);
        if (h) arm(h, effect.deadlineAt, ctx);
        return;
      }
      case 'lose': {
        const h = current(ctx, effect.gen);
        if (h) end(h, effect.why);
        return;
      }
      case 'share':
        deps.group.share(effect.taking, effect.holder);
        return;
      case 'gave-back':
        deps.group.gaveBack(effect.at);
        deps.logger.info('node lock: giving the node back to a peer below its share', { node: config.nodeName, identity });
        return;
      case 'stopped':
        const lease = effect.release;
        return releaseLease({
          clock: ctx.clock, write: lease && (() => deps.leaseApi.updateLease(lease)), deadlineMs: config.settings.renewDeadlineMs, onStopped: deps.onStopped,
          failed: (error) => deps.logger.debug('node lock: release failed (it will expire)', { node: config.nodeName, error }),
        });
    }
  });
}
