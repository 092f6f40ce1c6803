/**
 * An in-memory host API for the pods bound to one virtual node: one store that is both the
 * apiserver's pods (behind {@link PodApi}) and the node's watch cache (behind {@link PodWatch}),
 * as the real agent holds exactly one copy of each pod (its watch cache).
 *
 * Like the apiserver: every write bumps a resourceVersion and is delivered to the watch as
 * 'updated' (after the store reflects it); the status patch merges conditions by type and
 * replaces every other field it gives (container statuses are atomic lists, addresses are sent
 * to be replaced: see the PodApi contract); a write or delete naming another uid is a 409 conflict; a delete
 * with grace 0 and a matching UID removes the pod and is delivered as 'deleted'. Tests and the
 * bench play the other clients: `bind` (the scheduler), `requestDelete` (kubectl delete: a
 * deletionTimestamp, then the kubelet's final delete), `recreate` (a namesake with a new uid).
 *
 * Faults, per operation (`faults`: errors such as 409s, slow answers, timeouts with or without
 * the write landing, hangs) and on the watch (`watchFaults`: 410 Gone, a broken watch, the
 * relist). `latencyMs` delays every request (not the watch), as a round trip would.
 */
import { systemClock } from '../../src/adapters/clock.js';
import type { Clock } from '../../src/lib/clock.js';
import { sleep } from '../../src/lib/clock.js';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import type { DeletePodOptions, ListPodsOptions, PodApi, PodList } from '../../src/adapters/kubernetes/podApi.js';
import type { PodWatch } from '../../src/adapters/kubernetes/watch.js';
import { ApiFaults } from './apiFaults.js';
import { FakePodWatch } from './fakePodWatch.js';
import { kubeError } from './kubeErrors.js';
import { mergeBy, mergeMap } from './mergePatch.js';

export interface FakeHostPodsOptions {
  /** Added to every PodApi request (default 0: answered on the next microtask). */
  readonly latencyMs?: number;
  /** Where latency, delayed faults and deletion timestamps take their time (default: the system's). */
  readonly clock?: Clock;
  /** Keep every request in `calls` (tests); the bench leaves it off, so 100k pods cost no log. */
  readonly recordCalls?: boolean;
}

export type PodOperation = keyof PodApi;

/** One request as the server received it. */
export interface HostCall {
  readonly op: PodOperation;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly status?: PodStatus;
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly delete?: DeletePodOptions;
}

export interface HostCounters {
  statusWrites: number;
  annotationWrites: number;
  deletes: number;
  gets: number;
  lists: number;
}

export class FakeHostPods implements PodApi {
  readonly counters: HostCounters = { statusWrites: 0, annotationWrites: 0, deletes: 0, gets: 0, lists: 0 };
  readonly calls: HostCall[] = [];
  readonly faults: ApiFaults<PodOperation>;
  readonly watchFaults: FakePodWatch;
  readonly watch: PodWatch;
  private readonly pods = new Map<string, Pod>();
  /** Watches opened later (a restarted agent's), told every change as `watchFaults` is. */
  private readonly laterWatches: FakePodWatch[] = [];
  /** Keys of pods whose stored status is Running and Ready (kept as writes land, so polling is O(1)). */
  private readonly running = new Set<string>();
  private rv = 0;
  private readonly latencyMs: number;
  private readonly clock: Clock;
  private readonly recordCalls: boolean;

  constructor(options: FakeHostPodsOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.clock = options.clock ?? systemClock;
    this.recordCalls = options.recordCalls ?? false;
    this.faults = new ApiFaults<PodOperation>(this.clock);
    this.watchFaults = new FakePodWatch(this.pods, this.clock);
    this.watch = this.watchFaults.watch;
  }

  /** Another watch over the same pods, as a restarted agent opens one (the first is stopped with its agent). */
  openWatch(): PodWatch {
    const watch = new FakePodWatch(this.pods, this.clock);
    this.laterWatches.push(watch);
    return watch.watch;
  }

  get size(): number {
    return this.pods.size;
  }

  /** Pods whose stored status says Running and Ready. */
  countRunning(): number {
    return this.running.size;
  }

  /** The stored pod (the server's copy, not the watch's). */
  pod(namespace: string, name: string): Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  // --- the other clients: scheduler and kubectl --------------------------------------------------

  /** A pod created and bound to the node (as the scheduler would leave it). */
  bind(pod: Pod): void {
    const meta = pod.metadata ?? {};
    const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    if (this.pods.has(key)) throw new Error(`pod ${key} exists`);
    pod.metadata = { ...meta, resourceVersion: String(++this.rv), creationTimestamp: new Date(this.clock.now()) };
    this.pods.set(key, pod);
    this.deliver({ type: 'added', pod });
  }

  /**
   * `kubectl delete pod`: a deletionTimestamp and grace period; the kubelet finishes it. A second
   * delete of a terminating pod only shortens its grace period, as the API server does.
   */
  requestDelete(namespace: string, name: string, graceSeconds = 30): void {
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (!old) return;
    if (old.metadata?.deletionTimestamp && graceSeconds >= (old.metadata.deletionGracePeriodSeconds ?? 0)) return;
    this.store(key, {
      ...old,
      metadata: {
        ...old.metadata,
        resourceVersion: String(++this.rv),
        deletionTimestamp: new Date(this.clock.now() + graceSeconds * 1000),
        deletionGracePeriodSeconds: graceSeconds,
        // As the API server: a graceful deletion is a new generation of a pod that counts them.
        ...(old.metadata?.generation ? { generation: old.metadata.generation + 1 } : {}),
      },
    });
  }

  /** `kubectl patch` of the spec: as the API server, a changed spec is a new generation. */
  updateSpec(namespace: string, name: string, change: (spec: NonNullable<Pod['spec']>) => NonNullable<Pod['spec']>): void {
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (!old?.spec) return;
    const generation = (old.metadata?.generation ?? 1) + 1;
    this.store(key, { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv), generation }, spec: change(old.spec) });
  }

  /** Another client replaces the pod: the old one is removed at once and `pod` (a new uid) bound in its place. */
  recreate(pod: Pod): void {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    const old = this.pods.get(key);
    if (old) this.remove(key, old);
    this.bind(pod);
  }

  /** Another writer changes the stored status (a controller, or `kubectl patch --subresource status`). */
  overwriteStatus(namespace: string, name: string, status: PodStatus): void {
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (old) this.store(key, { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) }, status });
  }

  keys(): Array<{ namespace: string; name: string }> {
    return [...this.pods.values()].map((p) => ({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' }));
  }

  // --- PodApi ------------------------------------------------------------------------------------

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return this.serve({ op: 'getPod', namespace, name }, () => {
      this.counters.gets++;
      return this.pods.get(`${namespace}/${name}`);
    });
  }

  patchPodStatus(namespace: string, name: string, uid: string, status: PodStatus): Promise<Pod> {
    return this.serve({ op: 'patchPodStatus', namespace, name, uid, status }, () => {
      this.counters.statusWrites++;
      const old = this.existing(namespace, name, 'patch status', uid);
      const before = old.status ?? {};
      return this.store(`${namespace}/${name}`, {
        ...old,
        metadata: { ...old.metadata, resourceVersion: String(++this.rv) },
        status: {
          ...before,
          ...status,
          conditions: mergeBy(before.conditions, status.conditions, (c) => c.type),
        },
      });
    });
  }

  patchPodAnnotations(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string | null>>): Promise<Pod> {
    return this.serve({ op: 'patchPodAnnotations', namespace, name, uid, annotations }, () => {
      this.counters.annotationWrites++;
      const old = this.existing(namespace, name, 'patch annotations', uid);
      const merged = mergeMap(old.metadata?.annotations, annotations);
      return this.store(`${namespace}/${name}`, { ...old, metadata: { ...old.metadata, annotations: merged, resourceVersion: String(++this.rv) } });
    });
  }

  deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<void> {
    return this.serve({ op: 'deletePod', namespace, name, uid: options.uid, delete: options }, () => {
      this.counters.deletes++;
      const key = `${namespace}/${name}`;
      const old = this.pods.get(key);
      if (!old) return;
      if (old.metadata?.uid !== options.uid) throw kubeError('conflict', `delete pod ${key}`, 'uid precondition failed');
      if (options.gracePeriodSeconds === 0) this.remove(key, old);
      else this.requestDelete(namespace, name, options.gracePeriodSeconds ?? 30);
    });
  }

  listPods(_options?: ListPodsOptions): Promise<PodList> {
    return this.serve({ op: 'listPods', namespace: '', name: '' }, () => {
      this.counters.lists++;
      return { items: [...this.pods.values()], resourceVersion: String(this.rv) };
    });
  }

  /** Records the request, waits its round trip, plays out its fault (if any), then runs it. */
  private async serve<T>(call: HostCall, run: () => T): Promise<T> {
    if (this.recordCalls) this.calls.push(call);
    if (this.latencyMs > 0) await sleep(this.clock, this.latencyMs);
    const settle = await this.faults.enter(call.op, `${call.op} ${call.namespace}/${call.name}`);
    const result = run();
    settle();
    return result;
  }

  private store(key: string, pod: Pod): Pod {
    this.pods.set(key, pod);
    if (isRunningReady(pod.status)) this.running.add(key);
    else this.running.delete(key);
    this.deliver({ type: 'updated', pod });
    return pod;
  }

  private remove(key: string, pod: Pod): void {
    this.pods.delete(key);
    this.running.delete(key);
    this.deliver({ type: 'deleted', pod });
  }

  /** The pod of that name; as the API server, a write naming another uid is a conflict. */
  private existing(namespace: string, name: string, operation: string, uid: string): Pod {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw kubeError('not-found', `${operation} ${namespace}/${name}`, 'not found');
    if (pod.metadata?.uid !== uid) throw kubeError('conflict', `${operation} ${namespace}/${name}`, 'uid precondition failed');
    return pod;
  }

  private deliver(event: Parameters<FakePodWatch['deliver']>[0]): void {
    this.watchFaults.deliver(event);
    for (const watch of this.laterWatches) watch.deliver(event);
  }
}

function isRunningReady(status: PodStatus | undefined): boolean {
  return status?.phase === 'Running' && (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
