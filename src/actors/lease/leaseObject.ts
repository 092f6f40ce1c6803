import type { Lease } from '../../adapters/kubernetes/model.js';
import type { LeaseConfig } from './config.js';
import { definedOnly, ifDefined } from '../../lib/defaults.js';

/** The Lease Tether wants, built on the one stored (whose other fields and metadata it keeps). */
export function desiredLease(config: LeaseConfig, renewAt: number, nodeUid: string | undefined, base: Lease | undefined): Lease {
  const name = config.nodeName;
  const metadata = base?.metadata ?? {};
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      ...metadata,
      name,
      namespace: config.namespace,
      ...definedOnly({ ownerReferences: ifDefined(nodeUid, (uid) => [{ apiVersion: 'v1', kind: 'Node', name, uid }]) }),
    },
    spec: {
      ...base?.spec,
      holderIdentity: name,
      leaseDurationSeconds: config.durationSeconds,
      // A Date is what client-node's V1MicroTime is; the adapter serialises it with microseconds.
      renewTime: new Date(renewAt),
    },
  };
}

/**
 * `spec.renewTime` in ms. Typed as a Date subclass, but a client may hand it over as a string
 * (client-node cannot parse every MicroTime), so parse before comparing.
 */
export function renewTimeOf(lease: Lease | undefined): number | undefined {
  const value = lease?.spec?.renewTime as Date | string | undefined;
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
