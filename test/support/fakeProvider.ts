/**
 * A provider the test drives by hand, for whole-node scenarios: it keeps the pods it is given,
 * reports a pod Running only when told (`run`), ends it only when
 * told (`finish`, `lose`), and records every call. Faults per operation (`faults`: a failed
 * create, a slow delete, a hang; script failures as a provider classifies them, `transient(...)`,
 * since an unclassified one is a provider bug); `pingFails` turns its health checks down. It keeps the
 * contract (src/providers/provider.ts): create and delete are idempotent, a delete of an unknown
 * pod is `notFound`, notifications are asynchronous and carry copies.
 */
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import type { Clock } from '../../src/lib/clock.js';
import { notFound, transient } from '../../src/providers/errors.js';
import { podCondition, terminatedStatus } from '../../src/providers/podStatus.js';
import type { NodeResources, PodNotificationCallback, Provider, ProviderNodeInfo } from '../../src/providers/provider.js';
import { ApiFaults } from './apiFaults.js';

export type ProviderOperation = 'createPod' | 'updatePod' | 'deletePod' | 'getPod' | 'listPods';

export interface ProviderCall {
  readonly op: ProviderOperation;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  /** When the call came, on the provider's clock. */
  readonly at: number;
  /** deletePod: the grace period it was given. */
  readonly graceSeconds?: number;
}

export interface FakeProviderOptions {
  readonly clock: Clock;
}

export class FakeProvider implements Provider {
  readonly name = 'fake';
  readonly calls: ProviderCall[] = [];
  readonly faults: ApiFaults<ProviderOperation>;
  /** While true, every ping fails (the backend is unreachable). */
  pingFails = false;
  private readonly pods = new Map<string, Pod>();
  private callback: PodNotificationCallback = () => undefined;
  protected readonly clock: Clock;

  constructor(options: FakeProviderOptions) {
    this.clock = options.clock;
    this.faults = new ApiFaults<ProviderOperation>(options.clock);
  }

  /** Calls of `op` for the pod `name` (any namespace). */
  callsOf(op: ProviderOperation, name: string): ProviderCall[] {
    return this.calls.filter((c) => c.op === op && c.name === name);
  }

  has(namespace: string, name: string): boolean {
    return this.pods.has(`${namespace}/${name}`);
  }

  // --- the backend's side ------------------------------------------------------------------------

  /** The pod's containers run and are ready. */
  run(namespace: string, name: string): void {
    const now = new Date(this.clock.now());
    this.report(namespace, name, (pod) => ({
      phase: 'Running',
      podIP: '10.244.0.7',
      hostIP: '10.0.0.1',
      startTime: now,
      conditions: ['Initialized', 'ContainersReady', 'Ready'].map((type) => podCondition(type, true, now)),
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name, image: c.image ?? '', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
      })),
    }));
  }

  /** The pod's containers exit (`exitCode` 0: Succeeded, else Failed). */
  finish(namespace: string, name: string, exitCode = 0): void {
    const now = new Date(this.clock.now());
    this.report(namespace, name, (pod) => terminatedStatus(pod, pod.status, { now, exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' }));
  }

  /** The backend lost the pod without being asked (evicted, reset). */
  lose(namespace: string, name: string, reason = 'NotFound'): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    this.pods.delete(`${namespace}/${name}`);
    queueMicrotask(() => this.callback({ type: 'gone', namespace, name, uid: pod?.metadata?.uid, reason }));
  }

  // --- Provider ----------------------------------------------------------------------------------

  notifyPods(callback: PodNotificationCallback): void {
    this.callback = callback;
  }

  async createPod(pod: Pod): Promise<void> {
    const { namespace = '', name = '' } = pod.metadata ?? {};
    await this.enter({ op: 'createPod', namespace, name, ...uidOf(pod) });
    const key = `${namespace}/${name}`;
    if (this.pods.get(key)?.metadata?.uid === pod.metadata?.uid) return;
    this.pods.set(key, { ...structuredClone(pod), status: { phase: 'Pending' } });
  }

  async updatePod(pod: Pod): Promise<void> {
    const { namespace = '', name = '' } = pod.metadata ?? {};
    await this.enter({ op: 'updatePod', namespace, name, ...uidOf(pod) });
    const old = this.pods.get(`${namespace}/${name}`);
    if (!old) throw notFound(`pod ${namespace}/${name} not found`);
    this.pods.set(`${namespace}/${name}`, { ...structuredClone(pod), status: old.status ?? {} });
  }

  async deletePod(pod: Pod): Promise<void> {
    const { namespace = '', name = '' } = pod.metadata ?? {};
    const graceSeconds = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    await this.enter({ op: 'deletePod', namespace, name, ...uidOf(pod), graceSeconds });
    if (!this.pods.has(`${namespace}/${name}`)) throw notFound(`pod ${namespace}/${name} not found`);
  }

  async getPod(namespace: string, name: string): Promise<Pod | undefined> {
    await this.enter({ op: 'getPod', namespace, name });
    const pod = this.pods.get(`${namespace}/${name}`);
    return pod && structuredClone(pod);
  }

  async getPodStatus(namespace: string, name: string): Promise<PodStatus | undefined> {
    return (await this.getPod(namespace, name))?.status;
  }

  async listPods(): Promise<Pod[]> {
    await this.enter({ op: 'listPods', namespace: '', name: '' });
    return [...this.pods.values()].map((p) => structuredClone(p));
  }

  async ping(): Promise<void> {
    if (this.pingFails) throw transient('backend unreachable');
  }

  async capacity(): Promise<NodeResources> {
    return { capacity: { cpu: '8', memory: '32Gi', pods: '110' }, allocatable: { cpu: '8', memory: '32Gi', pods: '110' } };
  }

  async nodeInfo(): Promise<ProviderNodeInfo> {
    return { operatingSystem: 'linux', architecture: 'amd64', kernelVersion: '6.6', osImage: 'Fake', containerRuntimeVersion: 'fake://1' };
  }

  private async enter(call: Omit<ProviderCall, 'at'>): Promise<void> {
    this.calls.push({ ...call, at: this.clock.now() });
    const settle = await this.faults.enter(call.op, `${call.op} ${call.namespace}/${call.name}`);
    settle();
  }

  /** Sets the pod's status and notifies it, asynchronously, as the contract asks. */
  protected report(namespace: string, name: string, status: (pod: Pod) => PodStatus): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new Error(`the fake provider has no pod ${namespace}/${name}`);
    pod.status = status(pod);
    const copy = structuredClone(pod);
    queueMicrotask(() => this.callback({ type: 'status', pod: copy }));
  }
}

function uidOf(pod: Pod): { uid?: string } {
  const uid = pod.metadata?.uid;
  return uid === undefined ? {} : { uid };
}
