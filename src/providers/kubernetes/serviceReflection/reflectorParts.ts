/** The Service reflector of each host namespace as a read-only part of the live actor tree. */
import { isoOrNull } from '../../../lib/clock.js';
import type { ProviderPart } from '../../provider.js';
import { definedOnly, ifDefined } from '../../../lib/defaults.js';

/** What one namespace's reflection looks like, for introspection. */
export interface NamespaceReflection {
  readonly namespace: string;
  readonly remoteNamespace: string;
  readonly offloadedPods: number;
  readonly services: number;
  readonly endpointSlices: number;
  /** Names held in the remote namespace by objects Tether did not create. */
  readonly taken: readonly string[];
  /** When the copies of a namespace whose last offloaded pod went will be deleted (ms since the epoch). */
  readonly releasesAt?: number;
  readonly lastError?: string;
  /** When the last error happened (ms since the epoch). */
  readonly lastErrorAt?: number;
}

export function reflectorParts(reflection: readonly NamespaceReflection[]): ProviderPart[] {
  return reflection.map((r) => ({
    name: `services-${r.namespace}`,
    kind: 'service-reflector',
    summary: {
      namespace: r.namespace, remoteNamespace: r.remoteNamespace, offloadedPods: r.offloadedPods,
      services: r.services, endpointSlices: r.endpointSlices, namesTaken: r.taken.join(',') || null,
      releasesAt: isoOrNull(r.releasesAt),
    },
    ...definedOnly({ lastError: ifDefined(r.lastError, (message) => ({ message, at: new Date(r.lastErrorAt ?? 0).toISOString() })) }),
  }));
}
