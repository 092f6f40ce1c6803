/**
 * Remote pod → the pod Tether sees: the host's identity (namespace, name and uid from the
 * ownership annotations), the remote spec and labels, and the remote status, optionally without
 * pod IPs. Pure; returns a fresh copy Tether owns.
 */
import type { Pod, PodStatus } from '../../../adapters/kubernetes/model.js';
import type { NamedPod } from '../../../lib/podIdentity.js';
import { hostNameAnnotation, hostNamespaceAnnotation, hostUidAnnotation } from '../marks.js';
import { definedOnly } from '../../../lib/defaults.js';
import type { AddressRemap } from '../addresses/addressRemap.js';

/** The host pod a remote pod stands for, read from its marks (the uid mark may be missing). */
export type HostIdentity = NamedPod;

export interface HostViewOptions {
  /** Drop podIP/podIPs (the remote addresses mean nothing on the host network). */
  readonly blankPodIPs?: boolean;
  /** Translate podIP/podIPs (addresses/addressRemap.ts); an address it cannot translate is left out. */
  readonly remap?: AddressRemap;
}

/** The host pod a remote pod stands for, or undefined if it lacks the marks (not Tether's). */
export function hostIdentityOf(remote: Pod): HostIdentity | undefined {
  const annotations = remote.metadata?.annotations ?? {};
  const namespace = annotations[hostNamespaceAnnotation];
  const name = annotations[hostNameAnnotation];
  if (!namespace || !name) return undefined;
  return { namespace, name, uid: annotations[hostUidAnnotation] || undefined };
}

export function toHostPod(remote: Pod, options: HostViewOptions = {}): Pod | undefined {
  const identity = hostIdentityOf(remote);
  if (!identity) return undefined;
  const copy = structuredClone(remote);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: identity.namespace,
      name: identity.name,
      ...definedOnly({
        uid: identity.uid,
        labels: copy.metadata?.labels,
        annotations: copy.metadata?.annotations,
        creationTimestamp: copy.metadata?.creationTimestamp,
        deletionTimestamp: copy.metadata?.deletionTimestamp,
      }),
    },
    ...definedOnly({ spec: copy.spec }),
    status: hostStatus(copy.status ?? {}, options),
  };
}

export function hostStatus(status: PodStatus, options: HostViewOptions = {}): PodStatus {
  const remap = options.remap;
  if (!options.blankPodIPs && !remap) return status;
  const out = { ...status };
  delete out.podIP;
  delete out.podIPs;
  if (options.blankPodIPs || !remap) return out;
  const listed = (status.podIPs ?? []).flatMap((p) => (p.ip ? [p.ip] : []));
  const ips = (listed.length > 0 ? listed : status.podIP ? [status.podIP] : []).flatMap((ip) => remap.toHost(ip) ?? []);
  return ips.length === 0 ? out : { ...out, podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) };
}
