/**
 * Pure views of a pod's status: which parts Tether owns, what the provider's status becomes on
 * the host, and the NotReady override used while the virtual node is unavailable.
 */
import type { Pod, PodCondition, PodStatus } from '../../adapters/kubernetes/model.js';
import { deepCopyPod } from '../../providers/deepCopy.js';
import { isTerminalPhase } from '../../providers/podStatus.js';
import { definedOnly } from '../../lib/defaults.js';
import { fingerprint } from '../../lib/fingerprint.js';
import { perObject } from '../../lib/perObject.js';
import { annotationPrefix, hostUidMark, virtualNodeMark } from './annotations.js';
import type { NodeReadiness } from './protocol.js';

/**
 * The condition types the kubelet owns, and so Tether does. Others (PodScheduled from the
 * scheduler, DisruptionTarget from controllers, readiness gates) are never written by Tether;
 * the strategic-merge patch merges conditions by type, so they survive every status write.
 */
export const ownedConditionTypes: ReadonlySet<string> = new Set([
  'Ready',
  'ContainersReady',
  'Initialized',
  'PodReadyToStartContainers',
  // In-place resize (allocation_manager.go); Tether writes PodResizePending (unsupportedDuties.ts).
  'PodResizePending',
  'PodResizeInProgress',
]);

const ownedFields = ['observedGeneration', 'phase', 'reason', 'message', 'podIP', 'podIPs', 'hostIP', 'hostIPs', 'startTime', 'containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses', 'qosClass'] as const;

/** The provider's status as Tether writes it to the host: owned fields and owned conditions only. */
export function hostStatusFrom(provider: PodStatus): PodStatus {
  const out: PodStatus = {};
  for (const field of ownedFields) {
    const value = provider[field];
    if (value !== undefined) (out as Record<string, unknown>)[field] = value;
  }
  // Reason and message are always sent: a strategic merge keeps fields a patch leaves out, so a
  // stale `reason: ContainersNotReady` would otherwise outlive the condition turning True.
  const conditions = (provider.conditions ?? [])
    .filter((c) => ownedConditionTypes.has(c.type))
    .map((c) => ({ ...c, reason: c.reason ?? '', message: c.message ?? '' }));
  if (conditions.length > 0) out.conditions = conditions;
  return out;
}

/**
 * A fingerprint of the owned part of a status as the API server holds it, so that the same status
 * compares equal however it reached us: built by a provider (Dates with milliseconds), sent back by
 * a PATCH (Dates, whole seconds) or carried by a watch event (RFC 3339 strings). Timestamps are
 * compared at the API server's precision (seconds), and an empty value is the same as none (the
 * server omits empty fields and adds empty `lastState: {}`).
 */
export function ownedFingerprint(status: PodStatus | undefined): string {
  return status === undefined ? NONE_OWNED : ownedOf(status);
}

const NONE_OWNED = fingerprint({});
// Statuses are never changed in place (perObject.ts): one status compared several times is read once.
const ownedOf = perObject((status: PodStatus): string => fingerprint(asStored(hostStatusFrom(status))));

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

function toSeconds(date: Date): string {
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function asStored(value: unknown): unknown {
  if (value instanceof Date) return toSeconds(value);
  if (typeof value === 'string') return RFC3339.test(value) ? toSeconds(new Date(value)) : value;
  if (Array.isArray(value)) return value.map(asStored);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const stored = asStored(field);
    if (!isEmpty(stored)) out[key] = stored;
  }
  return out;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value as object).length === 0;
}

/**
 * The status to show while the virtual node is NotReady: the last known status with Ready and
 * ContainersReady False, so EndpointSlices stop routing to the pod (lesson from Liqo).
 */
export function notReadyStatus(last: PodStatus | undefined, node: NodeReadiness, nodeName: string, at: Date): PodStatus {
  const base = last ? hostStatusFrom(last) : {};
  const message = `virtual node ${nodeName} is not ready (${node.reason}: ${node.message}); Tether cannot confirm the pod's status`;
  const notReady = (type: string): PodCondition => ({ type, status: 'False', reason: notReadyReason, message, lastTransitionTime: at });
  const kept = (base.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady');
  return {
    ...base,
    conditions: [...kept, notReady('ContainersReady'), notReady('Ready')],
    containerStatuses: base.containerStatuses?.map((cs) => ({ ...cs, ready: false })),
  };
}

/** The reason Tether gives Ready and ContainersReady while the virtual node is NotReady. */
export const notReadyReason = 'VirtualNodeNotReady';

/** Whether `status` is the NotReady override (its Ready condition carries {@link notReadyReason}). */
export function isNotReadyMark(status: PodStatus | null | undefined): boolean {
  return status?.conditions?.some((c) => c.type === 'Ready' && c.reason === notReadyReason) ?? false;
}

/**
 * The status of a pod no container of which runs at the provider yet, to replace the NotReady
 * override once the node is Ready again: not Ready, for the reason (and in the words) a kubelet
 * gives a pod whose containers have not started.
 */
export function notStartedStatus(last: PodStatus | undefined, containers: readonly string[], at: Date): PodStatus {
  const base = last ? hostStatusFrom(last) : {};
  const message = `containers with unready status: [${containers.join(' ')}]`;
  const down = (type: string): PodCondition => ({ type, status: 'False', reason: 'ContainersNotReady', message, lastTransitionTime: at });
  const kept = (base.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady');
  return { ...base, conditions: [...kept, down('ContainersReady'), down('Ready')] };
}

/** The status of a pod the provider lost without being asked to delete it. */
export function lostStatus(last: PodStatus | undefined, reason: string, message: string, at: Date): PodStatus {
  const base = last ? hostStatusFrom(last) : {};
  const down = (type: string): PodCondition => ({ type, status: 'False', reason, message, lastTransitionTime: at });
  const kept = (base.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady');
  return { ...base, phase: 'Failed', reason, message, conditions: [...kept, down('ContainersReady'), down('Ready')] };
}

/** The reason and message the kubelet gives a pod past its activeDeadlineSeconds (pkg/kubelet/active_deadline.go). */
export const deadlineExceeded = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' } as const;

/**
 * The status of a pod stopped for its active deadline, once the provider has ended it, as the
 * kubelet writes it: Failed with reason DeadlineExceeded; ContainersReady and Ready False with
 * reason PodFailed (pkg/kubelet/status/generate.go); a container still shown as not terminated is
 * terminated with reason ContainerStatusUnknown and exit code 137 (status_manager.go TerminatePod).
 * A condition already False on the host keeps its transition time.
 */
export function deadlineExceededStatus(last: PodStatus | undefined, shown: PodStatus | undefined, at: Date): PodStatus {
  const base = last ? hostStatusFrom(last) : {};
  const failed = (type: string): PodCondition => {
    const before = shown?.conditions?.find((c) => c.type === type);
    return { type, status: 'False', reason: 'PodFailed', message: '', lastTransitionTime: before?.status === 'False' && before.lastTransitionTime ? before.lastTransitionTime : at };
  };
  const kept = (base.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady');
  const containerStatuses = base.containerStatuses?.map((cs) =>
    cs.state?.terminated ? cs : { ...cs, ready: false, state: { terminated: { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', exitCode: 137 } } },
  );
  return {
    ...base,
    phase: 'Failed',
    ...deadlineExceeded,
    conditions: [...kept, failed('ContainersReady'), failed('Ready')],
    ...definedOnly({ containerStatuses }),
  };
}

export function isTerminal(status: PodStatus | undefined): boolean {
  return isTerminalPhase(status?.phase);
}

/**
 * A fingerprint of what the provider is given: spec and the metadata it may apply. Status,
 * resourceVersion, managed fields and Tether's own annotations do not count, so status-only
 * changes and resyncs never reach the provider.
 */
export const specFingerprint = perObject((pod: Pod): string => {
  // Per pod object, as the watch cache never changes one in place (perObject.ts).
  const annotations = Object.fromEntries(
    Object.entries(pod.metadata?.annotations ?? {}).filter(([key]) => !key.startsWith(annotationPrefix)),
  );
  return fingerprint({ spec: pod.spec, labels: pod.metadata?.labels ?? {}, annotations });
});

/** The seconds the provider gives the pod's containers to stop. */
export function gracePeriodSeconds(pod: Pod | undefined): number {
  return pod?.metadata?.deletionGracePeriodSeconds ?? pod?.spec?.terminationGracePeriodSeconds ?? 30;
}

/** Dates arrive as Date objects from providers and as RFC 3339 strings from the watch. */
export function epochMs(value: Date | string | undefined): number | null {
  if (value === undefined) return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/**
 * The grace period left of a deletion under way, for an incarnation that finds it begun (a
 * restart): the API server set `deletionTimestamp` to the request's time plus
 * `deletionGracePeriodSeconds` (a shorter grace moves it earlier), so what is left is the time to
 * it, whole seconds, never more than the grace period itself: a restart never extends the deadline.
 * Also when the timestamp is unreadable, the whole grace period.
 */
export function graceLeft(pod: Pod | undefined, now: number): number {
  const grace = gracePeriodSeconds(pod);
  const deadline = epochMs(pod?.metadata?.deletionTimestamp);
  if (grace === 0 || deadline === null) return grace;
  return Math.min(grace, Math.max(0, Math.floor((deadline - now) / 1000)));
}

/** When the deletion under way was asked for (the latest request, if a shorter grace followed): its timestamp less its grace. */
export function deletionAskedAt(pod: Pod | undefined, now: number): number {
  const deadline = epochMs(pod?.metadata?.deletionTimestamp);
  return deadline === null ? now : Math.min(now, deadline - gracePeriodSeconds(pod) * 1000);
}

/** The pod as handed to the provider: a copy without status, carrying Tether's ownership marks. */
export function podForProvider(host: Pod, nodeName: string): Pod {
  const pod = deepCopyPod(host);
  delete pod.status;
  pod.metadata = {
    ...pod.metadata,
    annotations: { ...(pod.metadata?.annotations ?? {}), [virtualNodeMark]: nodeName, [hostUidMark]: host.metadata?.uid ?? '' },
  };
  return pod;
}
