/**
 * Deep copies at the provider boundary, so neither side can change the other's objects
 * (virtual-kubelet's data races #726/#730/#731 came from sharing pods across that line).
 */
import type { Pod, PodStatus } from '../adapters/kubernetes/model.js';
import type { LegacyPodProvider, PodNotification, PodProvider } from './provider.js';
import { definedOnly, ifDefined } from '../lib/defaults.js';

/**
 * Copies a JSON-like value (client-node model objects): plain objects, arrays, Dates and
 * primitives. Unlike structuredClone, it keeps class prototypes (a V1Pod stays a V1Pod) as well
 * as Dates, so client-node's serializer and `instanceof` checks behave the same on the copy.
 * Own enumerable properties are copied; functions are shared. Kubernetes objects have no cycles,
 * and cycles are not supported.
 */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return new Date(value.getTime());
  if (Array.isArray(value)) return value.map(copyValue);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, copyValue(v)]));
  if (value instanceof Set) return new Set([...value].map(copyValue));
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
  for (const [key, field] of Object.entries(value)) copy[key] = copyValue(field);
  return copy;
}

export function deepCopyPod(pod: Pod): Pod {
  return deepCopy(pod);
}

/**
 * Copies a long list in slices, yielding to the event loop between them: copying 10k pods in one
 * go blocks the loop for about a second, and with it every lease renewal due meanwhile.
 */
export async function deepCopyPodsYielding(pods: readonly Pod[], slice = 500): Promise<Pod[]> {
  const out: Pod[] = [];
  for (let i = 0; i < pods.length; i += slice) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const pod of pods.slice(i, i + slice)) out.push(deepCopyPod(pod));
  }
  return out;
}

export function deepCopyPodStatus(status: PodStatus): PodStatus {
  return deepCopy(status);
}

/**
 * A status notification crosses with the pod's metadata (routing: uid, Tether's marks) and status
 * (the news), not its spec: the spec is the host's, and nobody on Tether's side reads the
 * provider's. A storm delivers two or three of these per pod, and a whole pod is ~2.5 KiB of heap.
 */
function copyNotification(notification: PodNotification): PodNotification {
  if (notification.type !== 'status') return { ...notification };
  const { apiVersion, kind, metadata, status } = notification.pod;
  return {
    type: 'status',
    pod: {
      ...definedOnly({
        apiVersion,
        kind,
        metadata: ifDefined(metadata, deepCopy),
        status: ifDefined(status, deepCopy),
      }),
    },
  };
}

const podMethods = {
  createPod: (p: LegacyPodProvider) => (pod: Pod, signal?: AbortSignal) => p.createPod(deepCopyPod(pod), signal),
  updatePod: (p: LegacyPodProvider) => (pod: Pod, signal?: AbortSignal) => p.updatePod(deepCopyPod(pod), signal),
  deletePod: (p: LegacyPodProvider) => (pod: Pod, signal?: AbortSignal) => p.deletePod(deepCopyPod(pod), signal),
  getPod: (p: LegacyPodProvider) => async (ns: string, name: string, signal?: AbortSignal) => {
    const pod = await p.getPod(ns, name, signal);
    return pod === undefined ? undefined : deepCopyPod(pod);
  },
  getPodStatus: (p: LegacyPodProvider) => async (ns: string, name: string, signal?: AbortSignal) => {
    const status = await p.getPodStatus(ns, name, signal);
    return status === undefined ? undefined : deepCopyPodStatus(status);
  },
  listPods: (p: LegacyPodProvider) => async (signal?: AbortSignal) => deepCopyPodsYielding(await p.listPods(signal)),
  notifyPods: (p: LegacyPodProvider) => (callback: (n: PodNotification) => void) =>
    (p as PodProvider).notifyPods((n) => callback(copyNotification(n))),
} as const;

function isPodMethod(prop: string | symbol): prop is keyof typeof podMethods {
  return typeof prop === 'string' && Object.hasOwn(podMethods, prop);
}

/** Answered `true` by a provider wrapped by `withDeepCopies`, through any decorator that passes symbols on. */
const COPIES = Symbol('tether.withDeepCopies');

/**
 * Wraps a provider so that every pod handed to it, and every pod it returns or notifies, is a
 * deep copy (a notified pod: of its metadata and status only, see copyNotification). Everything
 * else (node methods, logs, stats, extra methods) passes through unchanged, bound to the original
 * provider, so capability checks (`isLogsProvider`) still see the truth.
 *
 * Tether wraps every provider once, where it hands it to a virtual node (TetherAgent); a provider
 * does not wrap itself. A provider that is wrapped already is returned as it is, so pods are
 * copied once per crossing, however many times the wrap is asked for.
 */
export function withDeepCopies<P extends LegacyPodProvider>(provider: P): P {
  if ((provider as { [COPIES]?: unknown })[COPIES] === true) return provider;
  const wrapped = new Map<string, unknown>();
  return new Proxy(provider, {
    get(target, prop) {
      if (prop === COPIES) return true;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!isPodMethod(prop)) return (value as (...args: unknown[]) => unknown).bind(target);
      let method = wrapped.get(prop);
      if (method === undefined) {
        method = podMethods[prop](target);
        wrapped.set(prop, method);
      }
      return method;
    },
  });
}
