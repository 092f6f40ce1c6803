import { backoffPolicy, type BackoffPolicy } from '../../lib/backoff.js';
import { withDefaults } from '../../lib/defaults.js';
import { retryProblems, type FieldProblem } from '../../lib/fieldProblem.js';

/**
 * The pod actor's configuration: what its decisions need to know that is not in its state.
 * Defaults follow Admiralty's create retries (1 s doubling to 5 min, with jitter).
 */
export interface PodActorConfig {
  readonly nodeName: string;
  /** Backoff between create attempts (and status/delete retries). */
  readonly retry: BackoffPolicy;
  /** Added to the grace period before Tether escalates at the provider (delete with grace 0). */
  readonly graceMarginMs: number;
  /** A create call with no answer after this long counts as failed (its outcome unknown). */
  readonly createDeadlineMs: number;
  /** Re-read the provider after a failed read this soon. */
  readonly refetchMs: number;
  /**
   * Who performs the kubelet's container duties (lifecycle hooks, container Events): Tether, or
   * the provider, whose pods run under a kubelet of their own (docs/kubelet-api.md).
   */
  readonly containerDuties: ContainerDuties;
}

/**
 * `tether`, or `provider` (a `KubeletBackedProvider`); `hooks`: it can run exec and httpGet hooks
 * (a `LifecycleHookProvider`); `inPlace`: the running-pod changes it applies itself (an `InPlaceUpdateProvider`).
 */
export interface ContainerDuties {
  readonly by: 'tether' | 'provider';
  readonly hooks: boolean;
  readonly inPlace?: InPlaceDuties;
}

/** Whether the provider resizes containers in place and runs ephemeral containers (else Tether says it cannot). */
export interface InPlaceDuties {
  readonly resize: boolean;
  readonly ephemeralContainers: boolean;
}

/** Shared by every pod of a provider that does neither (one object, not one per pod). */
export const NO_IN_PLACE: InPlaceDuties = Object.freeze({ resize: false, ephemeralContainers: false });

export type PodActorConfigInput = Pick<PodActorConfig, 'nodeName'> &
  Partial<Omit<PodActorConfig, 'nodeName' | 'retry'>> & { readonly retry?: Partial<BackoffPolicy> };

export const defaultPodRetry = backoffPolicy(1_000, 300_000);
export const DEFAULT_GRACE_MARGIN_MS = 10_000;
export const DEFAULT_REFETCH_MS = 5_000;
export const DEFAULT_CREATE_DEADLINE_MS = 60_000;

export function withPodDefaults(input: PodActorConfigInput): PodActorConfig {
  return {
    nodeName: input.nodeName,
    retry: withDefaults(defaultPodRetry, input.retry),
    graceMarginMs: input.graceMarginMs ?? DEFAULT_GRACE_MARGIN_MS,
    createDeadlineMs: input.createDeadlineMs ?? DEFAULT_CREATE_DEADLINE_MS,
    refetchMs: input.refetchMs ?? DEFAULT_REFETCH_MS,
    containerDuties: input.containerDuties ?? { by: 'tether', hooks: false },
  };
}

/** The defaults for one node: what tests and benchmarks start from. */
export const defaultPodActorConfig = (nodeName: string): PodActorConfig => withPodDefaults({ nodeName });

/** Every problem with a pod actor configuration, each with its field's path; empty when sound. */
export function validatePodConfig(config: PodActorConfig): FieldProblem[] {
  return retryProblems(config.retry, ['retry']);
}
