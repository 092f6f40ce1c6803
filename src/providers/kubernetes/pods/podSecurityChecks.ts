/**
 * The Pod Security Standards, check by check, as pod-security-admission v0.36.3 defines them
 * (`policy/check_*.go`, the latest version of each), written for Tether. Pure, and total: a pod
 * of any shape (fields of the wrong type included) gives violations or none, never a throw.
 * Each check has the upstream id, reason and detail wording
 * (`non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)`),
 * plus the exact fields that offend. Containers are visited as upstream visits them: init,
 * regular, then ephemeral.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { FieldPath } from '../../../lib/fieldProblem.js';

export interface PolicyViolation {
  /** The upstream check id (`capabilities_baseline`, `hostPathVolumes`, …). */
  readonly check: string;
  readonly reason: string;
  readonly detail: string;
  /** The offending fields, under `spec` or `metadata`. */
  readonly fields: readonly FieldPath[];
}

/** As PodSecurity admission words it: `reason (detail)`. */
export const formatViolation = (v: PolicyViolation): string => `${v.reason} (${v.detail})`;

type Obj = Readonly<Record<string, unknown>>;
export type Check = (pod: Pod) => PolicyViolation | undefined;

export const obj = (x: unknown): Obj | undefined => (typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Obj) : undefined);
export const list = (x: unknown): readonly unknown[] => (Array.isArray(x) ? x : []);
/** Any value as text, total (an object without a prototype has no toString). */
export const str = (x: unknown): string => {
  if (typeof x === 'string') return x;
  try {
    return typeof x === 'object' && x !== null ? (JSON.stringify(x) ?? '?') : String(x);
  } catch {
    return '?';
  }
};
export const quote = (items: readonly string[]): string => items.map((i) => JSON.stringify(i)).join(', ');
export const plural = (n: number, one: string, many: string): string => (n === 1 ? one : many);
export const sorted = (items: Iterable<string>): string[] => [...new Set(items)].sort();

export interface Visited { readonly name: string; readonly at: FieldPath; readonly c: Obj }

export function spec(pod: Pod): Obj {
  return obj(pod.spec) ?? {};
}

export function containers(pod: Pod): Visited[] {
  const s = spec(pod);
  return (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((field) =>
    list(s[field]).flatMap((raw) => {
      const c = obj(raw);
      return c ? [{ name: str(c.name), at: ['spec', field, { key: str(c.name) }], c }] : [];
    }));
}

export const securityContext = (c: Obj): Obj | undefined => obj(c.securityContext);
export const podSecurityContext = (pod: Pod): Obj | undefined => obj(spec(pod).securityContext);
/** Pods in a user namespace get the relaxations of v1.35 (upstream `relaxPolicyForUserNamespacePod`). */
export const inUserNamespace = (pod: Pod): boolean => spec(pod).hostUsers === false;
export const isWindows = (pod: Pod): boolean => obj(spec(pod).os)?.name === 'windows';

/** "pod and containers "a", "b"": who set the bad value. */
export function setters(pod: boolean, bad: readonly string[], annotations = 0): string {
  const who = [
    ...(pod ? ['pod'] : []),
    ...(bad.length > 0 ? [`${plural(bad.length, 'container', 'containers')} ${quote(bad)}`] : []),
    ...(annotations > 0 ? [plural(annotations, 'annotation', 'annotations')] : []),
  ];
  return who.join(' and ');
}

/**
 * The containers (and the pod) whose securityContext field `key` fails `ok`: the shape most
 * checks share. `value` is what is listed as the bad value.
 */
export function perContainer(pod: Pod, key: string, ok: (value: unknown) => boolean, value: (v: unknown) => string = str, podLevel = true): { podBad: boolean; bad: string[]; values: string[]; fields: FieldPath[] } {
  const bad: string[] = [];
  const values: string[] = [];
  const fields: FieldPath[] = [];
  const podValue = podLevel ? podSecurityContext(pod)?.[key] : undefined;
  const podBad = podValue !== undefined && !ok(podValue);
  if (podBad) {
    values.push(value(podValue));
    fields.push(['spec', 'securityContext', key]);
  }
  for (const { name, at, c } of containers(pod)) {
    const v = securityContext(c)?.[key];
    if (v !== undefined && !ok(v)) {
      bad.push(name);
      values.push(value(v));
      fields.push([...at, 'securityContext', key]);
    }
  }
  return { podBad, bad, values: sorted(values), fields };
}

export const windowsHostProcess: Check = (pod) => {
  const r = perContainer(pod, 'windowsOptions', (w) => obj(w)?.hostProcess !== true);
  if (!r.podBad && r.bad.length === 0) return undefined;
  return { check: 'windowsHostProcess', reason: 'hostProcess', detail: `${setters(r.podBad, r.bad)} must not set securityContext.windowsOptions.hostProcess=true`, fields: r.fields.map((f) => [...f, 'hostProcess']) };
};

export const hostNamespaces: Check = (pod) => {
  const set = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((f) => spec(pod)[f] === true);
  if (set.length === 0) return undefined;
  return { check: 'hostNamespaces', reason: 'host namespaces', detail: set.map((f) => `${f}=true`).join(', '), fields: set.map((f) => ['spec', f]) };
};

export const privileged: Check = (pod) => {
  const r = perContainer(pod, 'privileged', (v) => v !== true, str, false);
  if (r.bad.length === 0) return undefined;
  return { check: 'privileged', reason: 'privileged', detail: `${setters(false, r.bad)} must not set securityContext.privileged=true`, fields: r.fields };
};

/** The capabilities a container may add under baseline (the runtime's default set). */
export const BASELINE_CAPABILITIES: ReadonlySet<string> = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

export function addedBeyond(pod: Pod, allowed: (cap: string) => boolean): { bad: string[]; caps: string[]; fields: FieldPath[] } {
  const bad: string[] = [];
  const caps: string[] = [];
  const fields: FieldPath[] = [];
  for (const { name, at, c } of containers(pod)) {
    const extra = list(obj(securityContext(c)?.capabilities)?.add).map(str).filter((cap) => !allowed(cap));
    if (extra.length === 0) continue;
    bad.push(name);
    caps.push(...extra);
    fields.push([...at, 'securityContext', 'capabilities', 'add']);
  }
  return { bad, caps: sorted(caps), fields };
}

export const capabilitiesBaseline: Check = (pod) => {
  const r = addedBeyond(pod, (cap) => BASELINE_CAPABILITIES.has(cap));
  if (r.bad.length === 0) return undefined;
  return { check: 'capabilities_baseline', reason: 'non-default capabilities', detail: `${setters(false, r.bad)} must not include ${quote(r.caps)} in securityContext.capabilities.add`, fields: r.fields };
};

export const hostPathVolumes: Check = (pod) => {
  const named = list(spec(pod).volumes).map(obj).filter((v): v is Obj => v?.hostPath !== undefined && v.hostPath !== null).map((v) => str(v.name));
  if (named.length === 0) return undefined;
  return { check: 'hostPathVolumes', reason: 'hostPath volumes', detail: `${plural(named.length, 'volume', 'volumes')} ${quote(named)}`, fields: named.map((n) => ['spec', 'volumes', { key: n }, 'hostPath']) };
};

export const hostPorts: Check = (pod) => {
  const bad: string[] = [];
  const ports: string[] = [];
  const fields: FieldPath[] = [];
  for (const { name, at, c } of containers(pod)) {
    const used = list(c.ports).map(obj).filter((p): p is Obj => p !== undefined && p.hostPort !== undefined && p.hostPort !== null && p.hostPort !== 0);
    if (used.length === 0) continue;
    bad.push(name);
    for (const p of used) {
      ports.push(str(p.hostPort));
      fields.push([...at, 'ports', { key: str(p.containerPort) }, 'hostPort']);
    }
  }
  if (bad.length === 0) return undefined;
  const distinct = sorted(ports);
  return { check: 'hostPorts', reason: 'hostPort', detail: `${setters(false, bad)} ${plural(bad.length, 'uses', 'use')} ${plural(distinct.length, 'hostPort', 'hostPorts')} ${distinct.join(', ')}`, fields };
};

const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

export const appArmorProfile: Check = (pod) => {
  const r = perContainer(pod, 'appArmorProfile', (p) => ['RuntimeDefault', 'Localhost'].includes(str(obj(p)?.type)), (p) => str(obj(p)?.type));
  const annotations = Object.entries(obj(pod.metadata?.annotations) ?? {})
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION) && !(v === '' || v === 'runtime/default' || str(v).startsWith('localhost/')))
    .map(([k, v]) => ({ k, text: `${k}=${JSON.stringify(str(v))}` }))
    .sort((a, b) => (a.text < b.text ? -1 : 1));
  if (!r.podBad && r.bad.length === 0 && annotations.length === 0) return undefined;
  const values = [...r.values, ...annotations.map((a) => a.text)];
  return {
    check: 'appArmorProfile',
    reason: plural(values.length, 'forbidden AppArmor profile', 'forbidden AppArmor profiles'),
    detail: `${setters(r.podBad, r.bad, annotations.length)} must not set AppArmor profile type to ${quote(values)}`,
    fields: [...r.fields.map((f) => [...f, 'type']), ...annotations.map((a): FieldPath => ['metadata', 'annotations', a.k])],
  };
};

const SELINUX_TYPES: ReadonlySet<string> = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);

export const seLinuxOptions: Check = (pod) => {
  const types: string[] = [];
  let user = false;
  let role = false;
  const fields: FieldPath[] = [];
  const judge = (raw: unknown, at: FieldPath): boolean => {
    const o = obj(raw);
    if (!o) return true;
    const type = o.type === undefined ? '' : str(o.type);
    const badType = !SELINUX_TYPES.has(type);
    const badUser = o.user !== undefined && o.user !== '';
    const badRole = o.role !== undefined && o.role !== '';
    if (badType) { types.push(type); fields.push([...at, 'type']); }
    if (badUser) { user = true; fields.push([...at, 'user']); }
    if (badRole) { role = true; fields.push([...at, 'role']); }
    return !(badType || badUser || badRole);
  };
  const podBad = !judge(podSecurityContext(pod)?.seLinuxOptions, ['spec', 'securityContext', 'seLinuxOptions']);
  const bad = containers(pod).filter(({ at, c }) => !judge(securityContext(c)?.seLinuxOptions, [...at, 'securityContext', 'seLinuxOptions'])).map((v) => v.name);
  if (!podBad && bad.length === 0) return undefined;
  const distinct = sorted(types);
  const data = [
    ...(distinct.length > 0 ? [`${plural(distinct.length, 'type', 'types')} ${quote(distinct)}`] : []),
    ...(user ? ['user may not be set'] : []),
    ...(role ? ['role may not be set'] : []),
  ];
  return { check: 'seLinuxOptions', reason: 'seLinuxOptions', detail: `${setters(podBad, bad)} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`, fields };
};

/** procMount other than Default; baseline lets a pod in a user namespace choose (v1.35), restricted never. */
function procMountCheck(check: string, relaxed: boolean): Check {
  return (pod) => {
    if (relaxed && inUserNamespace(pod)) return undefined;
    const r = perContainer(pod, 'procMount', (v) => v === 'Default', str, false);
    if (r.bad.length === 0) return undefined;
    return { check, reason: 'procMount', detail: `${setters(false, r.bad)} must not set securityContext.procMount to ${quote(r.values)}`, fields: r.fields };
  };
}
export const procMountBaseline = procMountCheck('procMount', true);
export const procMountRestricted = procMountCheck('procMount_restricted', false);

export const validSeccomp = (p: unknown): boolean => ['RuntimeDefault', 'Localhost'].includes(str(obj(p)?.type));

export const seccompProfileBaseline: Check = (pod) => {
  const r = perContainer(pod, 'seccompProfile', validSeccomp, (p) => str(obj(p)?.type));
  if (!r.podBad && r.bad.length === 0) return undefined;
  return { check: 'seccompProfile_baseline', reason: 'seccompProfile', detail: `${setters(r.podBad, r.bad)} must not set securityContext.seccompProfile.type to ${quote(r.values)}`, fields: r.fields.map((f) => [...f, 'type']) };
};

/** The sysctls baseline allows: namespaced, and isolated from other pods (v1.32's list). */
export const SAFE_SYSCTLS: ReadonlySet<string> = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
]);

export const sysctls: Check = (pod) => {
  const names = list(podSecurityContext(pod)?.sysctls).map((s) => str(obj(s)?.name)).filter((n) => !SAFE_SYSCTLS.has(n));
  if (names.length === 0) return undefined;
  return { check: 'sysctls', reason: 'forbidden sysctls', detail: names.join(', '), fields: names.map((n) => ['spec', 'securityContext', 'sysctls', { key: n }]) };
};

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;

export const hostProbesAndHostLifecycle: Check = (pod) => {
  const bad: string[] = [];
  const hosts: string[] = [];
  const fields: FieldPath[] = [];
  for (const { name, at, c } of containers(pod)) {
    const handlers: Array<[FieldPath, unknown]> = [
      ...PROBES.map((p): [FieldPath, unknown] => [[...at, p], c[p]]),
      ...(['postStart', 'preStop'] as const).map((h): [FieldPath, unknown] => [[...at, 'lifecycle', h], obj(c.lifecycle)?.[h]]),
    ];
    let offends = false;
    for (const [where, raw] of handlers) {
      for (const kind of ['httpGet', 'tcpSocket'] as const) {
        const host = obj(obj(raw)?.[kind])?.host;
        if (host === undefined || host === '') continue;
        offends = true;
        hosts.push(str(host));
        fields.push([...where, kind, 'host']);
      }
    }
    if (offends) bad.push(name);
  }
  if (bad.length === 0) return undefined;
  const names = sorted(bad);
  const distinct = sorted(hosts);
  return {
    check: 'hostProbesAndHostLifecycle', reason: 'probe or lifecycle host',
    detail: `${setters(false, names)} ${plural(names.length, 'uses', 'use')} ${plural(distinct.length, 'probe or lifecycle host', 'probe or lifecycle hosts')} ${quote(distinct)}`,
    fields,
  };
};
