/**
 * The Kubernetes provider's `provider:` block: the remote cluster (a kubeconfig file, or a Secret
 * in the host cluster holding one), the host cluster's id, the namespace mapping, the pod policy,
 * the offloading patch (remote nodeSelector, affinity and tolerations), scheduling constraints,
 * the runtime class map, capacity, rate limits and what is
 * reflected. docs/configuration.md lists every field.
 */
import { z } from 'zod';
import { nonEmptyString, nonNegativeNumber, positiveNumber, rateLimit, stringMap } from '../../lib/schemaPrimitives.js';
import { CREDENTIAL_FIELDS } from './remoteKubeconfigPolicy.js';
import { SYSTEM_NAMESPACES } from './pods/podPolicy.js';
import { parseCidr } from './addresses/cidr.js';
import { parseApiServerAddress } from './pods/hostAccess.js';

/** The forms of `hostServiceAccountAccess.apiServerAddress` (pods/hostAccess.ts says what each means). */
const ADDRESS_FORMS = '<ip>:<port> or <hostname>:<port>, such as 192.0.2.10:6443, [fd00::10]:6443 or api.host.example:6443';
const isHostname = (text: string): boolean => { const address = parseApiServerAddress(text); return address !== undefined && 'hostname' in address; };

const cidrs = z.array(
  z.string('a CIDR such as 10.244.0.0/16 or fd00:10::/64').refine((text) => parseCidr(text).ok, 'a CIDR such as 10.244.0.0/16 or fd00:10::/64'),
  'a list of CIDRs',
).min(1, 'at least one CIDR (leave the field out to learn them from the cluster)');

const toleration = z.strictObject({
  key: z.string('a string').optional(),
  operator: z.enum(['Exists', 'Equal'], 'Exists or Equal').optional(),
  value: z.string('a string').optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], 'NoSchedule, PreferNoSchedule or NoExecute').optional(),
  tolerationSeconds: z.number('an integer').int('an integer').optional(),
}, 'a toleration (key, operator, value, effect, tolerationSeconds)');

const selectorOperator = z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist'], 'In, NotIn, Exists or DoesNotExist');
const labelSelector = z.strictObject({
  matchLabels: stringMap.optional(),
  matchExpressions: z.array(z.strictObject({ key: nonEmptyString, operator: selectorOperator, values: z.array(z.string('a string')).optional() }, 'a requirement (key, operator, values)'), 'a list of requirements').optional(),
}, 'a label selector (matchLabels, matchExpressions)');
const nodeRequirement = z.strictObject({
  key: nonEmptyString,
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], 'In, NotIn, Exists, DoesNotExist, Gt or Lt'),
  values: z.array(z.string('a string')).optional(),
}, 'a node selector requirement (key, operator, values)');
const nodeSelectorTerm = z.strictObject({
  matchExpressions: z.array(nodeRequirement, 'a list of requirements').optional(),
  matchFields: z.array(nodeRequirement, 'a list of requirements').optional(),
}, 'a node selector term (matchExpressions, matchFields)');
const podAffinityTerm = z.strictObject({
  topologyKey: nonEmptyString,
  labelSelector: labelSelector.optional(),
  namespaces: z.array(nonEmptyString, 'a list of remote namespace names').optional(),
  namespaceSelector: labelSelector.optional(),
  matchLabelKeys: z.array(nonEmptyString).optional(),
  mismatchLabelKeys: z.array(nonEmptyString).optional(),
}, 'a pod affinity term (topologyKey, labelSelector, namespaces, namespaceSelector)');
const weight = z.number('an integer from 1 to 100').int('an integer from 1 to 100').min(1, 'an integer from 1 to 100').max(100, 'an integer from 1 to 100');
const podAffinity = z.strictObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.array(podAffinityTerm, 'a list of pod affinity terms').optional(),
  preferredDuringSchedulingIgnoredDuringExecution: z.array(z.strictObject({ weight, podAffinityTerm }, 'a weighted term (weight, podAffinityTerm)'), 'a list of weighted terms').optional(),
}, 'a mapping with requiredDuringSchedulingIgnoredDuringExecution and/or preferredDuringSchedulingIgnoredDuringExecution');
/** Affinity terms of the remote scheduling patch, as Kubernetes spells them; written for the remote cluster (its node labels, its namespaces). */
const affinity = z.strictObject({
  nodeAffinity: z.strictObject({
    requiredDuringSchedulingIgnoredDuringExecution: z.strictObject({ nodeSelectorTerms: z.array(nodeSelectorTerm, 'a list of node selector terms').min(1, 'at least one term') }, 'a mapping with nodeSelectorTerms').optional(),
    preferredDuringSchedulingIgnoredDuringExecution: z.array(z.strictObject({ weight, preference: nodeSelectorTerm }, 'a weighted term (weight, preference)'), 'a list of weighted terms').optional(),
  }, 'a mapping with requiredDuringSchedulingIgnoredDuringExecution and/or preferredDuringSchedulingIgnoredDuringExecution').optional(),
  podAffinity: podAffinity.optional(),
  podAntiAffinity: podAffinity.optional(),
}, 'a mapping with nodeAffinity, podAffinity and/or podAntiAffinity');

/** The remote cluster: a kubeconfig file, or a Secret in the host cluster holding one. */
const remoteSchema = z.union([
  z.strictObject({ kubeconfig: nonEmptyString, context: nonEmptyString.optional() }),
  z.strictObject({
    secret: z.strictObject({
      namespace: nonEmptyString,
      name: nonEmptyString,
      /** The data key holding the kubeconfig. */
      key: nonEmptyString.optional(),
      /** Credential fields the Secret's kubeconfig may use (refused by default: remoteKubeconfigPolicy.ts). */
      allow: z.array(z.enum(CREDENTIAL_FIELDS, 'exec, auth-provider or tokenFile'), 'a list of exec, auth-provider and/or tokenFile').optional(),
    }, 'a mapping with namespace, name and optionally key and allow'),
    context: nonEmptyString.optional(),
  }),
], 'either {kubeconfig: <path>} or {secret: {namespace, name, key}}');

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const kubernetesProviderSchema = z.strictObject({
  type: z.literal('kubernetes'),
  remote: remoteSchema,
  /** Names this host cluster in remote namespaces and marks. */
  hostClusterId: z.string('a DNS label (lower case letters, digits, -), at most 20 characters')
    .max(20, 'a DNS label (lower case letters, digits, -), at most 20 characters')
    .regex(DNS_LABEL, 'a DNS label (lower case letters, digits, -), at most 20 characters').optional(),
  namespaceStrategy: z.enum(['suffix', 'same-name'], 'suffix or same-name').optional(),
  /** Running pods placed under another namespaceStrategy or hostClusterId at start: refuse the node, or adopt that mapping (pods/mappingChange.ts). */
  mappingChange: z.enum(['refuse', 'adopt'], 'refuse or adopt').optional(),
  /** Pod Security level of the remote namespaces Tether creates, and what it refuses to send (pods/podPolicy.ts). */
  podPolicy: z.strictObject({
    podSecurityLevel: z.enum(['privileged', 'baseline', 'restricted'], 'privileged, baseline or restricted').optional(),
    refuseHostPath: z.boolean('true or false').optional(),
    refusePrivileged: z.boolean('true or false').optional(),
    refuseHostPorts: z.boolean('true or false').optional(),
    allowDefaultNamespace: z.boolean('true or false').optional(),
    /** Existing remote namespaces this node may use without Tether's marks (pods/remoteNamespaces.ts). */
    adoptNamespaces: z.array(
      z.string('a namespace name').regex(DNS_LABEL, 'a namespace name (a DNS label: lower case letters, digits, -)').max(63, 'a namespace name of at most 63 characters')
        .refine((ns) => !SYSTEM_NAMESPACES.includes(ns), 'not a system namespace (kube-system, kube-public, kube-node-lease): Tether never puts pods there'),
      'a list of remote namespace names',
    ).optional(),
    /** A pod's own projected ServiceAccount token volume: refuse the pod (default) or drop the source (pods/podTranslation.ts). */
    projectedServiceAccountTokens: z.enum(['refuse', 'drop'], 'refuse or drop').optional(),
  }, 'a mapping (podSecurityLevel, refuseHostPath, refusePrivileged, refuseHostPorts, allowDefaultNamespace, adoptNamespaces, projectedServiceAccountTokens)').optional(),
  /** The remote scheduling patch: added to every remote pod of this node (pods/schedulingPatch.ts); a nodeSelector also bounds capacity to that pool. */
  offloadingPatch: z.strictObject({
    nodeSelector: stringMap.optional(),
    tolerations: z.array(toleration, 'a list of tolerations').optional(),
    affinity: affinity.optional(),
  }, 'a mapping with nodeSelector, affinity and/or tolerations').optional(),
  /** The pod's own affinity/anti-affinity and priority class: carried to the remote, or dropped with an Event (default). */
  schedulingConstraints: z.enum(['drop', 'carry'], 'drop or carry').optional(),
  /** Host RuntimeClass name → remote RuntimeClass name (pods/runtimeClasses.ts). */
  runtimeClassMap: z.record(
    z.string().regex(DNS_SUBDOMAIN, 'a RuntimeClass name (a DNS subdomain)'),
    z.string('a RuntimeClass name').regex(DNS_SUBDOMAIN, 'a RuntimeClass name (a DNS subdomain)'),
    'a mapping of host RuntimeClass names to remote ones',
  ).optional(),
  /**
   * ServiceAccount access to the host API server for offloaded pods (pods/hostAccess.ts; off by
   * default): a token of the pod's host ServiceAccount in its remote pod, and the host API server's address.
   */
  hostServiceAccountAccess: z.strictObject({
    enabled: z.boolean('true or false'),
    /** The host API server as the remote pods reach it. */
    apiServerAddress: z.string(ADDRESS_FORMS)
      .refine((text) => parseApiServerAddress(text) !== undefined, ADDRESS_FORMS).optional(),
    /** With an IP address, the name the pods use for it, in the host API server's certificate (default kubernetes.default.svc). */
    serverName: z.string('a DNS name').regex(DNS_SUBDOMAIN, 'a DNS name (lower case letters, digits, - and .)').optional(),
    /** Asked lifetime of each token, refreshed at 80% of it (default 3600). */
    expirationSeconds: z.number('an integer of at least 600').int('an integer of at least 600').min(600, 'an integer of at least 600 (the API server\'s minimum)').optional(),
  }, 'a mapping (enabled, apiServerAddress, serverName, expirationSeconds)')
    .refine((access) => !access.enabled || access.apiServerAddress !== undefined, { message: `required when enabled: the host API server as the remote pods reach it, ${ADDRESS_FORMS}`, path: ['apiServerAddress'] })
    .refine((access) => access.serverName === undefined || access.apiServerAddress === undefined || !isHostname(access.apiServerAddress), {
      message: 'only with an <ip> apiServerAddress: with a hostname, the pods reach and verify the host API server by that name (it must be in the server certificate)', path: ['serverName'],
    })
    .optional(),
  blankPodIPs: z.boolean('true or false').optional(),
  /** Both clusters' pod and Service CIDRs, instead of what they show; and what an unknown one means (addresses/). */
  networks: z.strictObject({
    hostPodCIDRs: cidrs.optional(),
    hostServiceCIDRs: cidrs.optional(),
    remotePodCIDRs: cidrs.optional(),
    remoteServiceCIDRs: cidrs.optional(),
    unknownCIDRs: z.enum(['warn', 'refuse'], 'warn or refuse').optional(),
  }, 'a mapping (hostPodCIDRs, hostServiceCIDRs, remotePodCIDRs, remoteServiceCIDRs, unknownCIDRs)').optional(),
  /** Fixed capacity instead of the remote nodes' sum. */
  quota: stringMap.optional(),
  /** Count the remote's virtual-kubelet nodes in capacity (when they are its real workers). */
  countVirtualNodes: z.boolean('true or false').optional(),
  pingTimeoutMs: positiveNumber.optional(),
  rateLimit: rateLimit.optional(),
  /** Which host kinds follow offloaded pods into their remote namespaces (default both; `none`: neither). */
  reflectedKinds: z.union([
    z.literal('none'),
    z.array(z.enum(['Service', 'EndpointSlice'], 'Service or EndpointSlice'), 'a list of kinds')
      .refine((kinds) => !kinds.includes('EndpointSlice') || kinds.includes('Service'), 'EndpointSlice needs Service (a slice belongs to a reflected Service)'),
  ], 'none, or a list of Service and EndpointSlice').optional(),
  reflection: z.strictObject({
    sweepMs: positiveNumber.optional(),
    minAgeMs: nonNegativeNumber.optional(),
    sweepDelayMs: nonNegativeNumber.optional(),
  }, 'a mapping with sweepMs, minAgeMs and/or sweepDelayMs').optional(),
}, 'a kubernetes provider mapping');

export type KubernetesProviderConfig = z.infer<typeof kubernetesProviderSchema>;

/** The Secret's data key holding the remote kubeconfig, unless `remote.secret.key` says otherwise. */
export const DEFAULT_REMOTE_SECRET_KEY = 'kubeconfig';
