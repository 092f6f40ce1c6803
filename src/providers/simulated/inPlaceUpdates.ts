/**
 * The simulated node's in-place updates of a running pod, when it is built with them
 * (`inPlaceUpdates`), as a kubelet of Kubernetes 1.36 performs them. Pure; simulatedPods.ts keeps
 * the state and the timer.
 *
 * - Resize (allocation_manager.go): a change of the containers' resources is checked against the
 *   node: a request larger than the node's allocatable is `PodResizePending` `Infeasible`
 *   ("Node didn't have enough capacity: cpu, requested: 30000, capacity: 20000", CPU in
 *   millicores, memory in bytes), one that fits the node but not beside the other pods is
 *   `Deferred` ("Node didn't have enough resource: ..."); one that fits is allocated at once
 *   (`allocatedResources`) and `PodResizeInProgress` until it is actuated, after the resize
 *   latency (`resources`). Each running container reports `resources` (what the API server looks
 *   for before it accepts a resize) and every container its `allocatedResources` (requests).
 *   A condition that no longer holds is reported False: the node's Tether writes status with a
 *   strategic merge, which would keep a condition left out.
 * - Ephemeral containers: each new entry of `spec.ephemeralContainers` runs at once (exec reaches
 *   it through the built-in shell) and is reported in `ephemeralContainerStatuses`; it ends with
 *   the pod.
 */
import type { ContainerStatus, Pod, PodCondition, PodSpec, PodStatus } from '../../adapters/kubernetes/model.js';
import { parseQuantity } from '../../lib/quantity.js';
import { definedOnly } from '../../lib/defaults.js';
import { isTerminalPhase } from '../podStatus.js';
import type { InPlaceUpdate, ResourceList } from '../provider.js';
import { isSidecar } from './restartPolicy.js';
import { simulatedContainerID, simulatedImageID } from './podLifecycle.js';

type Requirements = NonNullable<PodSpec['containers'][number]['resources']>;
/** Container name → its resources (requests and limits), for the main containers and sidecars. */
export type ContainerResources = ReadonlyMap<string, Requirements>;

export interface RunningEphemeral {
  readonly name: string;
  readonly image: string;
  readonly startedAt: Date;
}

/** One pod's in-place state: what is allocated, what the containers run with, the resize conditions, its ephemeral containers. */
export interface InPlaceState {
  readonly allocated: ContainerResources;
  readonly actuated: ContainerResources;
  readonly conditions: readonly PodCondition[];
  readonly ephemeral: readonly RunningEphemeral[];
}

export type ResizeVerdict =
  | { readonly kind: 'none' }
  | { readonly kind: 'fits'; readonly allocated: ContainerResources }
  | { readonly kind: 'Infeasible' | 'Deferred'; readonly message: string };

export function inPlaceSet(updates: readonly InPlaceUpdate[] | undefined): ReadonlySet<InPlaceUpdate> {
  return new Set(updates ?? []);
}

/** The resources of the main containers and sidecars as the spec asks for them. */
export function resourcesOf(spec: PodSpec | undefined): ContainerResources {
  const list = [...(spec?.initContainers ?? []).filter(isSidecar), ...(spec?.containers ?? [])];
  return new Map(list.map((c) => [c.name, structuredClone(c.resources ?? {})]));
}

export function initialInPlace(pod: Pod): InPlaceState {
  const allocated = resourcesOf(pod.spec);
  return { allocated, actuated: allocated, conditions: [], ephemeral: [] };
}

const same = (a: ContainerResources, b: ContainerResources): boolean =>
  a.size === b.size && [...a].every(([name, r]) => JSON.stringify(r) === JSON.stringify(b.get(name)));

/** The pod's total request of `resource` (base units) with these container resources. */
function requested(resources: ContainerResources, resource: string): number {
  let total = 0;
  for (const r of resources.values()) total += parseQuantity(r.requests?.[resource] ?? r.limits?.[resource]) ?? 0;
  return total;
}

/** CPU in millicores, memory in bytes: the kubelet's units in its messages. */
const asShown = (resource: string, value: number): number => Math.round(resource === 'cpu' ? value * 1000 : value);

/**
 * A resize of `desired` (the new spec's resources) against the node: the node's allocatable and
 * what the node's other pods have allocated (`others`, base units per resource).
 */
export function resizeVerdict(state: InPlaceState, desired: ContainerResources, allocatable: ResourceList, others: (resource: string) => number): ResizeVerdict {
  if (same(state.allocated, desired)) return { kind: 'none' };
  for (const resource of ['cpu', 'memory']) {
    const capacity = parseQuantity(allocatable[resource]);
    if (capacity === undefined) continue;
    const wanted = requested(desired, resource);
    if (wanted > capacity) {
      return { kind: 'Infeasible', message: `Node didn't have enough capacity: ${resource}, requested: ${asShown(resource, wanted)}, capacity: ${asShown(resource, capacity)}` };
    }
    const used = others(resource);
    if (wanted + used > capacity) {
      return { kind: 'Deferred', message: `Node didn't have enough resource: ${resource}, requested: ${asShown(resource, wanted)}, used: ${asShown(resource, used)}, capacity: ${asShown(resource, capacity)}` };
    }
  }
  return { kind: 'fits', allocated: desired };
}

/** What the pod has allocated of `resource` (base units), for the other pods' sum. */
export function allocatedOf(state: InPlaceState, resource: string): number {
  return requested(state.allocated, resource);
}

/** The state after a verdict at `now` (generation: the pod's). */
export function afterVerdict(state: InPlaceState, verdict: ResizeVerdict, now: Date, generation: number | undefined): InPlaceState {
  const stamp = definedOnly({ observedGeneration: generation });
  switch (verdict.kind) {
    case 'none':
      return state;
    case 'fits':
      return { ...state, allocated: verdict.allocated, conditions: setCondition(setCondition(state.conditions, { type: 'PodResizePending', status: 'False', reason: '', message: '', lastTransitionTime: now }), { type: 'PodResizeInProgress', status: 'True', reason: '', message: '', lastTransitionTime: now, ...stamp }) };
    case 'Infeasible':
    case 'Deferred':
      return { ...state, conditions: setCondition(state.conditions, { type: 'PodResizePending', status: 'True', reason: verdict.kind, message: verdict.message, lastTransitionTime: now, ...stamp }) };
  }
}

/** The allocation actuated: the containers run with it, and the resize is no longer in progress. */
export function actuated(state: InPlaceState, now: Date): InPlaceState {
  return { ...state, actuated: state.allocated, conditions: setCondition(state.conditions, { type: 'PodResizeInProgress', status: 'False', reason: '', message: '', lastTransitionTime: now }) };
}

/** Whether the spec is back to what is allocated while a resize is pending (it no longer is). */
export function withdrawn(state: InPlaceState, desired: ContainerResources, now: Date): InPlaceState {
  const pending = state.conditions.find((c) => c.type === 'PodResizePending' && c.status === 'True');
  if (!pending || !same(state.allocated, desired)) return state;
  return { ...state, conditions: setCondition(state.conditions, { type: 'PodResizePending', status: 'False', reason: '', message: '', lastTransitionTime: now }) };
}

/** A condition set, keeping the earlier one (and its time) when only its time would change; a False one never shown is not added. */
function setCondition(conditions: readonly PodCondition[], next: PodCondition): PodCondition[] {
  const before = conditions.find((c) => c.type === next.type);
  const others = conditions.filter((c) => c.type !== next.type);
  if (!before && next.status === 'False') return others;
  if (before && before.status === next.status && before.reason === next.reason && before.message === next.message && before.observedGeneration === next.observedGeneration) return [...others, before];
  return [...others, next];
}

/** New ephemeral containers of the spec, started at `now`. */
export function withEphemeral(state: InPlaceState, spec: PodSpec | undefined, now: Date): InPlaceState {
  const added = (spec?.ephemeralContainers ?? []).filter((c) => !state.ephemeral.some((e) => e.name === c.name));
  if (added.length === 0) return state;
  return { ...state, ephemeral: [...state.ephemeral, ...added.map((c) => ({ name: c.name, image: c.image ?? '', startedAt: now }))] };
}

/** `status` as the kubelet reports the in-place state: resources per container, resize conditions, ephemeral container statuses. */
export function inPlaceStatus(status: PodStatus, state: InPlaceState, pod: Pod, updates: ReadonlySet<InPlaceUpdate>): PodStatus {
  const out: PodStatus = { ...status };
  if (updates.has('resize')) {
    const withResources = (s: ContainerStatus): ContainerStatus => {
      const allocated = state.allocated.get(s.name);
      const running = state.actuated.get(s.name);
      if (allocated === undefined) return s;
      return { ...s, ...definedOnly({ allocatedResources: allocated.requests, resources: s.state?.running ? running : undefined }) };
    };
    if (status.containerStatuses) out.containerStatuses = status.containerStatuses.map(withResources);
    if (status.initContainerStatuses) out.initContainerStatuses = status.initContainerStatuses.map(withResources);
    if (state.conditions.length > 0) out.conditions = [...(status.conditions ?? []).filter((c) => !state.conditions.some((r) => r.type === c.type)), ...state.conditions];
  }
  if (updates.has('ephemeralContainers') && state.ephemeral.length > 0) {
    const ended = isTerminalPhase(status.phase);
    const uid = pod.metadata?.uid ?? '';
    out.ephemeralContainerStatuses = state.ephemeral.map((e): ContainerStatus => ({
      name: e.name, image: e.image, imageID: simulatedImageID(e.image), containerID: simulatedContainerID(uid, e.name, 0),
      ready: false, restartCount: 0,
      state: ended ? { terminated: { exitCode: 137, reason: 'Error', startedAt: e.startedAt, finishedAt: new Date(e.startedAt.getTime()) } } : { running: { startedAt: e.startedAt } },
    }));
  }
  return out;
}
