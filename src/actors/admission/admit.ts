/**
 * Kubelet admission, decided before the provider is asked: the checks of kubelet v1.36.3's
 * predicate admit handler (pkg/kubelet/lifecycle/predicate.go), in its order and with its reasons
 * and messages, for every provider alike. Pure: (node, what the pods already admitted use, pod, policy) ->
 * admit | reject. A rejected pod becomes Failed with `reason` and "Pod was rejected: <message>".
 */
import type { Node, Pod } from '../../adapters/kubernetes/model.js';
import type { PodFeature } from '../../providers/provider.js';
import { daemonSetVerdict, type DaemonSetPolicy, type OwnerWarning } from './daemonSets.js';
import { matchesNodeAffinity } from './nodeAffinity.js';
import { hostPortsOf, type NodeUsage } from './nodeUsage.js';
import { amountOf, podRequests } from './podRequests.js';

/** `ownerWarning`: the rejected pod's owner is told too (a DaemonSet, once per node: admittedPods.ts). */
export type Verdict = { readonly admit: true } | { readonly admit: false; readonly reason: string; readonly message: string; readonly ownerWarning?: OwnerWarning };

/** Features a pod may ask for that a provider must declare it supports (provider.ts `PodFeatureProvider`). */
export const POD_FEATURES: readonly PodFeature[] = ['hostNetwork', 'hostPID', 'hostIPC'];

export interface AdmissionPolicy {
  readonly daemonSets: DaemonSetPolicy;
  /** The features the node's provider runs; a pod asking for another is rejected (`UnsupportedPodFeature`). */
  readonly features: ReadonlySet<PodFeature>;
}

const admitted: Verdict = { admit: true };
const reject = (reason: string, message: string): Verdict => ({ admit: false, reason, message });
const predicate = (name: string, desc: string): Verdict => reject(name, `Predicate ${name} failed: ${desc}`);

/**
 * `node` is the Node as the host API server has it (labels and allocatable included); `others`
 * what the pods admitted before and not terminal use, not including `pod` (nodeUsage.ts).
 */
export function admit(node: Node | undefined, others: NodeUsage, pod: Pod, policy: AdmissionPolicy): Verdict {
  if (!node) return reject('InvalidNodeInfo', 'Kubelet cannot get node info.');
  const nodeOs = node.metadata?.labels?.['kubernetes.io/os'] ?? node.status?.nodeInfo?.operatingSystem;
  const podOsLabel = pod.metadata?.labels?.['kubernetes.io/os'];
  if (podOsLabel !== undefined && podOsLabel !== nodeOs) {
    return reject('PodOSSelectorNodeLabelDoesNotMatch', "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label");
  }
  if (pod.spec?.os?.name !== undefined && pod.spec.os.name !== nodeOs) return reject('PodOSNotSupported', "Failed to admit pod as the OS field doesn't match node OS");
  const daemonSet = daemonSetVerdict(pod, policy.daemonSets);
  if (daemonSet) return daemonSet;
  const feature = POD_FEATURES.find((f) => pod.spec?.[f] === true && !policy.features.has(f));
  if (feature) return reject('UnsupportedPodFeature', `Failed to admit pod as ${feature} is not supported by this node's provider`);
  return generalPredicates(node, others, pod);
}

/** The scheduler's admission check as the kubelet runs it; the first failure decides. */
function generalPredicates(node: Node, others: NodeUsage, pod: Pod): Verdict {
  const resources = insufficientResource(node, others, pod);
  if (resources) return resources;
  if (!matchesNodeAffinity(pod, node)) return predicate('NodeAffinity', "node(s) didn't match Pod's node affinity/selector");
  if (pod.spec?.nodeName && pod.spec.nodeName !== node.metadata?.name) return predicate('NodeName', "node(s) didn't match the requested node name");
  if (hostPortsConflict(others, pod)) return predicate('NodePorts', "node(s) didn't have free ports for the requested pod ports");
  return admitted;
}

const reasonFor = (resource: string): string => `OutOf${resource}`;
const notEnough = (resource: string, requested: number, used: number, capacity: number): Verdict =>
  reject(reasonFor(resource), `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`);

function insufficientResource(node: Node, others: NodeUsage, pod: Pod): Verdict | undefined {
  const allocatable = node.status?.allocatable ?? {};
  const allowedPods = amountOf('pods', allocatable['pods'] ?? '0');
  if (others.pods + 1 > allowedPods) return notEnough('pods', 1, others.pods, allowedPods);
  const wanted = podRequests(pod);
  const used = others.requests;
  // Named resources first (cpu, memory, ephemeral-storage), then the rest; the kubelet ignores an
  // extended resource the node does not have at all.
  const order = ['cpu', 'memory', 'ephemeral-storage', ...Object.keys(wanted).filter((r) => !['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(r)).sort()];
  for (const resource of order) {
    const requested = wanted[resource] ?? 0;
    if (requested <= 0) continue;
    const quantity = allocatable[resource];
    if (quantity === undefined && isExtended(resource)) continue;
    const capacity = quantity === undefined ? 0 : amountOf(resource, quantity);
    const inUse = used[resource] ?? 0;
    if (requested > capacity - inUse) return notEnough(resource, requested, inUse, capacity);
  }
  return undefined;
}

/** Extended resources are domain-qualified, outside kubernetes.io (v1helper.IsExtendedResourceName), or hugepages-free scalars. */
const isExtended = (resource: string): boolean => resource.includes('/') && !resource.startsWith('kubernetes.io/') && !resource.startsWith('requests.');

/** The same port and protocol, on the same address or either on every address (0.0.0.0). */
function hostPortsConflict(others: NodeUsage, pod: Pod): boolean {
  const wanted = hostPortsOf(pod);
  if (wanted.length === 0) return false;
  const taken = others.hostPorts();
  return wanted.some((w) => taken.some((t) => t.port === w.port && t.protocol === w.protocol && (t.ip === w.ip || t.ip === '0.0.0.0' || w.ip === '0.0.0.0')));
}
