/**
 * The Kubernetes provider's registration: how a node's provider is built from its `provider:`
 * block (configSchema.ts). A remote kubeconfig held in a Secret is read from the host cluster
 * here, and refused if it would make Tether run a program, load a plugin or send one of its files
 * (remoteKubeconfigPolicy.ts); the host cluster's id is derived from the host cluster unless set.
 */
import { readClusterUid } from '../../adapters/kubernetes/clusterUid.js';
import { readSecretData } from '../../adapters/kubernetes/secrets.js';
import { handleOf, ProviderSetupError, type ProviderCreationContext, type ProviderRegistration } from '../registration.js';
import type { ClusterSource } from '../../adapters/kubernetes/clusterClient.js';
import { DEFAULT_REMOTE_SECRET_KEY, kubernetesProviderSchema, type KubernetesProviderConfig } from './configSchema.js';
import { KubernetesProvider } from './kubernetesProvider.js';
import type { KubernetesProviderOptions } from './options.js';
import { hostClusterIdFromUid } from './marks.js';
import { refusedCredentials } from './remoteKubeconfigPolicy.js';
import { definedOnly, ifDefined } from '../../lib/defaults.js';
import { parseApiServerAddress, type HostAccessSettings } from './pods/hostAccess.js';

export const kubernetesRegistration: ProviderRegistration<typeof kubernetesProviderSchema> = {
  type: 'kubernetes',
  schema: kubernetesProviderSchema,
  async create(config, context) {
    return handleOf(await checkedProvider(await optionsOf(config, context), context));
  },
  /** The start checks' findings (refusals and warnings), the provider stopped again. */
  async check(config, context) {
    const provider = new KubernetesProvider(await optionsOf(config, context));
    try {
      return (await provider.preflight()).filter((f) => f.level !== 'note').map((f) => `${f.level === 'refuse' ? 'refuse' : 'warn'}: ${f.message}`);
    } finally {
      await provider.stop();
    }
  },
};

async function optionsOf(config: KubernetesProviderConfig, context: ProviderCreationContext): Promise<KubernetesProviderOptions> {
  const remote = await remoteSource(config.remote, context);
  const hostClusterId = config.hostClusterId ?? (await derivedHostClusterId(context));
  context.logger.info('kubernetes provider host cluster id', {
    hostClusterId, source: config.hostClusterId === undefined ? 'derived from the UID of the host kube-system namespace' : 'configured',
  });
  return {
    nodeName: context.nodeName,
    hostClusterId,
    remote,
    host: context.hostClient ?? context.host,
    log: context.logger.child({ provider: 'kubernetes' }),
    ...definedOnly({
      hostEvents: context.hostEvents,
      fenced: context.fenced,
      namespaceStrategy: config.namespaceStrategy || undefined,
      mappingChange: config.mappingChange,
      podPolicy: config.podPolicy ? Object.fromEntries(Object.entries(config.podPolicy).filter(([, v]) => v !== undefined)) : undefined,
      offloadingPatch: config.offloadingPatch,
      schedulingConstraints: config.schedulingConstraints,
      runtimeClassMap: config.runtimeClassMap,
      hostServiceAccountAccess: hostAccessSettings(config.hostServiceAccountAccess),
      blankPodIPs: config.blankPodIPs,
      networks: config.networks,
      quota: config.quota,
      countVirtualNodes: config.countVirtualNodes,
      pingTimeoutMs: config.pingTimeoutMs,
      rateLimit: config.rateLimit,
      reflection: config.reflection,
      onRemoteEvent: context.podEvents,
      reflectedKinds: ifDefined(config.reflectedKinds, (kinds) => (kinds === 'none' ? [] : [...new Set(kinds)])),
    }),
  };
}

/** The node's host ServiceAccount access, when enabled (the schema checked the address). */
function hostAccessSettings(access: KubernetesProviderConfig['hostServiceAccountAccess']): HostAccessSettings | undefined {
  const address = access?.enabled === true && access.apiServerAddress !== undefined ? parseApiServerAddress(access.apiServerAddress) : undefined;
  if (!access || !address) return undefined;
  const expiration = definedOnly({ expirationSeconds: access.expirationSeconds });
  // The schema refuses a serverName beside a hostname.
  return 'hostname' in address ? { ...address, ...expiration } : { ...address, ...definedOnly({ serverName: access.serverName }), ...expiration };
}

/**
 * The provider once its start checks pass (startFindings.ts): warnings and notes logged, any
 * refusal one ProviderSetupError (the provider stopped), an adoption a provider built again under
 * the mapping the node's running pods were made with.
 */
async function checkedProvider(options: KubernetesProviderOptions, context: ProviderCreationContext, adopted = false): Promise<KubernetesProvider> {
  const provider = new KubernetesProvider(options);
  const findings = await provider.preflight();
  for (const f of findings) if (f.level !== 'refuse') context.logger[f.level === 'note' ? 'info' : 'warn'](f.message);
  const refusals = findings.filter((f) => f.level === 'refuse');
  const adoption = findings.find((f) => f.level === 'adopt');
  if (refusals.length === 0 && (adoption === undefined || adopted)) return provider;
  await provider.stop();
  if (refusals.length > 0) throw new ProviderSetupError(refusals.map((f) => f.message).join('\n'));
  return checkedProvider({ ...options, ...adoption?.mapping }, context, true);
}

/** The default host cluster id: from the host cluster itself, so two hosts never share one. */
async function derivedHostClusterId(ctx: ProviderCreationContext): Promise<string> {
  try {
    return hostClusterIdFromUid(await readClusterUid(ctx.host));
  } catch (error) {
    throw new ProviderSetupError(`node ${ctx.nodeName}: cannot derive hostClusterId from the host cluster (reading namespace kube-system: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}); set provider.hostClusterId`);
  }
}

async function remoteSource(remote: KubernetesProviderConfig['remote'], ctx: ProviderCreationContext): Promise<ClusterSource> {
  const context = remote.context !== undefined ? { context: remote.context } : {};
  if ('kubeconfig' in remote) return { kind: 'file', path: remote.kubeconfig, ...context };
  const { namespace, name } = remote.secret;
  const key = remote.secret.key ?? DEFAULT_REMOTE_SECRET_KEY;
  const where = `secret ${namespace}/${name}`;
  let data: Record<string, string> | undefined;
  try {
    data = await readSecretData(ctx.host, namespace, name);
  } catch (error) {
    throw new ProviderSetupError(`node ${ctx.nodeName}: cannot read the remote kubeconfig from ${where}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const encoded = data?.[key];
  if (encoded === undefined) throw new ProviderSetupError(`node ${ctx.nodeName}: ${where} has no key '${key}' (keys: ${Object.keys(data ?? {}).join(', ') || 'none'})`);
  const yaml = Buffer.from(encoded, 'base64').toString('utf8');
  const refused = refusedCredentials(yaml, remote.secret.allow ?? [], `node ${ctx.nodeName}: ${where} key ${key}`);
  if (refused.length > 0) throw new ProviderSetupError(refused.join('\n'));
  return { kind: 'string', yaml, label: `kubeconfig from ${where} key ${key}`, ...context };
}
