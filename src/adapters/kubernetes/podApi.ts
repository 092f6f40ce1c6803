import type { Pod, PodStatus } from './model.js';

/**
 * Pods bound to a virtual node, as the pod actors see them. Every method rejects only with
 * `KubeApiError` and is rate limited: status writes as 'status', deletes as 'delete', the rest
 * as 'other'.
 */
export interface PodApi {
  /** The Pod, or undefined if it does not exist (404). */
  getPod(namespace: string, name: string): Promise<Pod | undefined>;

  /**
   * Strategic-merge patch of the `status` subresource, with no resourceVersion: a blind
   * overwrite of the fields given (Tether is the only writer of pod status). Conditions merge
   * by `type` (others' conditions survive); every other list given replaces the stored one
   * (container statuses are atomic lists, and `podIPs`/`hostIPs` are sent with the replace
   * directive, so a pod that moved never holds two addresses of one family). The patch carries
   * `metadata.uid` and nothing else of metadata, as the kubelet's does: the API server refuses
   * it (`conflict`) if the pod of that name now has another UID. Returns the stored Pod. Writes
   * of one pod's status run one at a time, in order, and a newer one drops an older one still
   * queued, unsent (it rejects: `isSuperseded(err)`); so each write carries the whole status
   * Tether owns.
   */
  patchPodStatus(namespace: string, name: string, uid: string, status: PodStatus): Promise<Pod>;

  /**
   * Merge patch of annotations: a `null` value deletes that key; others are left alone. Carries
   * `metadata.uid`, so it is refused (`conflict`) for another pod of the same name.
   */
  patchPodAnnotations(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string | null>>): Promise<Pod>;

  /**
   * Deletes the Pod only if its UID is still `uid` (a recreated pod with the same name is left
   * alone: the server answers 'conflict'). Resolves quietly if the pod is already gone (404).
   */
  deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<void>;

  /** One consistent list (all pages) of the pods matching the selectors. */
  listPods(options?: ListPodsOptions): Promise<PodList>;
}

export interface DeletePodOptions {
  readonly uid: string;
  /** 0 removes the object at once (the final delete after the provider stopped the pod). */
  readonly gracePeriodSeconds?: number;
}

export interface ListPodsOptions {
  /** Omit for all namespaces. */
  readonly namespace?: string;
  /** e.g. `spec.nodeName=<node>`. */
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export interface PodList {
  readonly items: readonly Pod[];
  /** The list's resourceVersion (a snapshot point), '' if the server sent none. */
  readonly resourceVersion: string;
}
