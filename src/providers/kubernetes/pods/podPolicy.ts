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
import type { FieldPath, FieldProblem } from '../../../lib/fieldProblem.js';
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

function allContainers(pod: Pod): Array<{ where: FieldPath; container: V1Container }> {
  const spec = pod.spec;
  return [
    ...(spec?.initContainers ?? []).map((c) => ({ where: ['spec', 'initContainers', { key: c.name }], container: c })),
    ...(spec?.containers ?? []).map((c) => ({ where: ['spec', 'containers', { key: c.name }], container: c })),
  ];
}

/**
 * Why the policy refuses this pod: one problem per offending field (entries named by their name,
 * ports by their container port), empty when it may be sent.
 */
export function policyViolations(pod: Pod, policy: PodPolicy): FieldProblem[] {
  const out: FieldProblem[] = [];
  if (refuses(policy, policy.refuseHostPath)) {
    for (const v of pod.spec?.volumes ?? []) {
      if (v.hostPath) out.push({ path: ['spec', 'volumes', { key: v.name }, 'hostPath'], value: v.hostPath.path, message: 'host paths are refused' });
    }
  }
  for (const { where, container } of allContainers(pod)) {
    if (refuses(policy, policy.refusePrivileged) && container.securityContext?.privileged === true) {
      out.push({ path: [...where, 'securityContext', 'privileged'], message: 'privileged containers are refused' });
    }
    if (!refuses(policy, policy.refuseHostPorts)) continue;
    for (const p of container.ports ?? []) {
      if (p.hostPort !== undefined && p.hostPort !== 0) {
        out.push({ path: [...where, 'ports', { key: String(p.containerPort) }, 'hostPort'], value: String(p.hostPort), message: 'host ports are refused' });
      }
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
