/**
 * The light listing of a provider's pods, for the pod controller's orphan sweep: each pod's
 * identity (as Tether named it on the host) and Tether's own annotations, nothing else. Listing
 * whole pods to read two annotations cost the sweep ~1 s of event loop per 10k pods (two deep
 * copies, then a major GC of the copies); this costs a few small objects per pod.
 *
 * Optional: a provider without `listPodMarks` is listed in full and reduced here (`podMarksOf`).
 */
import type { Pod } from '../adapters/kubernetes/model.js';
import { tetherMarkPrefix } from './tetherMarks.js';

export { hostUidMark, tetherMarkPrefix } from './tetherMarks.js';

export interface PodMarks {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string | undefined;
  /** The pod's annotations under `tether.dev/`, and only those. */
  readonly marks: Readonly<Record<string, string>>;
}

export interface PodMarksLister {
  /** Every pod the provider runs for this node, as {@link PodMarks}; same set as `listPods`. Fresh objects, Tether's. */
  listPodMarks(signal?: AbortSignal): Promise<PodMarks[]>;
}

export function canListPodMarks(provider: object): provider is PodMarksLister {
  return typeof (provider as Partial<PodMarksLister>).listPodMarks === 'function';
}

/** A pod reduced to its identity and Tether's marks (sharing the pod's strings, copying nothing else). */
export function podMarksOf(pod: Pod): PodMarks {
  const marks: Record<string, string> = {};
  const annotations = pod.metadata?.annotations;
  // for…in, not Object.entries: no array per annotation (the sweep runs this for every pod).
  for (const key in annotations) {
    if (key.startsWith(tetherMarkPrefix)) marks[key] = annotations[key] as string;
  }
  return { namespace: pod.metadata?.namespace ?? 'default', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid, marks };
}
