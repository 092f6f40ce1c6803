/**
 * Faults a pod asks for in its own spec, so a failure demo needs no code (docs/sandbox.md):
 * - image `simulated/err-image-pull` (any tag): the pull fails, `ErrImagePull`, then
 *   `ImagePullBackOff` between retries, paced as the kubelet paces them (10 s doubling to 5 min);
 * - image `simulated/oom` (any tag): the container runs its command, or as a server, and is
 *   `OOMKilled` (exit 137) after `simulated.tether.dev/oom-after-ms` of the pod (default 1000);
 * - pod annotation `simulated.tether.dev/start-latency-ms`: this pod's Pending → Running latency.
 */
import type { Pod } from '../../adapters/kubernetes/model.js';
import { imageRepository } from './imageCommands.js';

export const START_LATENCY_ANNOTATION = 'simulated.tether.dev/start-latency-ms';
export const OOM_AFTER_ANNOTATION = 'simulated.tether.dev/oom-after-ms';
export const ERR_IMAGE_PULL_IMAGE = 'simulated/err-image-pull';
export const OOM_IMAGE = 'simulated/oom';

const DEFAULT_OOM_AFTER_MS = 1000;

function millis(pod: Pod, annotation: string): number | undefined {
  const text = pod.metadata?.annotations?.[annotation];
  if (text === undefined) return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The pod's own start latency, if its annotation gives a valid one. */
export function startLatencyOf(pod: Pod): number | undefined {
  return millis(pod, START_LATENCY_ANNOTATION);
}

export type ImageFault =
  | { readonly kind: 'none' }
  | { readonly kind: 'pullFails'; readonly message: string }
  | { readonly kind: 'oom'; readonly afterMs: number };

export function imageFault(pod: Pod, image: string): ImageFault {
  const repository = imageRepository(image);
  if (repository === ERR_IMAGE_PULL_IMAGE) {
    return { kind: 'pullFails', message: `failed to pull and unpack image "${image}": simulated pull failure (image ${ERR_IMAGE_PULL_IMAGE})` };
  }
  if (repository === OOM_IMAGE) return { kind: 'oom', afterMs: millis(pod, OOM_AFTER_ANNOTATION) ?? DEFAULT_OOM_AFTER_MS };
  return { kind: 'none' };
}
