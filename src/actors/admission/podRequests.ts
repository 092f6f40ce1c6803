/**
 * A pod's effective requests, as the kubelet's admission and the scheduler count them
 * (component-helpers' PodRequests): the sum of the regular containers plus the sidecars (init
 * containers with restartPolicy Always), or the largest init step if that is more, plus the pod
 * overhead. CPU in millicores and everything else in base units, as integers. Pure.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { perObject } from '../../lib/perObject.js';
import { parseQuantity } from '../../lib/quantity.js';

export type Requests = Readonly<Record<string, number>>;

type ResourceMap = Readonly<Record<string, string | number>> | undefined;

/** CPU counts in millicores (rounded up, as Quantity.MilliValue does), the rest in whole units. */
export function amountOf(resource: string, quantity: string | number): number {
  const value = parseQuantity(quantity) ?? 0;
  return resource === 'cpu' ? Math.ceil(Math.round(value * 1e6) / 1e3) : Math.ceil(value);
}

function toRequests(list: ResourceMap): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(list ?? {})) out[name] = amountOf(name, q);
  return out;
}

function add(a: Requests, b: Requests): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [name, v] of Object.entries(b)) out[name] = (out[name] ?? 0) + v;
  return out;
}

function max(a: Requests, b: Requests): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [name, v] of Object.entries(b)) out[name] = Math.max(out[name] ?? 0, v);
  return out;
}

/**
 * A container's requests; a limit without a request stands for the request, as the API server
 * defaults it (a pod read before defaulting, as in tests, counts the same).
 */
function containerRequests(resources: { requests?: ResourceMap; limits?: ResourceMap } | undefined): Record<string, number> {
  return { ...toRequests(resources?.limits), ...toRequests(resources?.requests) };
}

/**
 * Asked for the pod being admitted and again when the node's ledger counts the cached object of it
 * (usually the same object), and for each pod of a list summed afresh (nodeUsage.ts). Keyed by the
 * pod object: the watch cache replaces a pod on every event and never changes one in place, so a
 * pod object's requests never change. {@link computePodRequests} once per pod object
 * (perObject.ts): a pod must not be changed in place after it is counted.
 */
export const podRequests: (pod: Pod) => Requests = perObject(computePodRequests);

function computePodRequests(pod: Pod): Requests {
  const spec = pod.spec;
  let total: Record<string, number> = {};
  for (const c of spec?.containers ?? []) total = add(total, containerRequests(c.resources as never));
  let sidecars: Record<string, number> = {};
  let initPeak: Record<string, number> = {};
  for (const c of spec?.initContainers ?? []) {
    const own = containerRequests(c.resources as never);
    // A sidecar keeps running beside the init containers after it and the regular containers.
    const step = c.restartPolicy === 'Always' ? (sidecars = add(sidecars, own)) : add(own, sidecars);
    initPeak = max(initPeak, step);
  }
  total = max(add(total, sidecars), initPeak);
  return add(total, toRequests(spec?.overhead as ResourceMap));
}
