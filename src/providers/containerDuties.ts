/**
 * Optional capabilities about the kubelet's container-level duties: lifecycle hooks and container
 * Events. By default Tether performs them for every provider (the pod actor runs `sleep` hooks on
 * its clock and derives the container Events from the provider's statuses); a provider says here
 * what it does instead (docs/providers.md, "Optional capabilities"; docs/kubelet-api.md).
 */

export type LifecycleHookName = 'postStart' | 'preStop';

/**
 * Optional: runs a container's `exec` and `httpGet` lifecycle hooks, as the kubelet runs them
 * (exec: the command in the container; httpGet: the request against the pod's IP). A provider
 * without it gets the kubelet's Warning (`FailedPreStopHook`, `FailedPostStartHook`) for such a
 * hook instead. `sleep` hooks are never passed on: Tether runs them.
 */
export interface LifecycleHookProvider {
  /**
   * Runs the `hook` handler of `container` in the pod the provider runs (the handler is the one in
   * the spec it was given). Resolves once the hook succeeded; rejects `transient` with a message
   * saying why it failed, `notFound` when the pod or container is not there. Tether bounds the
   * hook with the grace period through `signal`.
   */
  runLifecycleHook(namespace: string, name: string, container: string, hook: LifecycleHookName, signal?: AbortSignal): Promise<void>;
  /**
   * Kills a running container, as the kubelet kills one whose postStart hook failed: stopped
   * within `gracePeriodSeconds` (TERM, then KILL), then started again or not as the pod's
   * restartPolicy says, as after any exit; it reports the new run (a new containerID or restart
   * count) in the pod's status. Resolves once the stop is under way; rejects `notFound` when the
   * pod or container is not there. May be called for a container that has already stopped.
   */
  killContainer(namespace: string, name: string, container: string, gracePeriodSeconds: number, signal?: AbortSignal): Promise<void>;
  /**
   * The postStart hook of `container`'s run `containerID` (as the provider's status reported it)
   * succeeded. The kubelet starts the init container after a sidecar (a restartable init
   * container), or the main containers after the last one, only once the sidecar's postStart hook
   * has returned (its startContainer includes the hook), so a provider starts what follows a
   * sidecar that has a postStart hook only after this call for the sidecar's current run (and its
   * startup probe, if any); a call about another run changes nothing. May be called again for
   * the same run (a Tether restart).
   */
  postStartDone(namespace: string, name: string, container: string, containerID: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Optional: the provider's pods run under a kubelet of their own (another cluster's), which runs
 * their lifecycle hooks and records their container Events (the provider forwards those), so
 * Tether does neither: doing them again would run every hook twice and say everything twice.
 */
export interface KubeletBackedProvider {
  readonly runsPodsUnderKubelet: true;
}

/** What a provider can change in a running pod beyond labels, annotations, images and the deadline. */
export type InPlaceUpdate = 'resize' | 'ephemeralContainers';

/**
 * Optional: the provider applies these changes of a running pod's spec itself (through
 * `updatePod`), and its status says how they went, as a kubelet writes it:
 * - `resize`: changed container resources are resized in place; the status carries
 *   `containerStatuses[].resources` and `allocatedResources` and the `PodResizePending`
 *   (`Infeasible`, `Deferred`) and `PodResizeInProgress` conditions. Tether mirrors them as given.
 * - `ephemeralContainers`: a new entry of `spec.ephemeralContainers` is started and reported in
 *   `ephemeralContainerStatuses`; exec and attach reach it by its name.
 * Without one, Tether answers that change as a kubelet that cannot (docs/kubelet-api.md,
 * "Ephemeral containers and in-place resize").
 */
export interface InPlaceUpdateProvider {
  inPlaceUpdates(): readonly InPlaceUpdate[];
}

export function inPlaceUpdatesOf(provider: object): readonly InPlaceUpdate[] {
  const p = provider as Partial<InPlaceUpdateProvider>;
  return typeof p.inPlaceUpdates === 'function' ? p.inPlaceUpdates() : [];
}

export function isLifecycleHookProvider<P extends object>(provider: P): provider is P & LifecycleHookProvider {
  return typeof (provider as Record<string, unknown>).runLifecycleHook === 'function';
}

export function isKubeletBackedProvider<P extends object>(provider: P): provider is P & KubeletBackedProvider {
  return (provider as Record<string, unknown>).runsPodsUnderKubelet === true;
}
