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
 * the configured IP, so in-cluster clients verify the host's certificate by that name (a configured
 * hostname is used as it is, without an alias: HostAccessSettings).
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

/**
 * A node's access, as the config gives it (validated there): present means on. The host API
 * server is named by an IP or by a hostname. An IP: the pods reach it as `serverName` (default
 * kubernetes.default.svc, in every API server certificate), which a hostAlias maps to the IP. A
 * hostname (one the remote pods resolve: a load balancer's, say): the pods reach and verify it by
 * that name, so it must be in the host API server's certificate; no hostAlias, which needs an IP,
 * and no `serverName`, which would name a server the pods cannot resolve.
 */
export type HostAccessSettings = {
  readonly port: number;
  /** Asked lifetime of each token (default 3600 s; the API server may shorten it, never below 600 s). */
  readonly expirationSeconds?: number;
} & (
  | { readonly ip: string; readonly serverName?: string; readonly hostname?: undefined }
  | { readonly hostname: string; readonly ip?: undefined; readonly serverName?: undefined }
);

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

/** An address as the config spells it: `<ip>:<port>`, `[<ipv6>]:<port>` or `<hostname>:<port>`. */
export type ApiServerAddress = { readonly ip: string; readonly port: number } | { readonly hostname: string; readonly port: number };

/** A DNS name (RFC 1123 labels) whose last label is not all digits (so `300.0.0.1` is no name). */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*(?=[a-z0-9-]*[a-z])[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The address, or undefined when it is none of those (the config names the field). */
export function parseApiServerAddress(text: string): ApiServerAddress | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})|([a-z0-9.-]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[4]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const [, ipv6, ipv4, hostname] = match;
  if (hostname !== undefined) return HOSTNAME.test(hostname) ? { hostname, port } : undefined;
  const ip = ipv6 ?? ipv4;
  if (ip === undefined) return undefined;
  if (ipv4 !== undefined && ipv4.split('.').some((octet) => Number(octet) > 255)) return undefined;
  return { ip, port };
}

/** The remote spec with the host's API access added (the volume, a mount and the env in every container, the hostAlias). */
export function withHostAccess(spec: PodSpec, plan: HostAccessPlan): PodSpec {
  const { settings } = plan;
  const serverName = settings.hostname ?? settings.serverName ?? DEFAULT_SERVER_NAME;
  // An IP needs a name the certificate has, resolved by a hostAlias; a hostname resolves by itself.
  const aliases: V1HostAlias[] = settings.ip !== undefined ? [{ ip: settings.ip, hostnames: [serverName] }] : [];
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
    ...when(aliases.length > 0, () => ({ hostAliases: [...(spec.hostAliases ?? []), ...aliases] })),
  };
}
