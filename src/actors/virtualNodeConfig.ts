/**
 * One virtual node's settings, as an operator writes them (the config file's `nodes[]` entry has
 * exactly this shape, less its provider), and the one function that turns them into the
 * configuration of each actor of the node's subtree. Defaults live in each actor's own config.ts;
 * nothing else maps settings to actor configs.
 */
import type { Taint } from '../adapters/kubernetes/model.js';
import { under, type FieldProblem } from '../lib/fieldProblem.js';
import { DEFAULT_DAEMON_SET_POLICY, type DaemonSetPolicy } from './admission/daemonSets.js';
import type { RestartPolicy } from '../supervisors/restartPolicy.js';
import { validateLeaseConfig, withLeaseDefaults, type LeaseConfig } from './lease/config.js';
import type { BackoffPolicy } from '../lib/backoff.js';
import { validateNodeConfig, withNodeDefaults, type NodeConfig, type PingConfig } from './node/config.js';
import { validatePodConfig, withPodDefaults, type PodActorConfig } from './pod/config.js';
import { withControllerDefaults, type ControllerConfig } from './podController/config.js';

/** Everything but the name and the address may be left out (or be `undefined`). */
export interface VirtualNodeSettings {
  readonly name: string;
  /** Where Tether's kubelet API listens, as the API server reaches it. */
  readonly internalIP: string;
  readonly kubeletPort?: number | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly taints?: readonly Taint[] | undefined;
  readonly ping?: Partial<PingConfig> | undefined;
  readonly statusIntervalMs?: number | undefined;
  /** The node actor's write retries. */
  readonly retry?: Partial<BackoffPolicy> | undefined;
  readonly lease?: Partial<Omit<LeaseConfig, 'nodeName' | 'retry'> & { readonly retry: Partial<LeaseConfig['retry']> }> | undefined;
  readonly pod?: Partial<Omit<PodActorConfig, 'nodeName' | 'retry'> & { readonly retry: Partial<BackoffPolicy> }> | undefined;
  /** How often the pod controller sweeps for orphans at the provider. */
  readonly sweepIntervalMs?: number | undefined;
  /** How many shard supervisors hold this node's pod actors. */
  readonly shards?: number | undefined;
  /** Kubelet admission: what to do with DaemonSet pods (src/actors/admission/daemonSets.ts). */
  readonly admission?: { readonly daemonSets?: DaemonSetPolicy | undefined } | undefined;
}

export interface VirtualNodeConfig {
  readonly node: NodeConfig;
  readonly lease: LeaseConfig;
  readonly pod: PodActorConfig;
  readonly controller: ControllerConfig;
  /** How many shard supervisors hold this node's pod actors. */
  readonly shards: number;
  readonly admission: { readonly daemonSets: DaemonSetPolicy };
  readonly nodePolicy?: RestartPolicy | undefined;
  readonly podPolicy?: RestartPolicy | undefined;
}

/** Enough shards that no supervisor holds more than a few hundred pods at 10k (docs/architecture.md). */
export const DEFAULT_SHARDS = 32;

export function virtualNodeConfig(settings: VirtualNodeSettings): VirtualNodeConfig {
  const nodeName = settings.name;
  return {
    node: withNodeDefaults({
      nodeName,
      internalIP: settings.internalIP,
      kubeletPort: settings.kubeletPort,
      labels: settings.labels,
      taints: settings.taints,
      ping: settings.ping,
      statusIntervalMs: settings.statusIntervalMs,
      retry: settings.retry,
    }),
    lease: withLeaseDefaults({ ...settings.lease, nodeName }),
    pod: withPodDefaults({ ...settings.pod, nodeName }),
    controller: withControllerDefaults({ nodeName, sweepIntervalMs: settings.sweepIntervalMs }),
    shards: settings.shards ?? DEFAULT_SHARDS,
    admission: { daemonSets: settings.admission?.daemonSets ?? DEFAULT_DAEMON_SET_POLICY },
  };
}

/** Every cross-field problem of the settings, each with its path in the settings (`['lease', 'renewIntervalMs']`). */
export function virtualNodeProblems(settings: VirtualNodeSettings): FieldProblem[] {
  const config = virtualNodeConfig(settings);
  const node = validateNodeConfig(config.node).map((p) => (p.path[0] === 'nodeName' ? { ...p, path: ['name', ...p.path.slice(1)] } : p));
  return [...node, ...under(['lease'], validateLeaseConfig(config.lease)), ...under(['pod'], validatePodConfig(config.pod))];
}
