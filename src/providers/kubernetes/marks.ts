/**
 * The marks Tether puts on what it creates in a remote cluster (namespaces, pods, reflected
 * ConfigMaps and Secrets), so that it only ever touches its own objects and can route a remote
 * pod back to its host pod.
 */
import { createHash } from 'node:crypto';
import { hostNameMark, hostNamespaceMark, hostUidMark, tetherMarkPrefix, virtualNodeMark } from '../tetherMarks.js';

export const markPrefix = tetherMarkPrefix;

/** Labels (selectable). */
export const managedByLabel = `${markPrefix}managed-by`;
export const managedByValue = 'tether';
export const hostClusterLabel = `${markPrefix}host-cluster`;
export const virtualNodeLabel = `${markPrefix}virtual-node`;

/** Annotations (the host pod's identity; values need not be valid label values). */
export const hostNamespaceAnnotation = hostNamespaceMark;
export const hostNameAnnotation = hostNameMark;
export const hostUidAnnotation = hostUidMark;
export const virtualNodeAnnotation = virtualNodeMark;
/** The namespace mapping (namespaceStrategy) that placed a remote pod, so a change of it is seen at start (pods/mappingChange.ts). */
export const namespaceStrategyAnnotation = `${markPrefix}namespace-strategy`;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * `value` if it is a valid label value, else a stable shortening of it (node names may be DNS
 * subdomains of up to 253 characters; label values stop at 63).
 */
export function labelValue(value: string): string {
  if (value.length <= 63 && LABEL_VALUE.test(value)) return value;
  const digest = createHash('sha256').update(value).digest('hex').slice(0, 10);
  const head = value.slice(0, 52).replace(/[^-A-Za-z0-9_.]/g, '-').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return head === '' ? digest : `${head}-${digest}`;
}

/** The labels every remote object Tether creates carries. */
export function ownershipLabels(hostClusterId: string): Record<string, string> {
  return { [managedByLabel]: managedByValue, [hostClusterLabel]: labelValue(hostClusterId) };
}

/** True if the object carries Tether's ownership labels for this host cluster. */
export function isOwned(labels: Readonly<Record<string, string>> | undefined, hostClusterId: string): boolean {
  return labels?.[managedByLabel] === managedByValue && labels[hostClusterLabel] === labelValue(hostClusterId);
}

/** The label selector of every remote object this host cluster's Tether created. */
export function hostClusterSelector(hostClusterId: string): string {
  return `${managedByLabel}=${managedByValue},${hostClusterLabel}=${labelValue(hostClusterId)}`;
}

/** A copy of `record` without Tether's own keys. */
export function withoutMarks(record: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(record ?? {}).filter(([key]) => !key.startsWith(markPrefix)));
}

/**
 * The default host cluster id from a UID of the host cluster (its kube-system namespace): the
 * first 12 hex digits, a DNS label short enough for namespace suffixes (48 random bits: two
 * clusters sharing a remote collide with negligible probability).
 */
export function hostClusterIdFromUid(uid: string): string {
  const hex = uid.toLowerCase().replace(/[^0-9a-f]/g, '');
  if (hex.length < 12) throw new Error(`cluster uid ${uid} has fewer than 12 hex digits`);
  return hex.slice(0, 12);
}

/**
 * The label of a remote Secret holding a host ServiceAccount token (pods/hostTokenSecret.ts):
 * Tether's own, never a reflected copy, so the ConfigMap/Secret reflection neither writes,
 * repairs nor sweeps it (reflectedObject.ts `isTetherCopy`); the host-token loop alone does.
 */
export const hostTokenLabel = `${markPrefix}host-token`;
/** On a remote pod with host ServiceAccount access: the host ServiceAccount its token is for. */
export const hostServiceAccountAnnotation = `${markPrefix}host-service-account`;
/** The remote pod's volume holding the host token Secret; the reflection never follows it (configReflection/references.ts). */
export const hostAccessVolume = 'tether-host-api-access';
