/**
 * Which pod: the one identity type of Tether. A pod is its uid (lesson "Identity is exact": a
 * same-named pod is another pod); namespace and name say where it lives, for API calls, logs and
 * people. Maps of pods are keyed by `uid`; where a map must be keyed by name (a provider's own
 * store, an informer cache) the key is `podKey`.
 */
export interface PodIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * A pod as named, its uid when known: a pod object without `metadata.uid` yet, or a remote pod
 * whose host-uid mark is missing. Not an identity until the uid is there (`isIdentified`).
 */
export type NamedPod = Omit<PodIdentity, 'uid'> & { readonly uid: string | undefined };

/** "namespace/name", the key of a pod in a map keyed by name (the informer caches' own form). */
export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Does this named pod carry its uid (and so is it the identity of exactly one pod)? */
export function isIdentified(pod: NamedPod): pod is PodIdentity {
  return pod.uid !== undefined && pod.uid !== '';
}
