/**
 * The remote Secret holding an offloaded pod's host ServiceAccount token (hostAccess.ts). Pure.
 *
 * Tether's own object, marked as its reflected copies are (the ownership labels of this host
 * cluster, the virtual node, the host pod's namespace, name and uid) plus `tether.dev/host-token`,
 * which keeps the ConfigMap/Secret reflection away from it. Only a Secret with all these marks,
 * in the namespace its host namespace maps to, is ever replaced or deleted (at its uid and
 * resourceVersion). It carries `token`, `ca.crt` (the host API server's CA) and `namespace` (the
 * host namespace), the keys an in-cluster client reads, and when the token was issued and
 * expires, from which the refresh is due at 80% of its life, as the kubelet refreshes its own.
 */
import { createHash } from 'node:crypto';
import type { Secret } from '../../../adapters/kubernetes/model.js';
import {
  hostClusterLabel, hostNameAnnotation, hostNamespaceAnnotation, hostServiceAccountAnnotation, hostTokenLabel, hostUidAnnotation,
  labelValue, managedByLabel, managedByValue, markPrefix, ownershipLabels, virtualNodeAnnotation, virtualNodeLabel,
} from '../marks.js';
import type { OwnershipRule } from './ownership.js';

export const HOST_TOKEN_SECRET_TYPE = 'tether.dev/host-service-account-token';
export const issuedAtAnnotation = `${markPrefix}token-issued-at`;
export const expiresAtAnnotation = `${markPrefix}token-expires-at`;
/** The share of a token's life after which a new one is asked for (the kubelet's). */
export const REFRESH_AT = 0.8;

const SUFFIX = '-tether-host-token';

/** The Secret's name for a pod: `<pod>-tether-host-token`, shortened stably past 253 characters. */
export function hostTokenSecretName(podName: string): string {
  const name = `${podName}${SUFFIX}`;
  if (name.length <= 253) return name;
  const digest = createHash('sha256').update(podName).digest('hex').slice(0, 10);
  return `${podName.slice(0, 253 - SUFFIX.length - 11).replace(/[.-]+$/, '')}-${digest}${SUFFIX}`;
}

export interface HostTokenContent {
  readonly remoteNamespace: string;
  readonly secretName: string;
  readonly host: { readonly namespace: string; readonly name: string; readonly uid: string; readonly serviceAccount: string };
  readonly token: string;
  readonly ca: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

export function hostTokenSecret(content: HostTokenContent, rule: Pick<OwnershipRule, 'hostClusterId' | 'nodeName'>): Secret {
  const { host } = content;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: HOST_TOKEN_SECRET_TYPE,
    metadata: {
      name: content.secretName,
      namespace: content.remoteNamespace,
      labels: { ...ownershipLabels(rule.hostClusterId), [virtualNodeLabel]: labelValue(rule.nodeName), [hostTokenLabel]: 'true' },
      annotations: {
        [hostNamespaceAnnotation]: host.namespace, [hostNameAnnotation]: host.name, [hostUidAnnotation]: host.uid,
        [virtualNodeAnnotation]: rule.nodeName, [hostServiceAccountAnnotation]: host.serviceAccount,
        [issuedAtAnnotation]: new Date(content.issuedAt).toISOString(), [expiresAtAnnotation]: new Date(content.expiresAt).toISOString(),
      },
    },
    data: { token: b64(content.token), 'ca.crt': b64(content.ca), namespace: b64(host.namespace) },
  };
}

/** The label selector of this node's host token Secrets. */
export function hostTokenSelector(rule: Pick<OwnershipRule, 'hostClusterId' | 'nodeName'>): string {
  return `${managedByLabel}=${managedByValue},${hostClusterLabel}=${labelValue(rule.hostClusterId)},${virtualNodeLabel}=${labelValue(rule.nodeName)},${hostTokenLabel}=true`;
}

/** Whether a remote Secret is a host token Secret this node made (every mark, in the namespace its host namespace maps to). */
export function isHostTokenSecret(secret: Secret, rule: OwnershipRule): boolean {
  const labels = secret.metadata?.labels ?? {};
  const hostNamespace = secret.metadata?.annotations?.[hostNamespaceAnnotation];
  return labels[managedByLabel] === managedByValue && labels[hostClusterLabel] === labelValue(rule.hostClusterId)
    && labels[virtualNodeLabel] === labelValue(rule.nodeName) && labels[hostTokenLabel] === 'true'
    && hostNamespace !== undefined && rule.remoteNamespaceOf(hostNamespace) === secret.metadata?.namespace;
}

/** When the Secret's token is due for a new one (epoch ms), and for which host pod; undefined when its marks are unreadable. */
export function tokenRefresh(secret: Secret): { readonly dueAt: number; readonly hostUid: string } | undefined {
  const annotations = secret.metadata?.annotations ?? {};
  const issuedAt = Date.parse(annotations[issuedAtAnnotation] ?? '');
  const expiresAt = Date.parse(annotations[expiresAtAnnotation] ?? '');
  const hostUid = annotations[hostUidAnnotation];
  if (!Number.isFinite(issuedAt) || !Number.isFinite(expiresAt) || hostUid === undefined) return undefined;
  return { dueAt: refreshDueAt(issuedAt, expiresAt), hostUid };
}

export function refreshDueAt(issuedAt: number, expiresAt: number): number {
  return issuedAt + Math.floor(REFRESH_AT * (expiresAt - issuedAt));
}
