/**
 * Turns a LegacyPodProvider (no push) into a PodProvider by polling, as virtual-kubelet's
 * syncProviderWrapper does: every `intervalMs` it asks `getPodStatus` for each pod Tether asked it
 * to run and notifies only what changed.
 *
 * A pod the provider no longer has is reported `gone` (reason 'NotFound'), never left looking
 * Running, except while it is still starting (not yet seen Running, and within `startingGraceMs`
 * of createPod), because some providers only list a pod some time after accepting it. After
 * deletePod, a pod that disappears has ended as asked: its terminal status is synthesized
 * (containers Completed) if the provider did not report one itself. A pod that disappears after
 * a terminal status is simply forgotten.
 *
 * The polling loop is a reconciler (`pod-polling`, src/lib/reconcile.ts) that the node's subtree
 * runs supervised (`reconcilers()`), keyed by pod (`namespace/name`): each tracked pod is polled
 * `intervalMs` after its previous poll ended (the first time `intervalMs` after it is tracked), at
 * most `concurrency` at once, one call per pod at a time; a failed poll is retried with backoff
 * (from `intervalMs`, doubling, capped at a minute or the interval, with jitter) and shows as
 * failing in the tree. The tracked pods live here, not in the actor, so a crash of the loop loses
 * nothing: its restart lists every tracked pod and polls each at once.
 */
import { backoffPolicy } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { systemClock } from '../adapters/clock.js';
import { LifecycleControl, type Lifecycle, type StopOptions, type StopOutcome } from '../lib/lifecycle.js';
import type { Pod, PodStatus } from '../adapters/kubernetes/model.js';
import { forEachBounded } from '../lib/boundedConcurrency.js';
import { callWithDeadline } from '../lib/callWithDeadline.js';
import { deepCopyPod, deepCopyPodStatus } from './deepCopy.js';
import { isKind } from '../lib/errorKind.js';
import { transient } from './errors.js';
import { isTerminalPhase, terminatedStatus } from './podStatus.js';
import type { LegacyPodProvider, PodNotification, PodNotificationCallback, PodProvider, ReconcilingProvider } from './provider.js';
import { podKey } from '../lib/podIdentity.js';
import { podIdentity } from './provider.js';
import { fingerprint } from '../lib/fingerprint.js';
import { done, reconcileError, reconcileTrigger, requeueAfter, type ReconcileContext, type ReconcileResult, type Reconciler } from '../lib/reconcile.js';

export interface PollingOptions {
  /** Time between the end of one poll of a pod and the start of its next. Default 5000. */
  readonly intervalMs?: number;
  readonly clock?: Clock;
  /** How long after createPod a missing pod is still taken to be starting. Default 60 000. */
  readonly startingGraceMs?: number;
  /** At most this many getPodStatus calls in flight. Default 16. */
  readonly concurrency?: number;
  /** A getPodStatus call that takes longer is abandoned for this round. Default `intervalMs`. */
  readonly callTimeoutMs?: number;
  /** Told about failed getPodStatus calls (other than not-found); the pod is retried next round. */
  readonly onPollError?: (err: unknown, namespace: string, name: string) => void;
}

const OPTIONAL_ABILITIES = ['getContainerLogs', 'getStatsSummary', 'runInContainer', 'attachToContainer', 'portForward'] as const;

interface Tracked {
  /** The pod as Tether last gave it (or as listed at start); status comes from polling. */
  pod: Pod;
  readonly trackedAt: number;
  deleting: boolean;
  /** The last status notified, and its fingerprint. */
  last: PodStatus | undefined;
  lastFingerprint: string | undefined;
}

/** How one poll of one pod went: the provider's failure is an answer (retried), not a crash. */
type PollOutcome = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

export class PollingPodProvider implements PodProvider, ReconcilingProvider, Lifecycle {
  private readonly life: LifecycleControl;
  /** Ready once the provider's existing pods are learnt (`start()`). */
  readonly ready: Promise<void>;
  readonly done: Promise<void>;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly startingGraceMs: number;
  private readonly concurrency: number;
  private readonly callTimeoutMs: number;
  private readonly onPollError: (err: unknown, namespace: string, name: string) => void;
  private readonly tracked = new Map<string, Tracked>();
  private readonly stopping = new AbortController();
  private callback: PodNotificationCallback | undefined;
  private readonly trigger = reconcileTrigger();
  private readonly loop: Reconciler;

  constructor(
    private readonly legacy: LegacyPodProvider,
    options: PollingOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.intervalMs = options.intervalMs ?? 5000;
    this.startingGraceMs = options.startingGraceMs ?? 60_000;
    this.concurrency = options.concurrency ?? 16;
    this.callTimeoutMs = options.callTimeoutMs ?? this.intervalMs;
    this.onPollError = options.onPollError ?? ((): void => undefined);
    this.loop = {
      name: 'pod-polling',
      kind: 'pod-poller',
      settings: {
        maxInFlight: this.concurrency,
        // The call's own timeout answers first (reported, retried); this only catches a hang.
        deadlineMs: 2 * this.callTimeoutMs,
        backoff: backoffPolicy(this.intervalMs, Math.max(this.intervalMs, 60_000)),
      },
      keys: () => [...this.tracked.keys()],
      connect: this.trigger.connect,
      reconcile: (key, ctx) => this.reconcilePod(key, ctx),
    };
    this.life = new LifecycleControl({ clock: this.clock, release: () => this.cancel() });
    this.ready = this.life.ready;
    this.done = this.life.done;
    // The legacy provider's optional abilities (logs, stats, exec, attach, port-forward) stay
    // visible through the wrapper, bound to it, so `isExecProvider(polling)` tells the truth.
    for (const name of OPTIONAL_ABILITIES) {
      const method: unknown = Reflect.get(legacy, name);
      if (typeof method === 'function') Object.defineProperty(this, name, { value: method.bind(legacy), enumerable: false });
    }
  }

  /**
   * Learns the pods the provider already runs (listPods); the polling loop (`reconcilers()`) polls
   * them. Call once, after notifyPods. Rejects if listPods fails (the caller may retry).
   */
  async start(signal?: AbortSignal): Promise<void> {
    const pods = await this.legacy.listPods(signal);
    for (const pod of pods) {
      const { namespace, name } = podIdentity(pod);
      const key = podKey(namespace, name);
      if (!this.tracked.has(key)) this.track(key, pod);
    }
    this.life.markReady();
  }

  /** Abandons in-flight calls; nothing is polled or notified afterwards. Idempotent. */
  stop(options?: StopOptions): Promise<StopOutcome> {
    return this.life.stop(options);
  }

  private cancel(): void {
    this.stopping.abort(new Error('polling provider stopped'));
  }

  /** Number of pods being polled. */
  get trackedCount(): number {
    return this.tracked.size;
  }

  /** The polling loop, for the node's subtree to run (without it, only `pollOnce` polls). */
  reconcilers(): readonly Reconciler[] {
    return [this.loop];
  }

  notifyPods(callback: PodNotificationCallback): void {
    this.callback = callback;
  }

  async createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    const own = deepCopyPod(pod);
    await this.legacy.createPod(pod, signal);
    const { namespace, name, uid } = podIdentity(own);
    const key = podKey(namespace, name);
    const existing = this.tracked.get(key);
    if (existing === undefined || existing.pod.metadata?.uid !== uid) this.track(key, own);
  }

  async updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    const own = deepCopyPod(pod);
    await this.legacy.updatePod(pod, signal);
    const { namespace, name } = podIdentity(own);
    const entry = this.tracked.get(podKey(namespace, name));
    if (entry !== undefined) entry.pod = own;
    else this.track(podKey(namespace, name), own);
  }

  async deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    const own = deepCopyPod(pod);
    const { namespace, name } = podIdentity(own);
    const key = podKey(namespace, name);
    try {
      await this.legacy.deletePod(pod, signal);
    } catch (err) {
      if (isKind(err, 'not-found')) this.tracked.delete(key);
      throw err;
    }
    const entry = this.tracked.get(key) ?? this.track(key, own);
    entry.deleting = true;
  }

  getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    return this.legacy.getPod(namespace, name, signal);
  }

  getPodStatus(namespace: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined> {
    return this.legacy.getPodStatus(namespace, name, signal);
  }

  listPods(signal?: AbortSignal): Promise<Pod[]> {
    return this.legacy.listPods(signal);
  }

  /**
   * One polling round over every tracked pod now, at most `concurrency` calls at a time, each
   * abandoned after `callTimeoutMs`. Never rejects. Polling is normally the loop's; this forces a
   * round outside its queue (tests, or a caller's resync).
   */
  async pollOnce(): Promise<void> {
    const entries = [...this.tracked.entries()];
    await forEachBounded(entries, this.concurrency, async ([key, entry]) => void (await this.pollPod(key, entry, this.stopping.signal)));
  }

  /** One poll of one tracked pod, then the next one an interval later while it is tracked. */
  private async reconcilePod(key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    const entry = this.tracked.get(key);
    if (entry === undefined || this.stopping.signal.aborted) return done;
    const outcome = await this.pollPod(key, entry, AbortSignal.any([this.stopping.signal, ctx.signal]));
    if (this.stopping.signal.aborted || !this.tracked.has(key)) return done;
    if (!outcome.ok) return reconcileError('transient', outcome.error instanceof Error ? outcome.error.message : String(outcome.error));
    return requeueAfter(this.intervalMs);
  }

  private track(key: string, pod: Pod): Tracked {
    const entry: Tracked = { pod, trackedAt: this.clock.now(), deleting: false, last: undefined, lastFingerprint: undefined };
    this.tracked.set(key, entry);
    this.trigger.enqueue(key, this.intervalMs);
    return entry;
  }

  private async pollPod(key: string, entry: Tracked, signal: AbortSignal): Promise<PollOutcome> {
    const { namespace, name } = podIdentity(entry.pod);
    let status: PodStatus | undefined;
    try {
      status = await callWithDeadline(
        this.clock,
        this.callTimeoutMs,
        signal,
        (signal) => this.legacy.getPodStatus(namespace, name, signal),
        (ms) => transient(`timed out after ${ms} ms`),
      );
    } catch (err) {
      if (!isKind(err, 'not-found')) {
        if (!this.stopping.signal.aborted) this.onPollError(err, namespace, name);
        return { ok: false, error: err };
      }
    }
    // The pod may have been deleted and recreated, or polling stopped, while we waited.
    if (this.tracked.get(key) !== entry || this.stopping.signal.aborted) return { ok: true };
    if (status === undefined) this.missing(key, entry);
    else this.observed(entry, deepCopyPodStatus(status));
    return { ok: true };
  }

  private observed(entry: Tracked, status: PodStatus): void {
    const print = fingerprint(status);
    if (print === entry.lastFingerprint) return;
    entry.last = status;
    entry.lastFingerprint = print;
    this.emitStatus(entry.pod, status);
  }

  private missing(key: string, entry: Tracked): void {
    if (isTerminalPhase(entry.last?.phase)) {
      this.tracked.delete(key);
      return;
    }
    if (entry.deleting) {
      this.tracked.delete(key);
      const now = new Date(this.clock.now());
      this.emitStatus(entry.pod, terminatedStatus(entry.pod, entry.last, { now, exitCode: 0, reason: 'Completed' }));
      return;
    }
    const starting = entry.last?.phase !== 'Running' && this.clock.now() - entry.trackedAt < this.startingGraceMs;
    if (starting) return;
    this.tracked.delete(key);
    const { namespace, name, uid } = podIdentity(entry.pod);
    this.emit({ type: 'gone', namespace, name, uid, reason: 'NotFound', message: 'The pod was not found at the provider' });
  }

  private emitStatus(pod: Pod, status: PodStatus): void {
    const copy = deepCopyPod(pod);
    copy.status = deepCopyPodStatus(status);
    this.emit({ type: 'status', pod: copy });
  }

  private emit(notification: PodNotification): void {
    try {
      this.callback?.(notification);
    } catch {
      // The callback must not throw; if it does, polling goes on for the other pods.
    }
  }
}
