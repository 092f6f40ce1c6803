/**
 * The names of Tether's marks: the one home of the `tether.dev/` prefix and of the annotations that
 * carry a host pod's identity to a provider and back (the contract's identity rule, docs/providers.md).
 * Actors, the provider contract and every provider read them from here; the Kubernetes provider's
 * remote labels (kubernetes/marks.ts) and the pod actor's own annotations are built on the prefix.
 */
export const tetherMarkPrefix = 'tether.dev/';

/** The host pod's uid, on every pod handed to a provider; it must come back on every pod it returns. */
export const hostUidMark = `${tetherMarkPrefix}host-uid`;
/** The virtual node a pod was handed to. */
export const virtualNodeMark = `${tetherMarkPrefix}virtual-node`;
/** The host pod's namespace and name, on a remote copy whose own namespace and name differ. */
export const hostNamespaceMark = `${tetherMarkPrefix}host-namespace`;
export const hostNameMark = `${tetherMarkPrefix}host-name`;
