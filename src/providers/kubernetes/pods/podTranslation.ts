/**
 * Host pod → remote pod. Pure. The remote spec is built from an allow-list (as Liqo does), so a
 * field added to PodSpec in a later Kubernetes version is dropped until someone decides about it.
 *
 * | PodSpec field                               | remote pod                                        |
 * |---------------------------------------------|---------------------------------------------------|
 * | containers, initContainers                  | kept; `kube-api-access-*` mounts removed; env     |
 * |                                             | fieldRefs to metadata.namespace, metadata.uid and |
 * |                                             | spec.nodeName become the host's values            |
 * | volumes                                     | kept, except projected `kube-api-access-*` (the   |
 * |                                             | automount); any other projected                   |
 * |                                             | `serviceAccountToken` source is removed (and the  |
 * |                                             | volume if nothing is left): the create refuses    |
 * |                                             | such a pod first unless the node's rule is `drop` |
 * |                                             | (projectedTokens below)                           |
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
 * |                                             | offloadingPatch.tolerations (schedulingPatch.ts)  |
 * | nodeSelector, affinity.nodeAffinity         | dropped (they chose the virtual node); the node's |
 * |                                             | offloadingPatch nodeSelector and affinity are set |
 * | affinity.podAffinity, .podAntiAffinity,     | with schedulingConstraints: carry, kept (pod      |
 * | priorityClassName                           | affinity namespaces mapped: schedulingConstraints |
 * |                                             | .ts); else dropped, named in an Event             |
 * | nodeName, schedulerName                     | dropped: the remote scheduler places the pod      |
 * | priority, preemptionPolicy                  | dropped: the remote's admission sets them         |
 * | serviceAccountName, serviceAccount          | dropped, and automountServiceAccountToken: false: |
 * |                                             | the host's token must not leave the host, and the |
 * |                                             | remote `default` account must not be mounted      |
 * |                                             | silently in its place. With the node's            |
 * |                                             | hostServiceAccountAccess on, a token of the HOST  |
 * |                                             | account bound to the host pod is mounted instead  |
 * |                                             | (hostAccess.ts)                                   |
 * | hostNetwork, hostPID, hostIPC               | dropped: they meant the virtual node's host       |
 * | readinessGates                              | dropped: nothing remote sets those conditions     |
 * | schedulingGates                             | dropped: nothing remote would lift them           |
 * | runtimeClassName                            | the remote class (runtimeClasses.ts): mapped, or  |
 * |                                             | the same name; a pod whose class has no remote    |
 * |                                             | one is refused, never sent without it             |
 * | overhead                                    | dropped: the remote RuntimeClass admission sets it|
 * | ephemeralContainers                         | not at create (the API refuses them there); added |
 * |                                             | later through the remote `ephemeralcontainers`    |
 * |                                             | subresource, translated as containers are         |
 * |                                             | (inPlaceUpdates.ts, remoteEphemeralContainers)    |
 * | resourceClaims                              | dropped                                           |
 * | resources (pod-level)                       | kept                                              |
 *
 * Metadata: name as on the host; namespace mapped (namespaceMapping.ts); labels and annotations
 * kept except Tether's own `tether.dev/` keys, which are replaced by the ownership marks (see
 * marks.ts); ownerReferences, finalizers and server-set fields dropped.
 *
 * A dropped field the pod set (droppedFields.ts) is named in one Warning Event on the host pod.
 */
import type { Pod, PodSpec } from '../../../adapters/kubernetes/model.js';
import type { V1Container, V1EnvVar, V1Volume } from '@kubernetes/client-node';
import type { FieldPath } from '../../../lib/fieldProblem.js';
import {
  hostClusterLabel, hostNameAnnotation, hostNamespaceAnnotation, hostServiceAccountAnnotation, hostUidAnnotation, labelValue, managedByLabel,
  managedByValue, namespaceStrategyAnnotation, virtualNodeAnnotation, virtualNodeLabel, withoutMarks,
} from '../marks.js';
import type { NamespaceStrategy } from '../namespaceMapping.js';
import { definedOnly } from '../../../lib/defaults.js';
import { applySchedulingPatch, type OffloadingPatch, type SchedulingFields } from './schedulingPatch.js';
import { carriedAffinity, DEFAULT_SCHEDULING_CONSTRAINTS, type SchedulingConstraintsRule } from './schedulingConstraints.js';
import { withHostAccess, type HostAccessPlan } from './hostAccess.js';

export type { OffloadingPatch } from './schedulingPatch.js';

export interface TranslationContext {
  readonly hostClusterId: string;
  readonly nodeName: string;
  readonly remoteNamespace: string;
  /** Recorded on the pod (`tether.dev/namespace-strategy`) when given. */
  readonly namespaceStrategy?: NamespaceStrategy;
  readonly offloadingPatch?: OffloadingPatch;
  /** Carry the pod's (anti-)affinity and priority class (default drop). */
  readonly schedulingConstraints?: SchedulingConstraintsRule;
  /** Host namespace → remote namespace, for pod affinity terms (default: the pod's own maps to `remoteNamespace`, others unchanged). */
  readonly remoteNamespaceOf?: (hostNamespace: string) => string;
  /** The remote RuntimeClass the pod runs under (runtimeClasses.ts resolved it), if it asks for one. */
  readonly runtimeClassName?: string;
  /** ServiceAccount access to the host API server (hostAccess.ts), when the node gives it and the pod takes it. */
  readonly hostAccess?: HostAccessPlan;
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
        ...definedOnly({ [namespaceStrategyAnnotation]: ctx.namespaceStrategy, [hostServiceAccountAnnotation]: ctx.hostAccess?.serviceAccount }),
      },
    },
    spec: remoteSpec(host.spec ?? { containers: [] }, { namespace: hostNamespace, uid: hostUid, nodeName: ctx.nodeName }, ctx),
  };
}

interface HostValues {
  readonly namespace: string;
  readonly uid: string;
  readonly nodeName: string;
}

function remoteSpec(spec: PodSpec, host: HostValues, ctx: TranslationContext): PodSpec {
  // Never kept: the remote kubelet would mount a token of the remote namespace's account instead.
  const volumes = (spec.volumes ?? []).flatMap((v) => (isServiceAccountVolume(v) ? [] : [withoutTokenSources(v)]));
  const kept = new Set(volumes.flatMap((v) => (v ? [v.name] : [])));
  const dropped = new Set((spec.volumes ?? []).map((v) => v.name).filter((name) => !kept.has(name)));
  const out: PodSpec = { containers: spec.containers.map((c) => remoteContainer(c, host, dropped)) };
  for (const field of KEPT_SPEC_FIELDS) {
    if (spec[field] !== undefined) (out as unknown as Record<string, unknown>)[field] = structuredClone(spec[field]);
  }
  if (spec.initContainers) out.initContainers = spec.initContainers.map((c) => remoteContainer(c, host, dropped));
  const remoteVolumes = volumes.filter((v): v is V1Volume => v !== undefined);
  if (remoteVolumes.length > 0) out.volumes = remoteVolumes;
  Object.assign(out, applySchedulingPatch(ownScheduling(spec, host.namespace, ctx), ctx.offloadingPatch));
  if ((ctx.schedulingConstraints ?? DEFAULT_SCHEDULING_CONSTRAINTS) === 'carry' && spec.priorityClassName) out.priorityClassName = spec.priorityClassName;
  if (ctx.runtimeClassName !== undefined) out.runtimeClassName = ctx.runtimeClassName;
  out.automountServiceAccountToken = false;
  return ctx.hostAccess ? withHostAccess(out, ctx.hostAccess) : out;
}

/** What of the pod's own scheduling goes remote, before the node's patch: tolerations, and pod (anti-)affinity when carried. */
function ownScheduling(spec: PodSpec, hostNamespace: string, ctx: TranslationContext): SchedulingFields {
  const tolerations = (spec.tolerations ?? []).filter((t) => t.key !== tetherTaintKey);
  const carry = (ctx.schedulingConstraints ?? DEFAULT_SCHEDULING_CONSTRAINTS) === 'carry';
  const remoteNamespaceOf = ctx.remoteNamespaceOf ?? ((ns: string): string => (ns === hostNamespace ? ctx.remoteNamespace : ns));
  const affinity = carry ? carriedAffinity(spec.affinity, { hostClusterId: ctx.hostClusterId, remoteNamespaceOf }).affinity : undefined;
  return definedOnly({ tolerations: tolerations.length > 0 ? tolerations : undefined, affinity });
}

/** The host pod's ephemeral containers as the remote pod gets them (through its `ephemeralcontainers` subresource): translated as containers are. */
export function remoteEphemeralContainers(host: Pod, ctx: Pick<TranslationContext, 'nodeName'>): NonNullable<PodSpec['ephemeralContainers']> {
  const spec = host.spec ?? { containers: [] };
  const meta = host.metadata ?? {};
  const values = { namespace: meta.namespace ?? 'default', uid: meta.annotations?.[hostUidAnnotation] ?? meta.uid ?? '', nodeName: ctx.nodeName };
  const kept = new Set((spec.volumes ?? []).filter((v) => !isServiceAccountVolume(v) && withoutTokenSources(v) !== undefined).map((v) => v.name));
  const dropped = new Set((spec.volumes ?? []).map((v) => v.name).filter((name) => !kept.has(name)));
  return (spec.ephemeralContainers ?? []).map((c) => remoteContainer(c as V1Container, values, dropped));
}

/** The projected volume the ServiceAccount admission plugin adds for the host's token. */
export function isServiceAccountVolume(volume: V1Volume): boolean {
  return SERVICE_ACCOUNT_VOLUME.test(volume.name) && volume.projected?.sources?.some((s) => s.serviceAccountToken) === true;
}

/**
 * A ServiceAccount token the pod's own projected volumes ask for (never the automount's
 * `kube-api-access-*`, which is always dropped): the rule (`podPolicy.projectedServiceAccountTokens`)
 * refuses the pod or drops the source, and either way the host pod gets an Event.
 */
export interface ProjectedToken {
  readonly volume: string;
  readonly field: FieldPath;
}

export function projectedTokens(pod: Pod): ProjectedToken[] {
  return (pod.spec?.volumes ?? []).filter((v) => !isServiceAccountVolume(v)).flatMap((v) =>
    (v.projected?.sources ?? []).flatMap((s, i) => (s.serviceAccountToken ? [{ volume: v.name, field: ['spec', 'volumes', { key: v.name }, 'projected', 'sources', i, 'serviceAccountToken'] }] : [])));
}

/** A copy of the volume without its token sources; undefined when nothing else was projected. */
function withoutTokenSources(volume: V1Volume): V1Volume | undefined {
  const copy = structuredClone(volume);
  if (!copy.projected?.sources?.some((s) => s.serviceAccountToken)) return copy;
  copy.projected.sources = copy.projected.sources.filter((s) => !s.serviceAccountToken);
  return copy.projected.sources.length > 0 ? copy : undefined;
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
