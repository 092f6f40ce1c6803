/**
 * The remote copy of a host Service. Pure.
 *
 * Kept: the name, ports (name, protocol, port, targetPort, appProtocol), sessionAffinity and its
 * config, ipFamilies and ipFamilyPolicy, publishNotReadyAddresses, externalName, labels and
 * annotations (minus Tether's own and kubectl's last-applied-configuration). Translated: type
 * ExternalName stays ExternalName, every other type becomes ClusterIP (node ports and load
 * balancers belong to the host cluster); `clusterIP: None` (headless) is kept, any other
 * clusterIP is left to the remote cluster to allocate. Dropped: the selector (so the remote
 * EndpointSlice controller leaves the Service to Tether), nodePorts, external IPs and traffic
 * policies. Added: the reflection marks (`reflectionMarks`) and `tether.dev/host-namespace`.
 */
import type { Service, ServicePort } from '../../../adapters/kubernetes/model.js';
import { fingerprint } from '../../../lib/fingerprint.js';
import { hostNamespaceAnnotation, labelValue, ownershipLabels, virtualNodeLabel, withoutMarks } from '../marks.js';
import { definedOnly } from '../../../lib/defaults.js';

/** Who reflects: the host cluster and the virtual node whose marks the remote objects carry. */
export interface ReflectionMarks {
  readonly hostClusterId: string;
  readonly nodeName: string;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The labels of every reflected Service and EndpointSlice: ownership plus the virtual node. */
export function reflectionLabels(marks: ReflectionMarks): Record<string, string> {
  return { ...ownershipLabels(marks.hostClusterId), [virtualNodeLabel]: labelValue(marks.nodeName) };
}

/** True if a remote object carries this virtual node's reflection marks. */
export function isReflectedBy(labels: Readonly<Record<string, string>> | undefined, marks: ReflectionMarks): boolean {
  return Object.entries(reflectionLabels(marks)).every(([k, v]) => labels?.[k] === v);
}

/** The metadata every reflected object carries: the host's labels and annotations, cleaned, plus the marks. */
export function reflectedMetadata(
  meta: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> },
  remoteNamespace: string,
  marks: ReflectionMarks,
  dropAnnotations: readonly string[] = [],
): { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> } {
  const annotations = withoutMarks(meta.annotations);
  for (const key of [LAST_APPLIED, ...dropAnnotations]) delete annotations[key];
  return {
    name: meta.name ?? '',
    namespace: remoteNamespace,
    labels: { ...withoutMarks(meta.labels), ...reflectionLabels(marks) },
    annotations: { ...annotations, [hostNamespaceAnnotation]: meta.namespace ?? '' },
  };
}

/**
 * Whether a host Service is reflected at all: `default/kubernetes` is the host API server's own
 * Service, and reaching the host API server from remote pods is out of scope (docs).
 */
export function isReflectedService(host: Service): boolean {
  return !(host.metadata?.namespace === 'default' && host.metadata.name === 'kubernetes');
}

export function isHeadless(service: Service): boolean {
  return service.spec?.clusterIP === 'None';
}

export function remoteService(host: Service, remoteNamespace: string, marks: ReflectionMarks): Service {
  const spec = host.spec ?? {};
  const external = spec.type === 'ExternalName';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: reflectedMetadata(host.metadata ?? {}, remoteNamespace, marks),
    spec: {
      type: external ? 'ExternalName' : 'ClusterIP',
      ...definedOnly({
        externalName: external && spec.externalName !== undefined ? spec.externalName : undefined,
        clusterIP: isHeadless(host) ? 'None' : undefined,
        ports: spec.ports ? spec.ports.map(remotePort) : undefined,
        sessionAffinity: spec.sessionAffinity,
        sessionAffinityConfig: spec.sessionAffinityConfig ? structuredClone(spec.sessionAffinityConfig) : undefined,
        ipFamilies: !external && spec.ipFamilies ? [...spec.ipFamilies] : undefined,
        ipFamilyPolicy: !external && spec.ipFamilyPolicy !== undefined ? spec.ipFamilyPolicy : undefined,
        publishNotReadyAddresses: spec.publishNotReadyAddresses || undefined,
      }),
    },
  };
}

function remotePort(port: ServicePort): ServicePort {
  return {
    port: port.port,
    ...definedOnly({ name: port.name, protocol: port.protocol, targetPort: port.targetPort, appProtocol: port.appProtocol }),
  };
}

/**
 * A digest of what a reflected Service carries, the same for the copy Tether builds and the
 * object the remote API server returns (defaults applied as the server applies them), so an
 * unchanged Service costs no write.
 */
export function serviceDigest(service: Service): string {
  const spec = service.spec ?? {};
  const external = spec.type === 'ExternalName';
  return fingerprint({
    l: service.metadata?.labels ?? {},
    a: service.metadata?.annotations ?? {},
    t: spec.type ?? 'ClusterIP',
    e: spec.externalName,
    h: isHeadless(service),
    p: (spec.ports ?? []).map((p) => ({ n: p.name ?? '', pr: p.protocol ?? 'TCP', p: p.port, tp: p.targetPort ?? p.port, ap: p.appProtocol })),
    s: spec.sessionAffinity ?? 'None',
    sc: spec.sessionAffinityConfig,
    f: external ? undefined : spec.ipFamilies,
    fp: external ? undefined : spec.ipFamilyPolicy,
    n: spec.publishNotReadyAddresses === true,
  });
}
