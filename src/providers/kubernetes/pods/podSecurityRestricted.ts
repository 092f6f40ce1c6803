/**
 * What the Pod Security `restricted` level adds to `baseline` (pod-security-admission v0.36.3,
 * `policy/check_*.go`, the latest version of each): volume types, privilege escalation, non-root,
 * runAsUser, a required seccomp profile, capabilities. Pure and total, as podSecurityChecks.ts,
 * whose helpers it shares. Windows pods are exempt from the Linux-only checks (v1.25), pods in a
 * user namespace (`hostUsers: false`) from the user checks (v1.35), as upstream.
 */
import type { FieldPath } from '../../../lib/fieldProblem.js';
import {
  addedBeyond, containers, inUserNamespace, isWindows, list, obj, perContainer, plural, podSecurityContext, quote, securityContext, setters, sorted, spec, str, validSeccomp,
  type Check,
} from './podSecurityChecks.js';

/** The inline volume sources restricted allows. */
export const RESTRICTED_VOLUME_SOURCES: ReadonlySet<string> = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret']);

/** Restricted volume types; `allowHostPath` when the node's `refuseHostPath: false` lets hostPath through. */
export function restrictedVolumes(allowHostPath: boolean): Check {
  return (pod) => {
    const bad: string[] = [];
    const types: string[] = [];
    const fields: FieldPath[] = [];
    for (const raw of list(spec(pod).volumes)) {
      const v = obj(raw);
      if (!v) continue;
      const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== undefined && v[k] !== null);
      if (sources.some((k) => RESTRICTED_VOLUME_SOURCES.has(k))) continue;
      const type = sources[0] ?? 'unknown';
      if (type === 'hostPath' && allowHostPath) continue;
      bad.push(str(v.name));
      types.push(type);
      fields.push(['spec', 'volumes', { key: str(v.name) }, ...(type === 'unknown' ? [] : [type])]);
    }
    if (bad.length === 0) return undefined;
    const distinct = sorted(types);
    return {
      check: 'restrictedVolumes', reason: 'restricted volume types',
      detail: `${plural(bad.length, 'volume', 'volumes')} ${quote(bad)} ${plural(bad.length, 'uses', 'use')} ${plural(distinct.length, 'restricted volume type', 'restricted volume types')} ${quote(distinct)}`,
      fields,
    };
  };
}

export const allowPrivilegeEscalation: Check = (pod) => {
  if (isWindows(pod)) return undefined;
  const bad = containers(pod).filter(({ c }) => securityContext(c)?.allowPrivilegeEscalation !== false);
  if (bad.length === 0) return undefined;
  return {
    check: 'allowPrivilegeEscalation', reason: 'allowPrivilegeEscalation != false',
    detail: `${setters(false, bad.map((b) => b.name))} must set securityContext.allowPrivilegeEscalation=false`,
    fields: bad.map(({ at }) => [...at, 'securityContext', 'allowPrivilegeEscalation']),
  };
};

export const runAsNonRoot: Check = (pod) => {
  if (inUserNamespace(pod)) return undefined;
  const podValue = podSecurityContext(pod)?.runAsNonRoot;
  const explicit = perContainer(pod, 'runAsNonRoot', (v) => v !== false);
  const podBad = podValue !== undefined && podValue !== true;
  if (podBad || explicit.bad.length > 0) {
    return { check: 'runAsNonRoot', reason: 'runAsNonRoot != true', detail: `${setters(podBad, explicit.bad)} must not set securityContext.runAsNonRoot=false`, fields: explicit.fields };
  }
  if (podValue === true) return undefined;
  const implicit = containers(pod).filter(({ c }) => securityContext(c)?.runAsNonRoot === undefined);
  if (implicit.length === 0) return undefined;
  return {
    check: 'runAsNonRoot', reason: 'runAsNonRoot != true',
    detail: `pod or ${setters(false, implicit.map((i) => i.name))} must set securityContext.runAsNonRoot=true`,
    fields: [['spec', 'securityContext', 'runAsNonRoot'], ...implicit.map(({ at }): FieldPath => [...at, 'securityContext', 'runAsNonRoot'])],
  };
};

export const runAsUser: Check = (pod) => {
  if (inUserNamespace(pod)) return undefined;
  const r = perContainer(pod, 'runAsUser', (v) => v !== 0);
  if (!r.podBad && r.bad.length === 0) return undefined;
  return { check: 'runAsUser', reason: 'runAsUser=0', detail: `${setters(r.podBad, r.bad)} must not set runAsUser=0`, fields: r.fields };
};

export const seccompProfileRestricted: Check = (pod) => {
  if (isWindows(pod)) return undefined;
  const r = perContainer(pod, 'seccompProfile', validSeccomp, (p) => str(obj(p)?.type));
  if (r.podBad || r.bad.length > 0) {
    return { check: 'seccompProfile_restricted', reason: 'seccompProfile', detail: `${setters(r.podBad, r.bad)} must not set securityContext.seccompProfile.type to ${quote(r.values)}`, fields: r.fields.map((f) => [...f, 'type']) };
  }
  if (podSecurityContext(pod)?.seccompProfile !== undefined) return undefined;
  const implicit = containers(pod).filter(({ c }) => securityContext(c)?.seccompProfile === undefined);
  if (implicit.length === 0) return undefined;
  return {
    check: 'seccompProfile_restricted', reason: 'seccompProfile',
    detail: `pod or ${setters(false, implicit.map((i) => i.name))} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    fields: [['spec', 'securityContext', 'seccompProfile', 'type'], ...implicit.map(({ at }): FieldPath => [...at, 'securityContext', 'seccompProfile', 'type'])],
  };
};

export const capabilitiesRestricted: Check = (pod) => {
  if (isWindows(pod)) return undefined;
  const missingDrop = containers(pod).filter(({ c }) => !list(obj(securityContext(c)?.capabilities)?.drop).includes('ALL'));
  const added = addedBeyond(pod, (cap) => cap === 'NET_BIND_SERVICE');
  const details = [
    ...(missingDrop.length > 0 ? [`${setters(false, missingDrop.map((m) => m.name))} must set securityContext.capabilities.drop=["ALL"]`] : []),
    ...(added.bad.length > 0 ? [`${setters(false, added.bad)} must not include ${quote(added.caps)} in securityContext.capabilities.add`] : []),
  ];
  if (details.length === 0) return undefined;
  return {
    check: 'capabilities_restricted', reason: 'unrestricted capabilities', detail: details.join('; '),
    fields: [...missingDrop.map(({ at }): FieldPath => [...at, 'securityContext', 'capabilities', 'drop']), ...added.fields],
  };
};
