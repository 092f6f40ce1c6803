import type { Node, NodeCondition, NodeStatus, NodeSystemInfo } from '../../adapters/kubernetes/model.js';
import type { NodeMetadataPatch } from '../../adapters/kubernetes/nodeApi.js';
import { defaultTaints, type NodeConfig } from './config.js';
import type { NodeFacts, NodeState } from './protocol.js';
import { ifDefined } from '../../lib/defaults.js';

/**
 * Pure builders of the Node object Tether wants: labels, taints, the create body and the status
 * patch. Kept apart from `decide` so the shape of the Node is readable in one place.
 */

/** What `decide` and the effects know about the node besides its state. */
export interface NodeSettings {
  readonly config: NodeConfig;
  readonly providerName: string;
}

/** Remembers which labels Tether set, so a label dropped from the configuration is removed. */
export const OWNED_LABELS_ANNOTATION = 'tether.dev/owned-labels';

/** The condition types Tether writes. Only these are sent, so other writers' conditions survive. */
export const OWN_CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

const PRESSURE = [
  { type: 'MemoryPressure', reason: 'KubeletHasSufficientMemory', message: 'kubelet has sufficient memory available' },
  { type: 'DiskPressure', reason: 'KubeletHasNoDiskPressure', message: 'kubelet has no disk pressure' },
  { type: 'PIDPressure', reason: 'KubeletHasSufficientPID', message: 'kubelet has sufficient PID available' },
] as const;

/** The labels Tether owns on the Node: configured ones first, Tether's own win on conflict. */
export function ownedLabels(settings: NodeSettings, facts: NodeFacts): Record<string, string> {
  const { config, providerName } = settings;
  return {
    ...config.labels,
    type: 'virtual-kubelet',
    'kubernetes.io/role': 'agent',
    'node.kubernetes.io/exclude-from-external-load-balancers': 'true',
    'kubernetes.io/hostname': config.nodeName,
    'kubernetes.io/os': facts.info.operatingSystem,
    'kubernetes.io/arch': facts.info.architecture,
    'tether.dev/provider': providerName,
  };
}

export function ownedTaints(settings: NodeSettings): NonNullable<Node['spec']>['taints'] {
  return [...(settings.config.taints ?? defaultTaints(settings.providerName))];
}

/** The Node to create when none exists: metadata, taints, and status without conditions. */
export function desiredNode(settings: NodeSettings, facts: NodeFacts): Node {
  const labels = ownedLabels(settings, facts);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: settings.config.nodeName,
      labels,
      annotations: { [OWNED_LABELS_ANNOTATION]: Object.keys(labels).sort().join(',') },
    },
    spec: { taints: ownedTaints(settings) },
    status: staticStatus(settings, facts),
  };
}

/**
 * The metadata patch that makes an existing Node carry exactly the labels Tether owns: sets them,
 * removes the ones Tether set before but no longer wants, and leaves everyone else's alone.
 * Taints of an existing Node are not touched: an operator may have changed them on purpose.
 * Undefined when the Node carries them already (a restart): the kubelet, too, patches its
 * registered Node only when a default label differs.
 */
export function labelPatch(settings: NodeSettings, facts: NodeFacts, existing: Node): NodeMetadataPatch | undefined {
  const wanted = ownedLabels(settings, facts);
  const owned = Object.keys(wanted).sort().join(',');
  const current = existing.metadata?.labels ?? {};
  const annotated = existing.metadata?.annotations?.[OWNED_LABELS_ANNOTATION];
  if (annotated === owned && Object.entries(wanted).every(([key, value]) => current[key] === value)) return undefined;
  const before = annotated?.split(',').filter((k) => k !== '') ?? [];
  const labels: Record<string, string | null> = { ...wanted };
  for (const key of before) if (!(key in wanted)) labels[key] = null;
  return { labels, annotations: { [OWNED_LABELS_ANNOTATION]: owned } };
}

function nodeInfo(settings: NodeSettings, facts: NodeFacts): NodeSystemInfo {
  return {
    machineID: '',
    systemUUID: '',
    bootID: '',
    kubeProxyVersion: '',
    ...facts.info,
    kubeletVersion: settings.config.kubeletVersion,
  };
}

/**
 * What the node declares it can do (`status.declaredFeatures`, sorted, as the API server
 * validates it): `ExtendWebSocketsToKubelet` makes a 1.36+ API server hand exec, attach and
 * port-forward WebSockets straight to Tether's kubelet API instead of translating them to SPDY.
 * client-node's NodeStatus predates the field, hence the wider type.
 */
export const DECLARED_FEATURES: readonly string[] = ['ExtendWebSocketsToKubelet'];

/** The status fields that do not depend on health. */
function staticStatus(settings: NodeSettings, facts: NodeFacts | undefined): Partial<NodeStatus> & { declaredFeatures: string[] } {
  const { config } = settings;
  return {
    declaredFeatures: [...DECLARED_FEATURES],
    // Only the InternalIP: API servers try a Hostname address first by default, and a virtual
    // node's name resolves nowhere, so `kubectl logs` would fail before reaching the kubelet API.
    addresses: [{ type: 'InternalIP', address: config.internalIP }],
    daemonEndpoints: { kubeletEndpoint: { Port: config.kubeletPort } },
    ...ifDefined(facts, (f) => ({
      capacity: { ...f.resources.capacity },
      allocatable: { ...f.resources.allocatable },
      nodeInfo: nodeInfo(settings, f),
    })),
  };
}

/**
 * The status patch: Tether's conditions with a heartbeat of `now`, plus addresses, endpoints,
 * capacity and node info. Ready is left out until the first ping has answered, so a restarted
 * actor never flips a Ready node to NotReady while it finds out.
 */
export function statusPatch(settings: NodeSettings, state: NodeState, now: number): Partial<NodeStatus> {
  const heartbeat = new Date(now);
  const conditions: NodeCondition[] = [];
  if (state.readiness) {
    conditions.push({
      type: 'Ready',
      status: state.readiness.ready ? 'True' : 'False',
      reason: state.readiness.reason,
      message: state.readiness.message,
      lastHeartbeatTime: heartbeat,
      lastTransitionTime: new Date(state.readySince),
    });
  }
  for (const p of PRESSURE) {
    conditions.push({ ...p, status: 'False', lastHeartbeatTime: heartbeat, lastTransitionTime: new Date(state.pressureSince) });
  }
  return { conditions, ...staticStatus(settings, state.facts) };
}

/** Milliseconds of a Kubernetes time, which a client may hand over as a Date or as a string. */
export function timeOf(value: Date | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A condition of the stored Node, with its transition time in ms. */
export function storedCondition(node: Node, type: string): { status: string; since: number } | undefined {
  const condition = node.status?.conditions?.find((c) => c.type === type);
  const since = timeOf(condition?.lastTransitionTime as Date | string | undefined);
  return condition && since !== undefined ? { status: condition.status, since } : undefined;
}
