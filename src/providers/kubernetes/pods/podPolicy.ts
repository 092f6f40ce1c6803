/**
 * What a virtual node refuses to send to its remote cluster. Pure. A host user who may create a pod
 * on the virtual node would otherwise get whatever the remote allows, on machines they may have no
 * right to; these checks run before anything is sent, and a refusal is invalid input (the pod
 * actor's rejection path: an annotation and an Event on the host pod, no retry).
 *
 * - Pod Security: namespaces Tether creates carry `pod-security.kubernetes.io/enforce: <level>`
 *   (default `baseline`), so the remote's admission applies it whatever Tether checks.
 * - The pod policy refuses hostPath volumes, privileged containers and host ports; by default
 *   when the level is `baseline` or `restricted` (what the remote would refuse anyway, refused here
 *   with a clear reason instead of a remote 403), never when it is `privileged`. Each can be set.
 * - With the `same-name` strategy, the remote's system namespaces (kube-system, kube-public,
 *   kube-node-lease) are never a target, nor `default` unless allowed.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { V1Container } from '@kubernetes/client-node';
import type { NamespaceStrategy } from '../namespaceMapping.js';

export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';
export const DEFAULT_POD_SECURITY_LEVEL: PodSecurityLevel = 'baseline';

export interface PodPolicy {
  readonly podSecurityLevel?: PodSecurityLevel;
  readonly refuseHostPath?: boolean;
  readonly refusePrivileged?: boolean;
  readonly refuseHostPorts?: boolean;
  /** With `same-name`, may pods of the host's `default` namespace go to the remote's `default`? */
  readonly allowDefaultNamespace?: boolean;
}

export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease'];

/** The labels of a remote namespace Tether creates. */
export function podSecurityLabels(level: PodSecurityLevel = DEFAULT_POD_SECURITY_LEVEL): Record<string, string> {
  return { 'pod-security.kubernetes.io/enforce': level, 'pod-security.kubernetes.io/enforce-version': 'latest' };
}

function refuses(policy: PodPolicy, explicit: boolean | undefined): boolean {
  return explicit ?? (policy.podSecurityLevel ?? DEFAULT_POD_SECURITY_LEVEL) !== 'privileged';
}

function allContainers(pod: Pod): Array<{ where: string; container: V1Container }> {
  const spec = pod.spec;
  return [
    ...(spec?.initContainers ?? []).map((c) => ({ where: `spec.initContainers[${c.name}]`, container: c })),
    ...(spec?.containers ?? []).map((c) => ({ where: `spec.containers[${c.name}]`, container: c })),
  ];
}

/** Why the policy refuses this pod: one line per offending field, empty when it may be sent. */
export function policyViolations(pod: Pod, policy: PodPolicy): string[] {
  const out: string[] = [];
  if (refuses(policy, policy.refuseHostPath)) {
    for (const v of pod.spec?.volumes ?? []) if (v.hostPath) out.push(`spec.volumes[${v.name}].hostPath (${v.hostPath.path}): host paths are refused`);
  }
  for (const { where, container } of allContainers(pod)) {
    if (refuses(policy, policy.refusePrivileged) && container.securityContext?.privileged === true) {
      out.push(`${where}.securityContext.privileged: privileged containers are refused`);
    }
    if (refuses(policy, policy.refuseHostPorts)) {
      for (const p of container.ports ?? []) if (p.hostPort !== undefined && p.hostPort !== 0) out.push(`${where}.ports[${p.containerPort}].hostPort (${p.hostPort}): host ports are refused`);
    }
  }
  return out;
}

/** Why a remote namespace may not be a target, or undefined when it may. */
export function namespaceRefusal(remoteNamespace: string, strategy: NamespaceStrategy, policy: PodPolicy): string | undefined {
  if (strategy !== 'same-name') return undefined;
  if (SYSTEM_NAMESPACES.includes(remoteNamespace)) return `namespace ${remoteNamespace} is a system namespace of the remote cluster; the same-name strategy never maps onto it`;
  if (remoteNamespace === 'default' && policy.allowDefaultNamespace !== true) {
    return 'namespace default would map onto the remote cluster\'s default namespace; set allowDefaultNamespace on this node to allow it';
  }
  return undefined;
}
