/**
 * The pod actor's protocol: its state, the messages it receives (from the host watch, the
 * provider, its node, and its own effects) and the effects its decisions ask for.
 */
import type { Schedule } from '../../runtime/effectOutcome.js';
import type { EventSource } from '../../adapters/kubernetes/eventRecorder.js';
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { ProviderErrorKind as ErrorKind } from '../../providers/errors.js';
import type { LifecycleHookName } from '../../providers/containerDuties.js';
import type { OwnerWarning } from '../admission/daemonSets.js';
import type { InPlaceDuties } from './config.js';

/** The virtual node's readiness, as its node actor last announced it. */
export interface NodeReadiness {
  readonly ready: boolean;
  readonly reason: string;
  readonly message: string;
}

/**
 * Where the pod is in Tether's hands:
 * - `starting`: re-reading the provider (every incarnation begins here);
 * - `creating`: a create call is in flight;
 * - `backoff`: the last create failed and will be retried;
 * - `rejected`: the provider said the spec can never run; waits for a spec change;
 * - `running`: the provider has the pod; its status is mirrored onto the host pod;
 * - `done`: the pod ended (or was lost) at the provider; nothing more runs;
 * - `terminating`: deleted on the host; waiting for the provider to end it;
 * - `finishing`: writing the last status and deleting the host pod;
 * - `orphaned`: the host pod is gone; removing what is left at the provider.
 */
export type Stage = 'starting' | 'creating' | 'backoff' | 'rejected' | 'running' | 'done' | 'terminating' | 'finishing' | 'orphaned';

export interface CreateError {
  readonly kind: ErrorKind;
  readonly message: string;
  readonly at: number;
}

/**
 * Status writes: each newer status is sent at once and the request queue keeps only the newest
 * per pod (older ones still waiting are dropped, never sent; one runs at a time, in order), so a
 * write made stale by a newer state never goes out late. Nothing is written twice.
 */
export interface StatusWrites {
  /** Writes sent whose outcome (written, failed or superseded) has not come back yet. */
  readonly inFlight: number;
  /** The status last asked for (to retry it after a failure). */
  readonly last: PodStatus | null;
  /** A Pending waiting out its short hold (statusWrites.ts, PENDING_HOLD_MS), unsent. */
  readonly held: PodStatus | null;
  /** Holds started so far: a hold's timer names its number, so an older hold's timer is ignored. */
  readonly holds: number;
  /** Fingerprint of the last status written successfully. */
  readonly confirmed: string | null;
  /** Fingerprint of Tether's fields as the API server stored them (to notice another writer). */
  readonly stored: string | null;
  /** The resourceVersion of that stored pod: a watch event older than it is not another writer. */
  readonly storedVersion: string | null;
  /** When the oldest provider status not yet on the host arrived (for the write-latency metric). */
  readonly waitingSince: number | null;
}

/** One retried operation: consecutive failures, when the next attempt is due, and the last error. */
export interface Retry {
  readonly attempt: number;
  readonly dueAt: number | null;
  readonly lastError: string | null;
}

/** Operations retried in any stage (creation and deletion retries belong to their stages). */
export type RetryKind = 'fetch' | 'annotate' | 'update' | 'write';

/** The creation-error annotation on the host pod, reconciled one patch at a time. */
export interface AnnotationSync {
  /** The value the host pod's annotation carries, as far as Tether knows (null: none). */
  readonly shown: string | null;
  readonly inFlight: boolean;
}

/** The container resources the provider was given (a fingerprint), whether the spec asks for others (a resize), and since when. */
export interface Allocation {
  readonly resources: string;
  readonly pending: boolean;
  readonly since: number;
}

/** What is valid in every stage. */
export interface PodCommon {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The host pod as last seen (undefined once it is gone from the host). */
  readonly host: Pod | undefined;
  readonly node: NodeReadiness;
  /** The provider's last status for the pod. */
  readonly provider: PodStatus | undefined;
  /** The last creation error, which the host pod's annotation shows until a create succeeds. */
  readonly createError: CreateError | null;
  readonly annotation: AnnotationSync;
  readonly writes: StatusWrites;
  readonly retries: Readonly<Record<RetryKind, Retry>>;
  /** The container resources the provider was given, to tell a resize it cannot apply (unsupportedDuties.ts); null: none seen yet. */
  readonly allocation: Allocation | null;
  /** The postStart hooks of the containers' current runs (postStart.ts); empty for most pods. */
  readonly postStart: readonly PostStartRun[];
  /** What the provider changes in a running pod itself (its status is the answer), set at the actor's start. */
  readonly inPlace: InPlaceDuties;
}

/**
 * One run of a container's postStart hook (postStart.ts): `run` names the container's instance it
 * is for (its containerID and restart count), so a restarted container runs its hook again; the
 * container is a main container or a sidecar (a restartable init container). `sleeping` and
 * `provider` (the provider runs an exec or httpGet hook) hold the container not started and not
 * ready; `preStop` too, while the container's preStop hook runs before the kill of a failed hook
 * (postStartKill.ts: begun at `since`, within `graceSeconds`), and `failed`, while the provider
 * kills it; `done` lets it be.
 */
export type PostStartRun =
  | { readonly container: string; readonly run: string; readonly phase: 'sleeping' | 'provider' | 'failed' | 'done' }
  | { readonly container: string; readonly run: string; readonly phase: 'preStop'; readonly since: number; readonly graceSeconds: number };

/**
 * Each stage with only what is valid in it (see {@link Stage}). `sentSpec` is the fingerprint of
 * the spec and metadata the provider was last given (null: to be sent again).
 */
export type PodStage =
  | { readonly stage: 'starting' }
  | { readonly stage: 'creating'; readonly create: Retry; readonly sentSpec: string }
  | { readonly stage: 'backoff'; readonly create: Retry; readonly sentSpec: string | null }
  | { readonly stage: 'rejected'; readonly sentSpec: string }
  /** `deadlineTimer`: the active deadline (epoch ms) a timer is armed for (activeDeadline.ts), null: none. */
  | { readonly stage: 'running'; readonly sentSpec: string | null; readonly deadlineTimer: number | null }
  | { readonly stage: 'done' }
  | { readonly stage: 'terminating'; readonly termination: Termination; readonly delete: Retry }
  | { readonly stage: 'finishing'; readonly hostDelete: Retry }
  /** `termination`: the deletion under way when the host pod went (its grace is what the provider is asked). */
  | { readonly stage: 'orphaned'; readonly termination: Termination | null; readonly delete: Retry };

export type PodState = PodCommon & PodStage;
export type PodIn<S extends Stage> = PodCommon & Extract<PodStage, { readonly stage: S }>;

/**
 * A deletion in progress. It ends only on the provider's word (a terminal status, or the pod
 * gone); at the deadline Tether escalates (grace 0) and keeps asking with backoff, never forgets.
 */
export interface Termination {
  /**
   * Why the provider is asked to stop the pod: the host pod was deleted (it leaves the host once
   * ended), or its activeDeadlineSeconds ran out (it stays, Failed with reason DeadlineExceeded).
   */
  readonly cause: 'deletion' | 'deadline';
  /** The grace period the provider was last given (0 once escalated). */
  readonly graceSeconds: number;
  /** When the grace period (plus margin) runs out, or the next escalated request is due. */
  readonly deadlineAt: number;
  /** Escalated requests sent so far. */
  readonly escalations: number;
  /** The containers' preStop hooks Tether is waiting out before it asks the provider (null: none, or over). */
  readonly preStop: PreStop | null;
}

/**
 * PreStop hooks under way (lifecycleHooks.ts), within the grace period as the kubelet runs them
 * (killContainer): the provider is asked to stop the pod once every hook is over or the grace
 * period given to them has run out, with what is left of it (at least 2 s).
 */
export interface PreStop {
  /** When the longest `sleep` hook ends (the start, when there is none). */
  readonly sleepUntil: number;
  /** When the grace period in force runs out: the hooks are cut there. */
  readonly cutAt: number;
  /** When the grace period in force began (a shorter one, given during the hooks, begins then). */
  readonly graceFrom: number;
  /** Containers whose exec or httpGet hook the provider is running. */
  readonly pending: readonly string[];
  /**
   * An incarnation that found the deletion begun (a restart) and waits for the provider's status
   * to know which containers run, hence which hooks to run again within what is left (till `cutAt`).
   */
  readonly resuming: boolean;
}

export type PodMsg =
  | { readonly type: 'pod.host-changed'; readonly pod: Pod }
  | { readonly type: 'pod.host-deleted' }
  | { readonly type: 'pod.node-readiness'; readonly readiness: NodeReadiness }
  | { readonly type: 'pod.provider-fetched'; readonly pod: Pod | undefined }
  | { readonly type: 'pod.provider-fetch-failed'; readonly message: string; readonly retryAfterMs?: number }
  | { readonly type: 'pod.retry-fetch' }
  | { readonly type: 'pod.provider-status'; readonly status: PodStatus }
  | { readonly type: 'pod.provider-gone'; readonly reason: string; readonly message: string }
  /** The node admitted the pod (src/actors/admission): it may be created at the provider. */
  | { readonly type: 'pod.admitted' }
  /** The node rejected the pod with the kubelet's reason and message; `ownerWarning`: its DaemonSet is to be told (once per node). */
  | { readonly type: 'pod.admission-rejected'; readonly reason: string; readonly message: string; readonly ownerWarning?: OwnerWarning }
  /** The node's Node is not known yet (its watch has not listed it): ask again shortly. */
  | { readonly type: 'pod.admission-deferred' }
  | { readonly type: 'pod.retry-admit' }
  | { readonly type: 'pod.create-succeeded' }
  /** `reason`: the provider's precise Event reason, if it gave one (errors.ts `eventReasonOf`). */
  | { readonly type: 'pod.create-failed'; readonly kind: ErrorKind; readonly message: string; readonly reason?: string }
  /** Create attempt `attempt` has had no answer for `createDeadlineMs`. */
  | { readonly type: 'pod.create-deadline'; readonly attempt: number }
  | { readonly type: 'pod.retry-create' }
  | { readonly type: 'pod.update-failed'; readonly message: string; readonly retryAfterMs?: number }
  | { readonly type: 'pod.retry-update' }
  | { readonly type: 'pod.delete-accepted' }
  | { readonly type: 'pod.delete-failed'; readonly kind: ErrorKind; readonly message: string }
  | { readonly type: 'pod.retry-delete' }
  /** The termination deadline armed for `at` is due (a stale one, after a shorter grace, is ignored). */
  | { readonly type: 'pod.grace-expired'; readonly at: number }
  /** The active deadline a timer was armed for (`at`, epoch ms) is due; a stale one is ignored. */
  | { readonly type: 'pod.active-deadline-reached'; readonly at: number }
  /** A preStop hook's time (the sleep's end, or the grace period's cut) armed for `at` is due. */
  | { readonly type: 'pod.prestop-due'; readonly at: number }
  /** The provider ran a container's exec or httpGet hook; `error`: it failed, saying why; `run`: the container's run a postStart was for. */
  | { readonly type: 'pod.hook-finished'; readonly container: string; readonly hook: LifecycleHookName; readonly error?: string; readonly run?: string }
  /** A postStart `sleep` of the container's run `run`, armed for `at`, is over. */
  | { readonly type: 'pod.poststart-due'; readonly container: string; readonly run: string; readonly at: number }
  /** Telling the provider the hook of the sidecar's run `containerID` is over failed (its `attempt`-th call): told again after a backoff. */
  | { readonly type: 'pod.poststart-done-failed'; readonly container: string; readonly containerID: string; readonly attempt: number }
  | { readonly type: 'pod.retry-poststart-done'; readonly container: string; readonly containerID: string; readonly attempt: number }
  | { readonly type: 'pod.status-written'; readonly written: string; readonly stored: string; readonly storedVersion?: string }
  | { readonly type: 'pod.status-write-failed'; readonly message: string; readonly podGone: boolean }
  /** A newer status write of this pod took the place of this one in the queue: it was never sent. */
  | { readonly type: 'pod.status-write-superseded' }
  | { readonly type: 'pod.retry-write' }
  /** The hold of a Pending status (number `hold`) is over: write it unless something newer came. */
  | { readonly type: 'pod.hold-expired'; readonly hold: number }
  | { readonly type: 'pod.annotation-written'; readonly value: string | null }
  | { readonly type: 'pod.annotation-failed'; readonly message: string; readonly retryAfterMs?: number }
  | { readonly type: 'pod.retry-annotate' }
  | { readonly type: 'pod.host-delete-finished' }
  | { readonly type: 'pod.host-delete-failed'; readonly message: string }
  | { readonly type: 'pod.retry-host-delete' };

export type EventType = 'Normal' | 'Warning';

export type PodEffect =
  | { readonly type: 'provider.get' }
  /** Ask the node's admission (answered with pod.admitted or pod.admission-rejected). */
  | { readonly type: 'node.admit'; readonly pod: Pod }
  /** Found running at the provider (a restart): the node counts it as admitted, as it is. */
  | { readonly type: 'node.admitted-as-running'; readonly pod: Pod }
  /** `deadlineMs`: the call is abandoned then (the same deadline as `pod.create-deadline`). */
  | { readonly type: 'provider.create'; readonly pod: Pod; readonly deadlineMs: number }
  | { readonly type: 'provider.update'; readonly pod: Pod }
  | { readonly type: 'provider.delete'; readonly pod: Pod }
  /** `run`: the container's run a postStart hook is for, told back in pod.hook-finished. */
  | { readonly type: 'provider.run-hook'; readonly container: string; readonly hook: LifecycleHookName; readonly run?: string }
  /** The kubelet's kill of a container whose postStart hook failed (a LifecycleHookProvider's killContainer). */
  | { readonly type: 'provider.kill-container'; readonly container: string; readonly graceSeconds: number }
  /** The postStart hook of the container's run `containerID` succeeded: a provider holding what follows a sidecar starts it (LifecycleHookProvider.postStartDone). */
  | { readonly type: 'provider.poststart-done'; readonly container: string; readonly containerID: string; readonly attempt?: number }
  | { readonly type: 'host.write-status'; readonly status: PodStatus }
  | { readonly type: 'host.annotate'; readonly annotations: Readonly<Record<string, string | null>> }
  /** `fieldPath` and `source`: a kubelet's Event about one container (containerEvents.ts). */
  | { readonly type: 'host.event'; readonly eventType: EventType; readonly reason: string; readonly note: string; readonly action: string; readonly fieldPath?: string; readonly source?: EventSource }
  | { readonly type: 'host.delete' }
  /** A Warning about the pod's owner (its DaemonSet), recorded on that object. */
  | { readonly type: 'host.owner-event'; readonly warning: OwnerWarning }
  /** The delayed self-message, run by the runtime (effectOutcome.ts). */
  | Schedule<PodMsg>
  /** A provider status reached the host this long after it reached the actor. */
  | { readonly type: 'observe-status-latency'; readonly ms: number };
