/**
 * What a virtual node refuses to send to its remote cluster. Pure. A host user who may create a pod
 * on the virtual node would otherwise get whatever the remote allows, on machines they may have no
 * right to; these checks run before anything is sent, and a refusal is invalid input (the pod
 * actor's rejection path: an annotation and an Event on the host pod, no retry).
 *
 * - Pod Security: the node's level (`podSecurityLevel`, default `baseline`) is checked in full,
 *   each check of the upstream profile (podSecurityChecks.ts, podSecurityRestricted.ts), with
 *   PodSecurity admission's wording, so the pod is refused here with a clear reason instead of a
 *   remote 403; and the namespaces Tether creates carry `pod-security.kubernetes.io/enforce:
 *   <level>`, so the remote's admission applies it whatever Tether checks. `privileged` checks
 *   nothing. `refuseHostPath`, `refusePrivileged`, `refuseHostPorts` turn one check off (false) or
 *   on under `privileged` (true).
 * - With the `same-name` strategy, the remote's system namespaces (kube-system, kube-public,
 *   kube-node-lease) are never a target, nor `default` unless allowed.
 * - Existing remote namespaces Tether did not make are used only if listed in `adoptNamespaces`
 *   (remoteNamespaces.ts); `allowDefaultNamespace` lists `default`.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { NamespaceStrategy } from '../namespaceMapping.js';
import {
  appArmorProfile, capabilitiesBaseline, hostNamespaces, hostPathVolumes, hostPorts, hostProbesAndHostLifecycle, privileged, procMountBaseline,
  procMountRestricted, seccompProfileBaseline, seLinuxOptions, sysctls, windowsHostProcess, type Check, type PolicyViolation,
} from './podSecurityChecks.js';
import {
  allowPrivilegeEscalation, capabilitiesRestricted, restrictedVolumes, runAsNonRoot, runAsUser, seccompProfileRestricted,
} from './podSecurityRestricted.js';

export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';
export const DEFAULT_POD_SECURITY_LEVEL: PodSecurityLevel = 'baseline';

/** What happens to a projected `serviceAccountToken` source in a pod's own volumes (podTranslation.ts). */
export type ProjectedTokenRule = 'refuse' | 'drop';
export const DEFAULT_PROJECTED_TOKEN_RULE: ProjectedTokenRule = 'refuse';

export interface PodPolicy {
  readonly podSecurityLevel?: PodSecurityLevel;
  readonly refuseHostPath?: boolean;
  readonly refusePrivileged?: boolean;
  readonly refuseHostPorts?: boolean;
  /** With `same-name`, may pods of the host's `default` namespace go to the remote's `default`? */
  readonly allowDefaultNamespace?: boolean;
  /** Remote namespaces used as they are although Tether did not create them (remoteNamespaces.ts). */
  readonly adoptNamespaces?: readonly string[];
  /** Default `refuse`: a pod whose own projected volume asks for a ServiceAccount token is refused. */
  readonly projectedServiceAccountTokens?: ProjectedTokenRule;
}

export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease'];

/** The labels of a remote namespace Tether creates. */
export function podSecurityLabels(level: PodSecurityLevel = DEFAULT_POD_SECURITY_LEVEL): Record<string, string> {
  return { 'pod-security.kubernetes.io/enforce': level, 'pod-security.kubernetes.io/enforce-version': 'latest' };
}

/** The remote namespaces a node may use without Tether's marks. */
export function adoptableNamespaces(policy: PodPolicy): ReadonlySet<string> {
  return new Set([...(policy.adoptNamespaces ?? []), ...(policy.allowDefaultNamespace === true ? ['default'] : [])]);
}

/** One level's checks, in upstream's order; restricted replaces the baseline checks it tightens. */
function checksOf(policy: PodPolicy): Check[] {
  const level = policy.podSecurityLevel ?? DEFAULT_POD_SECURITY_LEVEL;
  const on = (explicit: boolean | undefined): boolean => explicit ?? level !== 'privileged';
  const restricted = level === 'restricted';
  const baseline = level !== 'privileged';
  return [
    ...(baseline ? [windowsHostProcess, hostNamespaces] : []),
    ...(on(policy.refusePrivileged) ? [privileged] : []),
    ...(baseline ? [restricted ? capabilitiesRestricted : capabilitiesBaseline] : []),
    ...(restricted ? [restrictedVolumes(policy.refuseHostPath === false)] : on(policy.refuseHostPath) ? [hostPathVolumes] : []),
    ...(on(policy.refuseHostPorts) ? [hostPorts] : []),
    ...(baseline ? [appArmorProfile, seLinuxOptions, restricted ? procMountRestricted : procMountBaseline] : []),
    ...(baseline ? [restricted ? seccompProfileRestricted : seccompProfileBaseline, sysctls, hostProbesAndHostLifecycle] : []),
    ...(restricted ? [allowPrivilegeEscalation, runAsNonRoot, runAsUser] : []),
  ];
}

/** Why the policy refuses this pod: one violation per failed check, naming its fields; empty when it may be sent. */
export function policyViolations(pod: Pod, policy: PodPolicy): PolicyViolation[] {
  return checksOf(policy).flatMap((check) => check(pod) ?? []);
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
