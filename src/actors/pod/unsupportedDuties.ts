/**
 * What a kubelet answers when it cannot do what the pod asks, for the two duties no provider
 * performs yet (docs/kubelet-api.md, "Ephemeral containers and in-place resize"). Pure.
 *
 * - An ephemeral container the provider does not report is shown as a container whose start
 *   failed, as the container runtime reports one (CRI: terminated, reason `StartError`, exit code
 *   128), with a message saying why, and the kubelet's `Failed` Event ("Error: ...").
 * - Container resources in the spec that differ from those the provider was given (an in-place
 *   resize) get the kubelet's `PodResizePending` condition, reason `Infeasible`
 *   (allocation_manager.go), and its `ResizeInfeasible` Event, in the kubelet's words
 *   (events/resize.go); the condition turns False once spec and allocation agree again.
 *
 * A provider that does either itself (an InPlaceUpdateProvider, `state.inPlace`) is not answered
 * for: its status (the remote kubelet's conditions, its ephemeral container statuses) is the answer.
 */
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';
import { definedOnly } from '../../lib/defaults.js';
import { fingerprint } from '../../lib/fingerprint.js';
import { perObject } from '../../lib/perObject.js';
import { isTerminalPhase } from '../../providers/podStatus.js';
import type { Allocation, PodCommon, PodStage } from './protocol.js';
import type { InPlaceDuties } from './config.js';

export const cannotRunEphemeral = 'the provider of this virtual node cannot run ephemeral containers';
export const cannotResize = 'the provider of this virtual node cannot resize containers in place';
export const resizePending = 'PodResizePending';
export const resizeInProgress = 'PodResizeInProgress';
const startError = { exitCode: 128, reason: 'StartError', message: cannotRunEphemeral } as const;


type Tracked = PodCommon & PodStage;

/**
 * The host pod object is replaced only when the host changes, so its fingerprint is kept per
 * object: deciding any other message costs a lookup, not a hash of the spec.
 */
const resourcesOf = perObject((host: Pod): string => {
  const each = (list: readonly { name: string; resources?: object }[] | undefined) => (list ?? []).map((c) => ({ name: c.name, resources: c.resources ?? {} }));
  return fingerprint({ init: each(host.spec?.initContainers), containers: each(host.spec?.containers) });
});

/**
 * The allocation, kept up to date with `host` (the host pod as it will be once the message is
 * decided). Until the provider has the pod, the spec's resources are what it will be given; once
 * it has them, a different spec is a resize the provider cannot apply.
 */
export function trackAllocation<S extends Tracked>(state: S, host: Pod | undefined, now: number): S {
  if (!host || state.inPlace.resize) return state;
  const resources = resourcesOf(host);
  const atProvider = state.stage === 'creating' || state.stage === 'running' || state.stage === 'terminating';
  const base = atProvider && state.allocation ? state.allocation.resources : resources;
  const pending = base !== resources;
  if (state.allocation?.resources === base && state.allocation.pending === pending) return state;
  return { ...state, allocation: { resources: base, pending, since: state.allocation?.pending === pending ? state.allocation.since : now } };
}

/** Whether the host pod asks for what the provider cannot do, or shows a resize condition to keep up to date. */
export function asksUnsupported(host: Pod | undefined, allocation: Allocation | null, inPlace: InPlaceDuties): boolean {
  const ephemeral = !inPlace.ephemeralContainers && (host?.spec?.ephemeralContainers?.length ?? 0) > 0;
  if (ephemeral) return true;
  if (inPlace.resize) return host?.status?.conditions?.some((c) => resizeConditions.has(c.type) && c.status === 'True') ?? false;
  return (allocation?.pending ?? false) || (host?.status?.conditions?.some((c) => c.type === resizePending) ?? false);
}

/** `status` (as written to the host) with what the provider cannot do said: ephemeral containers and a pending resize. */
export function withUnsupportedDuties(status: PodStatus, host: Pod | undefined, allocation: Allocation | null, inPlace: InPlaceDuties): PodStatus {
  const ephemeral = inPlace.ephemeralContainers ? status.ephemeralContainerStatuses : ephemeralStatuses(host, status.ephemeralContainerStatuses);
  const withEphemeral = ephemeral === status.ephemeralContainerStatuses ? status : { ...status, ephemeralContainerStatuses: ephemeral };
  return inPlace.resize ? withoutStaleResizeConditions(withEphemeral, host) : withResizeCondition(withEphemeral, host, allocation);
}

const resizeConditions: ReadonlySet<string> = new Set([resizePending, resizeInProgress]);

/**
 * A provider that resizes reports its kubelet's conditions, and a kubelet removes one when it no
 * longer holds; a strategic merge would keep it on the host, so one shown True that the provider
 * left out is turned False (dated as it was shown: a status write is decided without a clock, and
 * the same status must fingerprint the same).
 */
function withoutStaleResizeConditions(status: PodStatus, host: Pod | undefined): PodStatus {
  const reported = new Set((status.conditions ?? []).map((c) => c.type));
  const stale = (host?.status?.conditions ?? []).filter((c) => resizeConditions.has(c.type) && c.status === 'True' && !reported.has(c.type));
  if (stale.length === 0) return status;
  const cleared = stale.map((c): PodCondition => ({ type: c.type, status: 'False', reason: '', message: '', ...definedOnly({ lastTransitionTime: c.lastTransitionTime }) }));
  return { ...status, conditions: [...(status.conditions ?? []), ...cleared] };
}

function ephemeralStatuses(host: Pod | undefined, reported: ContainerStatus[] | undefined): ContainerStatus[] | undefined {
  const missing = (host?.spec?.ephemeralContainers ?? [])
    .filter((c) => !(reported ?? []).some((s) => s.name === c.name))
    .map((c): ContainerStatus => ({ name: c.name, image: c.image ?? '', imageID: '', ready: false, restartCount: 0, state: { terminated: { ...startError } } }));
  return missing.length === 0 ? reported : [...(reported ?? []), ...missing];
}

function withResizeCondition(status: PodStatus, host: Pod | undefined, allocation: Allocation | null): PodStatus {
  const others = (status.conditions ?? []).filter((c) => c.type !== resizePending);
  const shown = host?.status?.conditions?.find((c) => c.type === resizePending);
  const at = new Date(allocation?.since ?? 0);
  if (allocation?.pending && !isTerminalPhase(status.phase)) {
    const since = shown?.status === 'True' && shown.reason === 'Infeasible' && shown.lastTransitionTime ? shown.lastTransitionTime : at;
    return { ...status, conditions: [...others, { type: resizePending, status: 'True', reason: 'Infeasible', message: cannotResize, lastTransitionTime: since }] };
  }
  // A strategic merge keeps a condition a patch leaves out: one shown is turned False instead.
  if (!shown) return status;
  const cleared: PodCondition = { type: resizePending, status: 'False', reason: '', message: '', lastTransitionTime: shown.status === 'False' && shown.lastTransitionTime ? shown.lastTransitionTime : at };
  return { ...status, conditions: [...others, cleared] };
}

/** A kubelet Event about what the provider cannot do, read off the change from `previous` to `next` (once per change). */
export interface DutyEvent {
  readonly reason: 'Failed' | 'ResizeInfeasible';
  readonly note: string;
  readonly fieldPath?: string;
}

export function unsupportedDutyEvents(host: Pod | undefined, previous: PodStatus | null | undefined, next: PodStatus, inPlace: InPlaceDuties): DutyEvent[] {
  const before = new Set((previous?.ephemeralContainerStatuses ?? []).map((s) => s.name));
  const failed = (next.ephemeralContainerStatuses ?? [])
    .filter((s) => s.state?.terminated?.message === cannotRunEphemeral && !before.has(s.name))
    .map((s): DutyEvent => ({ reason: 'Failed', note: `Error: ${cannotRunEphemeral}`, fieldPath: `spec.ephemeralContainers{${s.name}}` }));
  const now = next.conditions?.find((c) => c.type === resizePending && c.status === 'True');
  const was = previous?.conditions?.find((c) => c.type === resizePending && c.status === 'True');
  // A provider that resizes says its own Events (the remote kubelet's, forwarded).
  const resized = now && !inPlace.resize && (!was || was.observedGeneration !== now.observedGeneration) ? [{ reason: 'ResizeInfeasible' as const, note: resizeNote(host, now.observedGeneration) }] : [];
  return [...failed, ...resized];
}

/** The kubelet's words: "Pod resize Infeasible: " and the spec's resources as JSON (events/resize.go). */
function resizeNote(host: Pod | undefined, generation: number | undefined): string {
  const each = (list: readonly { name: string; resources?: object }[] | undefined) => {
    const out = (list ?? []).map((c) => ({ name: c.name, ...definedOnly({ resources: c.resources }) }));
    return out.length > 0 ? out : undefined;
  };
  const summary = { initContainers: each(host?.spec?.initContainers), containers: each(host?.spec?.containers), generation: generation ?? 0, error: cannotResize };
  return `Pod resize Infeasible: ${JSON.stringify(summary)}`;
}
