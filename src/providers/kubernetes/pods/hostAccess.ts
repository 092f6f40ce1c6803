/**
 * ServiceAccount access to the host API server for an offloaded pod (opt-in per node,
 * `provider.hostServiceAccountAccess`; docs/security.md says what it grants). Pure.
 *
 * With the node's access on, a pod whose `automountServiceAccountToken` is not false gets, in
 * its remote pod, what the host kubelet would have mounted, pointing at the HOST: the Secret
 * Tether keeps (hostTokenSecret.ts: a token of the pod's host ServiceAccount bound to the host
 * pod, the host CA, the host namespace) mounted read-only at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container, `KUBERNETES_SERVICE_HOST`/
 * `PORT` set to the host API server (they win over the remote kubelet's own), and a hostAlias
 * mapping the server name (default `kubernetes.default.svc`, in every API server certificate) to
 * the configured address, so in-cluster clients verify the host's certificate by that name.
 * Without it (the default) nothing of this is added: the automount volume is dropped
 * (podTranslation.ts) and no host credential reaches the remote cluster.
 */
import type { V1Container, V1HostAlias } from '@kubernetes/client-node';
import type { Pod, PodSpec } from '../../../adapters/kubernetes/model.js';
import { definedOnly, when } from '../../../lib/defaults.js';
import { hostAccessVolume } from '../marks.js';
import { hostTokenSecretName } from './hostTokenSecret.js';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const DEFAULT_SERVER_NAME = 'kubernetes.default.svc';
export const DEFAULT_TOKEN_SECONDS = 3600;

/** A node's access, as the config gives it (validated there): present means on. */
export interface HostAccessSettings {
  /** The host API server as the remote pods reach it. */
  readonly ip: string;
  readonly port: number;
  /** The name the pods use for it (KUBERNETES_SERVICE_HOST, the hostAlias); default kubernetes.default.svc. */
  readonly serverName?: string;
  /** Asked lifetime of each token (default 3600 s; the API server may shorten it, never below 600 s). */
  readonly expirationSeconds?: number;
}

/** What one pod gets: its host ServiceAccount and the remote Secret holding its token. */
export interface HostAccessPlan {
  readonly serviceAccount: string;
  readonly secretName: string;
  readonly settings: HostAccessSettings;
}

/** The plan for `pod` on a node with `settings`, or undefined (access off, or the pod opts out). */
export function hostAccessPlan(pod: Pod, settings: HostAccessSettings | undefined): HostAccessPlan | undefined {
  if (!settings || pod.spec?.automountServiceAccountToken === false) return undefined;
  return {
    serviceAccount: pod.spec?.serviceAccountName || pod.spec?.serviceAccount || 'default',
    secretName: hostTokenSecretName(pod.metadata?.name ?? ''),
    settings,
  };
}

/** `<ip>:<port>` or `[<ipv6>]:<port>`, as the config spells the address; undefined when it is not one. */
export function parseApiServerAddress(text: string): { ip: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})):(\d{1,5})$/.exec(text);
  const ip = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (ip === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (match?.[2] !== undefined && ip.split('.').some((octet) => Number(octet) > 255)) return undefined;
  return { ip, port };
}

/** The remote spec with the host's API access added (the volume, a mount and the env in every container, the hostAlias). */
export function withHostAccess(spec: PodSpec, plan: HostAccessPlan): PodSpec {
  const serverName = plan.settings.serverName ?? DEFAULT_SERVER_NAME;
  const alias: V1HostAlias = { ip: plan.settings.ip, hostnames: [serverName] };
  const env = [
    { name: 'KUBERNETES_SERVICE_HOST', value: serverName },
    { name: 'KUBERNETES_SERVICE_PORT', value: String(plan.settings.port) },
  ];
  const withAccess = (c: V1Container): V1Container => {
    const mounts = c.volumeMounts ?? [];
    // A container that mounts something of its own there keeps it.
    const mounted = mounts.some((m) => m.mountPath.replace(/\/+$/, '') === SERVICE_ACCOUNT_MOUNT_PATH);
    return {
      ...c,
      env: [...(c.env ?? []).filter((e) => !env.some((n) => n.name === e.name)), ...env],
      ...when(!mounted, () => ({ volumeMounts: [...mounts, { name: hostAccessVolume, mountPath: SERVICE_ACCOUNT_MOUNT_PATH, readOnly: true }] })),
    };
  };
  return {
    ...spec,
    containers: spec.containers.map(withAccess),
    ...definedOnly({ initContainers: spec.initContainers?.map(withAccess) }),
    volumes: [...(spec.volumes ?? []), { name: hostAccessVolume, secret: { secretName: plan.secretName, defaultMode: 0o644 } }],
    hostAliases: [...(spec.hostAliases ?? []), alias],
  };
}
