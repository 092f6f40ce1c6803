/** The Service reflector of each host namespace as a read-only part of the live actor tree. */
import { isoOrNull } from '../../../lib/clock.js';
import type { ProviderPart } from '../../provider.js';
import type { NamespaceReflection } from './serviceReflector.js';
import { definedOnly, ifDefined } from '../../../lib/defaults.js';

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
