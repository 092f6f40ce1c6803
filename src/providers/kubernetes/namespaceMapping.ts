/**
 * Host namespace → remote namespace. Pure.
 *
 * - 'suffix' (default): `<namespace>-<hostClusterId>`, as Liqo's DefaultName; two host clusters
 *   offloading to one remote cluster never share a namespace. Names longer than 63 characters are
 *   shortened with a hash so they stay valid and distinct.
 * - 'same-name': the host namespace's own name (the remote namespace may hold other things;
 *   Tether only touches objects carrying its marks).
 */
import { createHash } from 'node:crypto';

export type NamespaceStrategy = 'suffix' | 'same-name';

const MAX_NAMESPACE_LENGTH = 63;

export function remoteNamespaceFor(hostNamespace: string, strategy: NamespaceStrategy, hostClusterId: string): string {
  switch (strategy) {
    case 'same-name':
      return hostNamespace;
    case 'suffix':
      return fitDnsLabel(`${hostNamespace}-${hostClusterId}`);
  }
}

/** Lower-cases, replaces invalid characters, and shortens with a hash suffix beyond 63 characters. */
export function fitDnsLabel(name: string): string {
  const clean = name.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^-+|-+$/g, '');
  if (clean.length <= MAX_NAMESPACE_LENGTH && clean === name) return clean;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const head = clean.slice(0, MAX_NAMESPACE_LENGTH - digest.length - 1).replace(/-+$/, '');
  return head === '' ? digest : `${head}-${digest}`;
}
