/**
 * Host pod → remote pod. Pure. The remote spec is built from an allow-list (as Liqo does), so a
 * field added to PodSpec in a later Kubernetes version is dropped until someone decides about it.
 *
 * | PodSpec field                               | remote pod                                        |
 * |---------------------------------------------|---------------------------------------------------|
 * | containers, initContainers                  | kept; `kube-api-access-*` mounts removed; env     |
 * |                                             | fieldRefs to metadata.namespace, metadata.uid and |
 * |                                             | spec.nodeName become the host's values            |
 * | volumes                                     | kept, except projected `kube-api-access-*`        |
 * | restartPolicy, securityContext, dnsPolicy,  | kept                                              |
 * | dnsConfig, hostAliases, hostname, subdomain,|                                                   |
 * | setHostnameAsFQDN, enableServiceLinks,      |                                                   |
 * | shareProcessNamespace, os, hostUsers,       |                                                   |
 * | terminationGracePeriodSeconds,              |                                                   |
 * | activeDeadlineSeconds,                      |                                                   |
 * | topologySpreadConstraints                   |                                                   |
 * | imagePullSecrets                            | kept; the Secrets must exist in the remote        |
 * |                                             | namespace (they are not reflected)                |
 * | tolerations                                 | kept, minus Tether's own taint                    |
 * |                                             | (`virtual-kubelet.io/provider`), plus the node's  |
 * |                                             | offloadingPatch.tolerations                       |
 * | nodeSelector, affinity                      | dropped (they chose the virtual node); the node's |
 * |                                             | offloadingPatch.nodeSelector is set instead       |
 * | nodeName, schedulerName                     | dropped: the remote scheduler places the pod      |
 * | priority, priorityClassName,                | dropped: classes are cluster-scoped and differ    |
 * | preemptionPolicy                            |                                                   |
 * | serviceAccountName, serviceAccount          | dropped, and automountServiceAccountToken: false: |
 * |                                             | the host's token must not leave the host, and the |
 * |                                             | remote `default` account must not be mounted      |
 * |                                             | silently in its place                             |
 * | hostNetwork, hostPID, hostIPC               | dropped: they meant the virtual node's host       |
 * | readinessGates                              | dropped: nothing remote sets those conditions     |
 * | schedulingGates                             | dropped: nothing remote would lift them           |
 * | runtimeClassName, overhead                  | dropped (classes differ; overhead is set by the   |
 * |                                             | remote RuntimeClass admission)                    |
 * | ephemeralContainers, resourceClaims,        | dropped                                           |
 * | resources (pod-level)                       | kept                                              |
 *
 * Metadata: name as on the host; namespace mapped (namespaceMapping.ts); labels and annotations
 * kept except Tether's own `tether.dev/` keys, which are replaced by the ownership marks (see
 * marks.ts); ownerReferences, finalizers and server-set fields dropped.
 */
import type { Pod, PodSpec } from '../../../adapters/kubernetes/model.js';
import type { V1Container, V1EnvVar, V1Toleration, V1Volume } from '@kubernetes/client-node';
import {
  hostClusterLabel, hostNameAnnotation, hostNamespaceAnnotation, hostUidAnnotation, labelValue, managedByLabel,
  managedByValue, virtualNodeAnnotation, virtualNodeLabel, withoutMarks,
} from '../marks.js';

/** What a virtual node adds to every pod it offloads (Liqo's offloadingPatch). */
export interface OffloadingPatch {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly V1Toleration[];
}

export interface TranslationContext {
  readonly hostClusterId: string;
  readonly nodeName: string;
  readonly remoteNamespace: string;
  readonly offloadingPatch?: OffloadingPatch;
}

/** Tether's own taint key on virtual nodes; its toleration means nothing remotely. */
export const tetherTaintKey = 'virtual-kubelet.io/provider';

const SERVICE_ACCOUNT_VOLUME = /^kube-api-access-/;

const KEPT_SPEC_FIELDS = [
  'restartPolicy', 'securityContext', 'terminationGracePeriodSeconds', 'activeDeadlineSeconds', 'dnsPolicy',
  'dnsConfig', 'hostAliases', 'hostname', 'subdomain', 'setHostnameAsFQDN', 'enableServiceLinks',
  'shareProcessNamespace', 'topologySpreadConstraints', 'imagePullSecrets', 'os', 'hostUsers', 'resources',
] as const satisfies readonly (keyof PodSpec)[];

export function toRemotePod(host: Pod, ctx: TranslationContext): Pod {
  const meta = host.metadata ?? {};
  const hostNamespace = meta.namespace ?? 'default';
  const hostUid = meta.annotations?.[hostUidAnnotation] ?? meta.uid ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: meta.name ?? '',
      namespace: ctx.remoteNamespace,
      labels: {
        ...withoutMarks(meta.labels),
        [managedByLabel]: managedByValue,
        [hostClusterLabel]: labelValue(ctx.hostClusterId),
        [virtualNodeLabel]: labelValue(ctx.nodeName),
      },
      annotations: {
        ...withoutMarks(meta.annotations),
        [hostNamespaceAnnotation]: hostNamespace,
        [hostNameAnnotation]: meta.name ?? '',
        [hostUidAnnotation]: hostUid,
        [virtualNodeAnnotation]: ctx.nodeName,
      },
    },
    spec: remoteSpec(host.spec ?? { containers: [] }, { namespace: hostNamespace, uid: hostUid, nodeName: ctx.nodeName }, ctx.offloadingPatch),
  };
}

interface HostValues {
  readonly namespace: string;
  readonly uid: string;
  readonly nodeName: string;
}

function remoteSpec(spec: PodSpec, host: HostValues, patch: OffloadingPatch | undefined): PodSpec {
  const dropped = new Set((spec.volumes ?? []).filter(isServiceAccountVolume).map((v) => v.name));
  const out: PodSpec = { containers: spec.containers.map((c) => remoteContainer(c, host, dropped)) };
  for (const field of KEPT_SPEC_FIELDS) {
    if (spec[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = structuredClone(spec[field]);
  }
  if (spec.initContainers) out.initContainers = spec.initContainers.map((c) => remoteContainer(c, host, dropped));
  const volumes = (spec.volumes ?? []).filter((v) => !dropped.has(v.name)).map((v) => structuredClone(v));
  if (volumes.length > 0) out.volumes = volumes;
  const tolerations = [
    ...(spec.tolerations ?? []).filter((t) => t.key !== tetherTaintKey),
    ...(patch?.tolerations ?? []),
  ].map((t) => structuredClone(t));
  if (tolerations.length > 0) out.tolerations = tolerations;
  if (patch?.nodeSelector && Object.keys(patch.nodeSelector).length > 0) out.nodeSelector = { ...patch.nodeSelector };
  out.automountServiceAccountToken = false;
  return out;
}

/** The projected volume the ServiceAccount admission plugin adds for the host's token. */
export function isServiceAccountVolume(volume: V1Volume): boolean {
  return SERVICE_ACCOUNT_VOLUME.test(volume.name) && volume.projected?.sources?.some((s) => s.serviceAccountToken) === true;
}

function remoteContainer(container: V1Container, host: HostValues, droppedVolumes: ReadonlySet<string>): V1Container {
  const out = structuredClone(container);
  if (out.volumeMounts) {
    out.volumeMounts = out.volumeMounts.filter((m) => !droppedVolumes.has(m.name));
    if (out.volumeMounts.length === 0) delete out.volumeMounts;
  }
  if (out.env) out.env = out.env.map((e) => hostFieldRef(e, host));
  return out;
}

/** Downward-API env vars that would otherwise describe the remote pod rather than the host one. */
function hostFieldRef(env: V1EnvVar, host: HostValues): V1EnvVar {
  const path = env.valueFrom?.fieldRef?.fieldPath;
  const value = path === 'metadata.namespace' ? host.namespace : path === 'metadata.uid' ? host.uid : path === 'spec.nodeName' ? host.nodeName : undefined;
  return value === undefined ? env : { name: env.name, value };
}
