import { DeadlineExceededError, callWithDeadline } from '../../lib/callWithDeadline.js';
import { backoffDelay } from '../../lib/backoff.js';
import type { Clock, Timer } from '../../lib/clock.js';
import { describeApiError, KubeApiError } from '../../adapters/kubernetes/errors.js';
import type { LeaseApi } from '../../adapters/kubernetes/leaseApi.js';
import type { Lease } from '../../adapters/kubernetes/model.js';
import type { Logger } from '../../adapters/logger.js';
import type { LeaseConfig } from './config.js';
import { renewLease } from './renewLease.js';
import { desiredLease } from './leaseObject.js';
import type { LeaseMsg } from './protocol.js';

/**
 * The heartbeat's own loop, outside every mailbox. nact runs each message of each actor in one
 * FIFO of `setImmediate`s, so a renewal sent as a message waits behind one message of every busy
 * actor (hundreds of ms at 10k pods). Here a clock timer starts each renewal directly; the lease
 * actor still owns the state shown in the tree and hears of every outcome as a message, but no
 * renewal waits for it. One renewal at a time, each bounded by `renewTimeoutMs`; after a failure
 * the next try backs off (exponential, jitter, capped) and the cadence resumes on success.
 */
export interface RenewerDeps {
  readonly leaseApi: LeaseApi;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Replaces Math.random in the retry jitter (tests). */
  readonly random?: () => number;
}

/** The delay before the next renewal: the cadence after a success, the backoff after `failures` failures. */
export function nextRenewalMs(config: LeaseConfig, failures: number, random: () => number = Math.random): number {
  if (failures === 0) return config.renewIntervalMs;
  return backoffDelay({ minMs: config.retry.minMs, maxMs: config.retry.maxMs, factor: 2, jitter: config.retry.jitter }, failures - 1, random);
}

export class LeaseRenewer {
  private known: Lease | undefined;
  private nodeUid: string | undefined;
  private failures = 0;
  private dueAt: number;
  private timer: Timer | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly deps: RenewerDeps,
    private readonly config: LeaseConfig,
    /** Outcomes for the lease actor's mailbox: `lease.renewed`, `lease.renew-failed`, `lease.renewer-crashed`. */
    private readonly report: (msg: LeaseMsg) => void,
    nodeUid: string | undefined,
  ) {
    this.nodeUid = nodeUid;
    this.dueAt = deps.clock.now();
  }

  /** Renews at once: a previous incarnation may have left the Lease close to expiry. */
  start(): void {
    void this.renew();
  }

  /** The Node's uid: the Lease is owned by it from the next renewal on. */
  setOwner(uid: string): void {
    this.nodeUid = uid;
  }

  /** No renewal starts after this; one in flight is abandoned and reports nothing. */
  stop(): void {
    this.stopping.abort(new Error('lease renewer stopped'));
    this.timer?.cancel();
  }

  private arm(ms: number): void {
    if (this.stopping.signal.aborted) return;
    this.timer = this.deps.clock.setTimer(ms, () => void this.renew());
  }

  private async renew(): Promise<void> {
    const { clock } = this.deps;
    const renewAt = clock.now();
    const build = (base: Lease | undefined): Lease => desiredLease(this.config, renewAt, this.nodeUid, base);
    let msg: LeaseMsg;
    try {
      const lease = await callWithDeadline(clock, this.config.renewTimeoutMs, this.stopping.signal, () =>
        renewLease(this.deps.leaseApi, this.config, build, this.known),
      );
      const now = clock.now();
      this.known = lease;
      this.failures = 0;
      // Lag: how late the heartbeat is against its due time, on the renewer's own clock.
      msg = { type: 'lease.renewed', lease, at: now, lagMs: Math.max(0, now - this.dueAt) };
      this.dueAt = now + this.config.renewIntervalMs;
    } catch (err) {
      if (this.stopping.signal.aborted) return;
      if (!(err instanceof KubeApiError || err instanceof DeadlineExceededError)) {
        this.report({ type: 'lease.renewer-crashed', error: err });
        return;
      }
      this.failures += 1;
      const error = describeApiError(err);
      this.deps.logger.warn('lease renewal failed', { node: this.config.nodeName, error });
      msg = { type: 'lease.renew-failed', error, failures: this.failures };
    }
    if (this.stopping.signal.aborted) return;
    this.report(msg);
    this.arm(nextRenewalMs(this.config, this.failures, this.deps.random));
  }
}
