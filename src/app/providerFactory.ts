/**
 * Providers from the config file, through the registry (src/providers/registry.ts): a node's
 * `provider:` block goes to the `create` of the provider its `type` names. Each handle has the
 * provider's lifecycle; it is stopped after the agent (a Kubernetes provider closes its remote
 * watches; its remote pods keep running). Whatever a provider notifies without the host uid is
 * counted and logged here (identityChecks.ts), since Tether cannot route it.
 */
import type { ClusterClient } from '../adapters/kubernetes/clusterClient.js';
import type { EventRecorderClient } from '../adapters/kubernetes/eventRecorderClient.js';
import type { KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { Logger } from '../adapters/logger.js';
import type { PodEventForwarder } from './podEventForwarder.js';
import { withIdentityChecks } from '../providers/identityChecks.js';
import { registrationFor, type ProviderConfig } from '../providers/registry.js';
import { ProviderSetupError, type ProviderHandle } from '../providers/registration.js';
import { definedOnly } from '../lib/defaults.js';

export { ProviderSetupError, type ProviderHandle } from '../providers/registration.js';

export interface ProviderContext {
  readonly nodeName: string;
  /** The node's address: the simulated provider reports it as its pods' hostIP. */
  readonly internalIP: string;
  readonly host: KubeconfigSource;
  /** The node's one host connection, shared with the agent; its creator stops it. */
  readonly hostClient?: ClusterClient;
  /** The node's one host EventRecorder, over `hostClient`, shared with the agent. */
  readonly hostEvents?: EventRecorderClient;
  readonly logger: Logger;
  /** Where a provider's Events about the node's pods go (the node's host EventRecorder). */
  readonly podEvents?: PodEventForwarder;
  /** Under leader election: the provider is built a standby, fenced until the node's lock is held. */
  readonly fenced?: boolean;
}

export async function createProvider(config: ProviderConfig, ctx: ProviderContext): Promise<ProviderHandle> {
  const registration = registrationFor(config.type);
  if (registration === undefined) throw new ProviderSetupError(`node ${ctx.nodeName}: no provider of type '${config.type}'`);
  const handle = await registration.create(config, {
    nodeName: ctx.nodeName,
    internalIP: ctx.internalIP,
    host: ctx.host,
    ...definedOnly({ hostClient: ctx.hostClient, hostEvents: ctx.hostEvents }),
    logger: ctx.logger,
    ...definedOnly({ podEvents: ctx.podEvents?.record, fenced: ctx.fenced }),
  });
  return { ...handle, provider: withIdentityChecks(handle.provider, ctx.logger) };
}

/** What starting the provider would refuse or warn about (`tether validate --clusters`); none for a provider without checks. */
export async function checkProvider(config: ProviderConfig, ctx: ProviderContext): Promise<string[]> {
  const registration = registrationFor(config.type);
  if (registration?.check === undefined) return [];
  return registration.check(config, { nodeName: ctx.nodeName, internalIP: ctx.internalIP, host: ctx.host, logger: ctx.logger });
}
