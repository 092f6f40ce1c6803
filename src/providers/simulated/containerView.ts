/**
 * What a command in a simulated container sees: its environment (env with `$(VAR)` references,
 * `valueFrom` of ConfigMaps, Secrets, pod fields and resources, and `envFrom`) and its files (the
 * ConfigMap, Secret, downward-API and projected volumes at their mount paths, items and subPath
 * honoured). Resolved as the kubelet resolves them; a missing optional object or key is skipped,
 * a missing mandatory one is an error naming the container and the reference (the kubelet would
 * not have started the container; see docs/kubelet-api.md for the Event reasons). A node with no
 * source at all leaves the references out (`withoutObjectReferences`).
 */
import type { Pod, PodSpec } from '../../adapters/kubernetes/model.js';
import type { ConfigSource } from './configSource.js';
import { expandReferences } from './commandExpansion.js';
import { definedOnly } from '../../lib/defaults.js';

type Container = PodSpec['containers'][number];
type Volume = NonNullable<PodSpec['volumes']>[number];

export class MissingReference extends Error {}

export interface ContainerView {
  readonly env: ReadonlyMap<string, string>;
  /** Absolute path → content. */
  readonly files: ReadonlyMap<string, string>;
  readonly hostname: string;
}

/**
 * What a program that is not a shell program sees (a server, an instant init): nothing, one
 * object for all of them, so an idle pod holds no view of its own. Frozen; its maps are read-only by type.
 */
export const EMPTY_VIEW: ContainerView = Object.freeze({ env: new Map<string, string>(), files: new Map<string, string>(), hostname: '' });

type Data = Readonly<Record<string, string>>;

function podField(pod: Pod, path: string): string | undefined {
  const meta = pod.metadata;
  const label = /^metadata\.labels\['(.+)'\]$/.exec(path);
  if (label) return meta?.labels?.[label[1] as string];
  const annotation = /^metadata\.annotations\['(.+)'\]$/.exec(path);
  if (annotation) return meta?.annotations?.[annotation[1] as string];
  const lines = (record: Record<string, string> | undefined): string =>
    Object.keys(record ?? {}).sort().map((k) => `${k}="${record?.[k] ?? ''}"`).join('\n');
  switch (path) {
    case 'metadata.name': return meta?.name;
    case 'metadata.namespace': return meta?.namespace ?? 'default';
    case 'metadata.uid': return meta?.uid;
    case 'metadata.labels': return lines(meta?.labels);
    case 'metadata.annotations': return lines(meta?.annotations);
    case 'spec.nodeName': return pod.spec?.nodeName;
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? 'default';
    case 'status.podIP': return pod.status?.podIP;
    case 'status.hostIP': return pod.status?.hostIP;
    default: return undefined;
  }
}

function resourceField(container: Container | undefined, resource: string): string | undefined {
  const [kind, name] = resource.split('.');
  const list = kind === 'limits' ? container?.resources?.limits : kind === 'requests' ? container?.resources?.requests : undefined;
  return name === undefined ? undefined : list?.[name];
}

class Resolver {
  private readonly cache = new Map<string, Promise<Data | undefined>>();
  constructor(private readonly source: ConfigSource, private readonly namespace: string, private readonly signal?: AbortSignal) {}

  get(kind: 'ConfigMap' | 'Secret', name: string): Promise<Data | undefined> {
    const key = `${kind}/${name}`;
    let found = this.cache.get(key);
    if (!found) {
      found = kind === 'ConfigMap' ? this.source.configMap(this.namespace, name, this.signal) : this.source.secret(this.namespace, name, this.signal);
      this.cache.set(key, found);
    }
    return found;
  }

  /** The object's data; undefined when it is missing and optional; throws when mandatory. */
  async require(kind: 'ConfigMap' | 'Secret', name: string | undefined, optional: boolean | undefined, where: string): Promise<Data | undefined> {
    const data = name ? await this.get(kind, name) : undefined;
    if (data === undefined && !optional) throw new MissingReference(`${kind.toLowerCase()} "${name ?? ''}" not found (${where})`);
    return data;
  }
}

async function resolveEnv(pod: Pod, container: Container, resolver: Resolver): Promise<Map<string, string>> {
  const env = new Map<string, string>([
    ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
    ['HOSTNAME', hostnameOf(pod)],
    ['HOME', '/root'],
  ]);
  const where = `container "${container.name}"`;
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const data = await resolver.require(kind, ref?.name, ref?.optional, `envFrom of ${where}`);
    for (const [k, v] of Object.entries(data ?? {})) env.set(`${from.prefix ?? ''}${k}`, v);
  }
  for (const variable of container.env ?? []) {
    const source = variable.valueFrom;
    if (!source) {
      env.set(variable.name, expandReferences(variable.value ?? '', env));
      continue;
    }
    const keyRef = source.configMapKeyRef ?? source.secretKeyRef;
    if (keyRef) {
      const kind = source.configMapKeyRef ? 'ConfigMap' : 'Secret';
      const what = `env "${variable.name}" of ${where}`;
      const data = await resolver.require(kind, keyRef.name, keyRef.optional, what);
      const value = data?.[keyRef.key];
      if (value === undefined && data !== undefined && !keyRef.optional) throw new MissingReference(`couldn't find key ${keyRef.key} in ${kind} ${pod.metadata?.namespace ?? 'default'}/${keyRef.name} (${what})`);
      if (value !== undefined) env.set(variable.name, value);
      continue;
    }
    const value = source.fieldRef ? podField(pod, source.fieldRef.fieldPath)
      : source.resourceFieldRef ? resourceField((pod.spec?.containers ?? []).find((c) => c.name === (source.resourceFieldRef?.containerName ?? container.name)), source.resourceFieldRef.resource)
      : undefined;
    if (value !== undefined) env.set(variable.name, value);
  }
  return env;
}

function joinPath(dir: string, file: string): string {
  return `${dir.replace(/\/+$/, '')}/${file.replace(/^\/+/, '')}`;
}

/** The files one volume holds, by path relative to the volume's root. */
async function volumeFiles(pod: Pod, volume: Volume, resolver: Resolver): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const where = `volume "${volume.name}"`;
  const fromData = async (kind: 'ConfigMap' | 'Secret', name: string | undefined, optional: boolean | undefined, items: ReadonlyArray<{ key: string; path: string }> | undefined): Promise<void> => {
    const data = await resolver.require(kind, name, optional, where);
    if (!data) return;
    if (!items) for (const [k, v] of Object.entries(data)) files.set(k, v);
    else for (const item of items) {
      const value = data[item.key];
      if (value === undefined && !optional) throw new MissingReference(`configmap references non-existent config key: ${item.key} (${where})`);
      if (value !== undefined) files.set(item.path, value);
    }
  };
  const downward = (items: ReadonlyArray<{ path: string; fieldRef?: { fieldPath: string } }> | undefined): void => {
    for (const item of items ?? []) {
      const value = item.fieldRef ? podField(pod, item.fieldRef.fieldPath) : undefined;
      if (value !== undefined) files.set(item.path, value);
    }
  };
  if (volume.configMap) await fromData('ConfigMap', volume.configMap.name, volume.configMap.optional, volume.configMap.items);
  if (volume.secret) await fromData('Secret', volume.secret.secretName, volume.secret.optional, volume.secret.items);
  if (volume.downwardAPI) downward(volume.downwardAPI.items);
  for (const source of volume.projected?.sources ?? []) {
    if (source.configMap) await fromData('ConfigMap', source.configMap.name, source.configMap.optional, source.configMap.items);
    if (source.secret) await fromData('Secret', source.secret.name, source.secret.optional, source.secret.items);
    if (source.downwardAPI) downward(source.downwardAPI.items);
  }
  return files;
}

function hostnameOf(pod: Pod): string {
  return pod.spec?.hostname ?? pod.metadata?.name ?? '';
}

/** The container's environment and files now. Throws MissingReference for a missing mandatory object or key. */
export async function containerView(pod: Pod, containerName: string, source: ConfigSource, signal?: AbortSignal): Promise<ContainerView> {
  const spec = pod.spec;
  // An ephemeral container has the fields a view reads (env, envFrom, volumeMounts).
  const container = [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...((spec?.ephemeralContainers ?? []) as Container[])].find((c) => c.name === containerName);
  if (!container) throw new MissingReference(`container ${containerName} is not valid for pod ${pod.metadata?.name ?? ''}`);
  const resolver = new Resolver(source, pod.metadata?.namespace ?? 'default', signal);
  const env = await resolveEnv(pod, container, resolver);
  const files = new Map<string, string>([['/etc/hostname', `${hostnameOf(pod)}\n`]]);
  for (const mount of container.volumeMounts ?? []) {
    const volume = (spec?.volumes ?? []).find((v) => v.name === mount.name);
    if (!volume) continue;
    const inVolume = await volumeFiles(pod, volume, resolver);
    if (mount.subPath) {
      const content = inVolume.get(mount.subPath);
      if (content !== undefined) files.set(mount.mountPath, content);
      continue;
    }
    for (const [path, content] of inVolume) files.set(joinPath(mount.mountPath, path), content);
  }
  return { env, files, hostname: hostnameOf(pod) };
}

/**
 * The pod without its ConfigMap and Secret references (envFrom, env from keys, and the volumes
 * that hold them), for a node that has no source to read them from: its commands start with what
 * the spec itself says rather than wait for objects no one can supply.
 */
export function withoutObjectReferences(pod: Pod): Pod {
  const holdsObjects = (v: Volume): boolean => v.configMap !== undefined || v.secret !== undefined
    || (v.projected?.sources ?? []).some((source) => source.configMap !== undefined || source.secret !== undefined);
  const dropped = new Set((pod.spec?.volumes ?? []).filter(holdsObjects).map((v) => v.name));
  const strip = (c: Container): Container => ({
    ...c,
    envFrom: [],
    env: (c.env ?? []).filter((e) => e.valueFrom?.configMapKeyRef === undefined && e.valueFrom?.secretKeyRef === undefined),
    volumeMounts: (c.volumeMounts ?? []).filter((m) => !dropped.has(m.name)),
  });
  if (pod.spec === undefined) return pod;
  return {
    ...pod,
    spec: {
      ...pod.spec,
      containers: pod.spec.containers.map(strip),
      ...definedOnly({ initContainers: pod.spec.initContainers?.map(strip) }),
      volumes: (pod.spec.volumes ?? []).filter((v) => !dropped.has(v.name)),
    },
  };
}
