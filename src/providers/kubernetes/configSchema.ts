/**
 * The Kubernetes provider's `provider:` block: the remote cluster (a kubeconfig file, or a Secret
 * in the host cluster holding one), the host cluster's id, the namespace mapping, the pod policy,
 * the offloading patch (remote nodeSelector and tolerations), capacity, rate limits and what is
 * reflected. docs/configuration.md lists every field.
 */
import { z } from 'zod';
import { nonEmptyString, nonNegativeNumber, positiveNumber, rateLimit, stringMap } from '../../lib/schemaPrimitives.js';
import { CREDENTIAL_FIELDS } from './remoteKubeconfigPolicy.js';
import { SYSTEM_NAMESPACES } from './pods/podPolicy.js';
import { parseCidr } from './addresses/cidr.js';

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
  offloadingPatch: z.strictObject({
    nodeSelector: stringMap.optional(),
    tolerations: z.array(toleration, 'a list of tolerations').optional(),
  }, 'a mapping with nodeSelector and/or tolerations').optional(),
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
