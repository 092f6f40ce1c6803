/**
 * A complete, compiled example provider (type-checked with the rest: tsconfig.json includes
 * examples/). It "runs" a pod by echoing it back: Running at once, Succeeded when deleted. Read it
 * beside docs/providers.md; it passes the provider conformance suite
 * (test/providers/conformance/echoExample.test.ts), which is the proof a provider keeps the contract.
 *
 * What it shows:
 * - identity: the pod Tether hands in carries the host uid (`metadata.uid` and the
 *   `tether.dev/host-uid` annotation) and Tether's other `tether.dev/` annotations; every pod it
 *   hands back (getPod, listPods, notifications) carries them unchanged;
 * - idempotence: a second createPod of the same uid resolves; deletePod of a pod it no longer
 *   has rejects `notFound`, which Tether takes as "already deleted";
 * - status is pushed asynchronously, in order per pod, never from inside the call that caused it;
 * - errors are classified (`notFound`, `invalidInput`, `transient`), never bare;
 * - it does not wrap itself in `withDeepCopies`: Tether does that once, where it hands the
 *   provider to the node, so this class may keep the pods it is given.
 */
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { invalidInput, notFound, transient } from '../../../src/providers/errors.js';
import { podKey } from '../../../src/lib/podIdentity.js';
import { terminatedStatus } from '../../../src/providers/podStatus.js';
import {
  podIdentity,
  type NodeResources, type PodNotification, type PodNotificationCallback, type Provider, type ProviderNodeInfo,
} from '../../../src/providers/provider.js';

export interface EchoProviderOptions {
  /** What the node offers; default 4 CPUs, 8 GiB, 110 pods. */
  readonly resources?: NodeResources;
}

const DEFAULT_RESOURCES: NodeResources = {
  capacity: { cpu: '4', memory: '8Gi', pods: '110' },
  allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
};

export class EchoProvider implements Provider {
  readonly name = 'echo';
  private readonly pods = new Map<string, Pod>();
  private notify: PodNotificationCallback = () => undefined;

  constructor(private readonly options: EchoProviderOptions = {}) {}

  notifyPods(callback: PodNotificationCallback): void {
    this.notify = callback;
  }

  async createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const { namespace, name, uid } = podIdentity(pod);
    if (name === '' || (pod.spec?.containers ?? []).length === 0) throw invalidInput('a pod needs a name and at least one container');
    const key = podKey(namespace, name);
    const existing = this.pods.get(key);
    if (existing !== undefined) {
      if (existing.metadata?.uid === uid) return; // the same pod again: nothing to do
      throw transient(`another pod named ${key} is still here; retry once it has gone`);
    }
    const now = new Date();
    pod.status = {
      phase: 'Running',
      startTime: now,
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name, image: c.image ?? '', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: now } },
      })),
    };
    this.pods.set(key, pod);
    this.push({ type: 'status', pod });
  }

  async updatePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const current = this.require(pod);
    this.pods.set(podKey(podIdentity(pod).namespace, podIdentity(pod).name), { ...pod, status: current.status });
  }

  /** Ends at once: the terminal status is pushed, then the pod is forgotten. */
  async deletePod(pod: Pod, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const current = this.require(pod);
    const { namespace, name } = podIdentity(pod);
    this.pods.delete(podKey(namespace, name));
    const ended: Pod = { ...current, status: terminatedStatus(current, current.status, { now: new Date(), exitCode: 0, reason: 'Completed' }) };
    this.push({ type: 'status', pod: ended });
  }

  async getPod(namespace: string, name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    signal?.throwIfAborted();
    return this.pods.get(podKey(namespace, name));
  }

  async getPodStatus(namespace: string, name: string, signal?: AbortSignal): Promise<PodStatus | undefined> {
    return (await this.getPod(namespace, name, signal))?.status;
  }

  async listPods(signal?: AbortSignal): Promise<Pod[]> {
    signal?.throwIfAborted();
    return [...this.pods.values()];
  }

  async ping(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
  }

  /** A fresh object each call: node methods are not wrapped, so the provider hands out its own copies. */
  async capacity(): Promise<NodeResources> {
    const resources = this.options.resources ?? DEFAULT_RESOURCES;
    return { capacity: { ...resources.capacity }, allocatable: { ...resources.allocatable } };
  }

  async nodeInfo(): Promise<ProviderNodeInfo> {
    return { operatingSystem: 'linux', architecture: 'amd64', kernelVersion: 'echo', osImage: 'Echo', containerRuntimeVersion: 'echo://1' };
  }

  /** The pod Tether names, with the same uid, or `notFound`. */
  private require(pod: Pod): Pod {
    const { namespace, name, uid } = podIdentity(pod);
    const current = this.pods.get(podKey(namespace, name));
    if (current === undefined || (uid !== undefined && current.metadata?.uid !== uid)) throw notFound(`pod ${podKey(namespace, name)} not found`);
    return current;
  }

  /** After the current call has returned, in order (a microtask queue is FIFO). */
  private push(notification: PodNotification): void {
    queueMicrotask(() => this.notify(notification));
  }
}
