/**
 * An in-memory host API for the pods bound to one virtual node: one store that is both the
 * apiserver's pods (behind {@link PodApi}) and the node's watch cache (behind {@link PodWatch}),
 * as the real agent holds exactly one copy of each pod (its watch cache).
 *
 * Like the apiserver: every write bumps a resourceVersion and is delivered to the watch as
 * 'updated' (after the store reflects it); the status patch merges conditions by type and
 * container statuses by name; a delete with grace 0 and a matching UID removes the pod and is
 * delivered as 'deleted'. The bench plays the other clients: `bind` (the scheduler) and
 * `requestDelete` (kubectl delete: a deletionTimestamp, then the kubelet's final delete).
 *
 * `latencyMs` delays every request (not the watch), as a round trip to a real apiserver would.
 * Not a test double: no failure injection, counters only.
 */
import { Subject } from 'rxjs';
import { systemClock } from '../../src/adapters/clock.js';
import { LifecycleControl } from '../../src/lib/lifecycle.js';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.js';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import type { DeletePodOptions, ListPodsOptions, PodApi, PodList } from '../../src/adapters/kubernetes/podApi.js';
import type { PodWatch, PodWatchEvent } from '../../src/adapters/kubernetes/watch.js';

export interface FakeHostPodsOptions {
  /** Added to every PodApi request (default 0: answered on the next microtask). */
  readonly latencyMs?: number;
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
  readonly watch: PodWatch;
  private readonly pods = new Map<string, Pod>();
  /** Keys of pods whose stored status is Running and Ready (kept as writes land, so polling is O(1)). */
  private readonly running = new Set<string>();
  private readonly subject = new Subject<PodWatchEvent>();
  private rv = 0;
  private started = false;
  private readonly latencyMs: number;

  constructor(options: FakeHostPodsOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    const life = new LifecycleControl({ clock: systemClock, release: () => this.subject.complete() });
    this.watch = {
      events: this.subject.asObservable(),
      ready: life.ready,
      done: life.done,
      start: () => {
        if (this.started) return;
        this.started = true;
        queueMicrotask(() => {
          this.subject.next({ type: 'synced' });
          life.markReady();
        });
      },
      stop: (stopOptions) => life.stop(stopOptions),
      hasSynced: () => this.started,
      list: () => [...this.pods.values()],
      get: (namespace, name) => this.pods.get(`${namespace}/${name}`),
    };
  }

  get size(): number {
    return this.pods.size;
  }

  /** Pods whose stored status says Running and Ready. */
  countRunning(): number {
    return this.running.size;
  }

  // --- the other clients: scheduler and kubectl --------------------------------------------------

  /** A pod created and bound to the node (as the scheduler would leave it). */
  bind(pod: Pod): void {
    const meta = pod.metadata ?? {};
    const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    if (this.pods.has(key)) throw new Error(`pod ${key} exists`);
    pod.metadata = { ...meta, resourceVersion: String(++this.rv), creationTimestamp: new Date() };
    this.pods.set(key, pod);
    this.subject.next({ type: 'added', pod });
  }

  /** `kubectl delete pod`: a deletionTimestamp and grace period; the kubelet finishes it. */
  requestDelete(namespace: string, name: string, graceSeconds = 30): void {
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (!old || old.metadata?.deletionTimestamp) return;
    const pod: Pod = {
      ...old,
      metadata: {
        ...old.metadata,
        resourceVersion: String(++this.rv),
        deletionTimestamp: new Date(Date.now() + graceSeconds * 1000),
        deletionGracePeriodSeconds: graceSeconds,
      },
    };
    this.pods.set(key, pod);
    this.subject.next({ type: 'updated', pod });
  }

  keys(): Array<{ namespace: string; name: string }> {
    return [...this.pods.values()].map((p) => ({ namespace: p.metadata?.namespace ?? '', name: p.metadata?.name ?? '' }));
  }

  // --- PodApi ------------------------------------------------------------------------------------

  async getPod(namespace: string, name: string): Promise<Pod | undefined> {
    await this.roundTrip();
    this.counters.gets++;
    return this.pods.get(`${namespace}/${name}`);
  }

  async patchPodStatus(namespace: string, name: string, uid: string, status: PodStatus): Promise<Pod> {
    await this.roundTrip();
    this.counters.statusWrites++;
    const old = this.existing(namespace, name, 'patch status', uid);
    const before = old.status ?? {};
    const pod: Pod = {
      ...old,
      metadata: { ...old.metadata, resourceVersion: String(++this.rv) },
      status: {
        ...before,
        ...status,
        conditions: mergeBy(before.conditions, status.conditions, (c) => c.type),
        containerStatuses: mergeBy(before.containerStatuses, status.containerStatuses, (c) => c.name),
        initContainerStatuses: mergeBy(before.initContainerStatuses, status.initContainerStatuses, (c) => c.name),
      },
    };
    const key = `${namespace}/${name}`;
    this.pods.set(key, pod);
    if (isRunningReady(pod.status)) this.running.add(key);
    else this.running.delete(key);
    this.subject.next({ type: 'updated', pod });
    return pod;
  }

  async patchPodAnnotations(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string | null>>): Promise<Pod> {
    await this.roundTrip();
    this.counters.annotationWrites++;
    const old = this.existing(namespace, name, 'patch annotations', uid);
    const merged: Record<string, string> = { ...old.metadata?.annotations };
    for (const [k, v] of Object.entries(annotations)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    const pod: Pod = { ...old, metadata: { ...old.metadata, annotations: merged, resourceVersion: String(++this.rv) } };
    this.pods.set(`${namespace}/${name}`, pod);
    this.subject.next({ type: 'updated', pod });
    return pod;
  }

  async deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<void> {
    await this.roundTrip();
    this.counters.deletes++;
    const key = `${namespace}/${name}`;
    const old = this.pods.get(key);
    if (!old) return;
    if (old.metadata?.uid !== options.uid) throw new KubeApiError({ kind: 'conflict', status: 409, message: 'uid precondition failed' }, `delete pod ${key}`);
    if (options.gracePeriodSeconds === 0) {
      this.pods.delete(key);
      this.running.delete(key);
      this.subject.next({ type: 'deleted', pod: old });
      return;
    }
    this.requestDelete(namespace, name, options.gracePeriodSeconds ?? 30);
  }

  async listPods(_options?: ListPodsOptions): Promise<PodList> {
    await this.roundTrip();
    this.counters.lists++;
    return { items: [...this.pods.values()], resourceVersion: String(this.rv) };
  }

  /** The pod of that name; as the API server, a write naming another uid is a conflict. */
  private existing(namespace: string, name: string, operation: string, uid: string): Pod {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new KubeApiError({ kind: 'notFound', status: 404, message: 'not found' }, `${operation} ${namespace}/${name}`);
    if (pod.metadata?.uid !== uid) throw new KubeApiError({ kind: 'conflict', status: 409, message: 'uid precondition failed' }, `${operation} ${namespace}/${name}`);
    return pod;
  }

  private roundTrip(): Promise<void> {
    return this.latencyMs > 0 ? new Promise((resolve) => setTimeout(resolve, this.latencyMs)) : Promise.resolve();
  }
}

function mergeBy<T>(before: T[] | undefined, patch: T[] | undefined, key: (item: T) => string): T[] | undefined {
  if (!patch) return before;
  const out = [...(before ?? [])];
  for (const item of patch) {
    const i = out.findIndex((o) => key(o) === key(item));
    if (i >= 0) out[i] = item;
    else out.push(item);
  }
  return out;
}

function isRunningReady(status: PodStatus | undefined): boolean {
  return status?.phase === 'Running' && (status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
