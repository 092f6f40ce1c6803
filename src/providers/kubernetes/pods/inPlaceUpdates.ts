/**
 * What of a host pod's change goes to its remote pod through a subresource rather than the pod
 * patch (hostKeys.ts): an in-place resize (`pods/resize`: the containers' resources) and new
 * ephemeral containers (`pods/ephemeralcontainers`, as `kubectl debug` adds them). Pure.
 *
 * Only the resources the host sets are compared, so what a remote LimitRange added is no resize.
 * A resize the remote API server refuses is said on the host as the kubelet says one it cannot
 * do: `PodResizePending`, reason `Infeasible`, the remote's words as its message.
 */
import type { Pod, PodCondition, PodSpec } from '../../../adapters/kubernetes/model.js';
import { parseQuantity } from '../../../lib/quantity.js';
import { definedOnly } from '../../../lib/defaults.js';

type Container = PodSpec['containers'][number];
type Requirements = NonNullable<Container['resources']>;

export interface ResizePatch {
  readonly spec: {
    readonly containers?: readonly { readonly name: string; readonly resources: Requirements }[];
    readonly initContainers?: readonly { readonly name: string; readonly resources: Requirements }[];
  };
}

const sameQuantity = (a: string | undefined, b: string | undefined): boolean => a === b || (parseQuantity(a) !== undefined && parseQuantity(a) === parseQuantity(b));

/** Whether `current` already has every request and limit `wanted` sets. */
function covers(current: Requirements | undefined, wanted: Requirements | undefined): boolean {
  return (['requests', 'limits'] as const).every((kind) => Object.entries(wanted?.[kind] ?? {}).every(([name, q]) => sameQuantity(current?.[kind]?.[name], q)));
}

function changed(desired: readonly Container[] | undefined, current: readonly Container[] | undefined): { name: string; resources: Requirements }[] {
  return (desired ?? []).flatMap((c) => {
    const remote = current?.find((r) => r.name === c.name);
    return remote && !covers(remote.resources, c.resources) ? [{ name: c.name, resources: structuredClone(c.resources ?? {}) }] : [];
  });
}

/** The resize subresource's strategic merge patch that brings `current` to the resources of `desired`; undefined when nothing differs. */
export function resizePatch(current: Pod, desired: Pod): ResizePatch | undefined {
  const containers = changed(desired.spec?.containers, current.spec?.containers);
  const initContainers = changed(desired.spec?.initContainers, current.spec?.initContainers);
  if (containers.length === 0 && initContainers.length === 0) return undefined;
  return { spec: definedOnly({ containers: containers.length > 0 ? containers : undefined, initContainers: initContainers.length > 0 ? initContainers : undefined }) };
}

/** The ephemeralcontainers subresource's patch adding the host's ephemeral containers the remote pod lacks; undefined when none. */
export function ephemeralContainersPatch(current: Pod, wanted: NonNullable<PodSpec['ephemeralContainers']>): { spec: { ephemeralContainers: NonNullable<PodSpec['ephemeralContainers']> } } | undefined {
  const have = new Set((current.spec?.ephemeralContainers ?? []).map((c) => c.name));
  const added = wanted.filter((c) => !have.has(c.name));
  return added.length === 0 ? undefined : { spec: { ephemeralContainers: added } };
}

export const RESIZE_REFUSED = 'ResizeInfeasible';

/** The host's answer to a resize the remote API server refused. */
export function resizeRefusal(message: string, generation: number | undefined, now: Date): PodCondition {
  return { type: 'PodResizePending', status: 'True', reason: 'Infeasible', message: `the remote cluster refused the resize: ${message}`, lastTransitionTime: now, ...definedOnly({ observedGeneration: generation }) };
}
