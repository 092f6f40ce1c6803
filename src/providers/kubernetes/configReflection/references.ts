/**
 * The ConfigMaps and Secrets a pod needs, found where the kubelet would look: volumes, projected
 * volume sources, `env[].valueFrom` and `envFrom`, in containers and init containers. Pure.
 *
 * Not included: `imagePullSecrets` (they must already exist in the remote namespace, because
 * pulling with the host cluster's registry credentials is the remote cluster's business), and
 * the API server's CA bundle `kube-root-ca.crt`, which every remote namespace has its own of,
 * and the volume of a host ServiceAccount token (`tether-host-api-access`, pods/hostAccess.ts):
 * that Secret is Tether's own, kept by pods/hostTokens.ts, not a copy of a host object.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { hostAccessVolume } from '../marks.js';

export type ReferencedKind = 'ConfigMap' | 'Secret';

export interface ObjectReference {
  readonly kind: ReferencedKind;
  readonly name: string;
  /** True only if every place that names it marks it optional. */
  readonly optional: boolean;
  /** Where the pod names it first, for messages: `volume "cfg"`, `env "DB" of container "app"`. */
  readonly where: string;
}

/** Names the remote namespace provides itself; never reflected. */
export const remoteProvidedConfigMaps: ReadonlySet<string> = new Set(['kube-root-ca.crt']);

interface Found {
  kind: ReferencedKind;
  name: string | undefined;
  optional: boolean | undefined;
  where: string;
}

export function referencedObjects(pod: Pod): ObjectReference[] {
  const found = [...volumeReferences(pod), ...containerReferences(pod)];
  const byKey = new Map<string, ObjectReference>();
  for (const f of found) {
    if (!f.name || (f.kind === 'ConfigMap' && remoteProvidedConfigMaps.has(f.name))) continue;
    const key = referenceKey(f.kind, f.name);
    const before = byKey.get(key);
    const optional = f.optional === true;
    if (!before) byKey.set(key, { kind: f.kind, name: f.name, optional, where: f.where });
    else if (before.optional && !optional) byKey.set(key, { ...before, optional: false, where: f.where });
  }
  return [...byKey.values()];
}

export function referenceKey(kind: ReferencedKind, name: string): string {
  return `${kind}/${name}`;
}

function volumeReferences(pod: Pod): Found[] {
  const out: Found[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.name === hostAccessVolume) continue;
    const where = `volume "${volume.name}"`;
    if (volume.configMap) out.push({ kind: 'ConfigMap', name: volume.configMap.name, optional: volume.configMap.optional, where });
    if (volume.secret) out.push({ kind: 'Secret', name: volume.secret.secretName, optional: volume.secret.optional, where });
    for (const source of volume.projected?.sources ?? []) {
      const inProjected = `projected volume "${volume.name}"`;
      if (source.configMap) out.push({ kind: 'ConfigMap', name: source.configMap.name, optional: source.configMap.optional, where: inProjected });
      if (source.secret) out.push({ kind: 'Secret', name: source.secret.name, optional: source.secret.optional, where: inProjected });
    }
  }
  return out;
}

function containerReferences(pod: Pod): Found[] {
  const out: Found[] = [];
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  for (const container of containers) {
    for (const env of container.env ?? []) {
      const where = `env "${env.name}" of container "${container.name}"`;
      const cm = env.valueFrom?.configMapKeyRef;
      const secret = env.valueFrom?.secretKeyRef;
      if (cm) out.push({ kind: 'ConfigMap', name: cm.name, optional: cm.optional, where });
      if (secret) out.push({ kind: 'Secret', name: secret.name, optional: secret.optional, where });
    }
    for (const source of container.envFrom ?? []) {
      const where = `envFrom of container "${container.name}"`;
      if (source.configMapRef) out.push({ kind: 'ConfigMap', name: source.configMapRef.name, optional: source.configMapRef.optional, where });
      if (source.secretRef) out.push({ kind: 'Secret', name: source.secretRef.name, optional: source.secretRef.optional, where });
    }
  }
  return out;
}
