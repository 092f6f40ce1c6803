/**
 * observedGeneration on the status Tether writes, as kubelet v1.36.3 computes it
 * (pkg/kubelet/status/status_manager.go SetPodStatus, pkg/api/v1/pod/util.go): the feature gate
 * PodObservedGenerationTracking is GA and locked on since 1.35, so `status.observedGeneration` and
 * the observedGeneration of every condition the kubelet owns are the pod's `metadata.generation`,
 * the spec the status was made for; the status's never goes below what the host pod shows already
 * (the kubelet keeps the larger, to spare a patch). Pure.
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import { ownedConditionTypes } from './podStatusView.js';

/** The host pod's generation (undefined from an API server that does not count them). */
export function generationOf(host: Pod | undefined): number | undefined {
  const generation = host?.metadata?.generation;
  return typeof generation === 'number' && generation > 0 ? generation : undefined;
}

/**
 * `status` stamped with the host pod's generation. Without one, the fields are left out (the API
 * server keeps what it has), never copied from the provider: a remote pod's generation is not the
 * host pod's.
 */
export function withObservedGeneration(status: PodStatus, host: Pod | undefined): PodStatus {
  const generation = generationOf(host);
  const shown = host?.status?.observedGeneration ?? 0;
  const out = stamped(status, generation === undefined ? undefined : Math.max(generation, shown));
  if (status.conditions) out.conditions = status.conditions.map((c) => (ownedConditionTypes.has(c.type) ? stamped(c, generation) : c));
  return out;
}

/** A copy of `object` whose observedGeneration is `generation` (none if undefined). */
function stamped<T extends { observedGeneration?: number }>(object: T, generation: number | undefined): T {
  const copy = { ...object };
  delete copy.observedGeneration;
  if (generation !== undefined) copy.observedGeneration = generation;
  return copy;
}
