/**
 * What the start checks of a Kubernetes node found (addresses/addressCheck.ts,
 * pods/mappingChange.ts), each one line naming the node: `refuse` stops the node from starting
 * (registration.ts: one ProviderSetupError, exit 2), `adopt` starts it under the mapping its
 * running pods were made with, `warn` and `note` are logged.
 */
import type { NamespaceStrategy } from './namespaceMapping.js';

/** Which namespace mapping and host cluster id made a remote pod (its marks). */
export interface Mapping {
  readonly namespaceStrategy: NamespaceStrategy;
  readonly hostClusterId: string;
}

export type StartFinding =
  | { readonly level: 'refuse' | 'warn' | 'note'; readonly message: string }
  | { readonly level: 'adopt'; readonly message: string; readonly mapping: Mapping };
