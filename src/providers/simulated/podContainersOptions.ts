/**
 * What a simulated pod's containers (podContainers.ts) are given: their owner, whose `pod` is the
 * pod as it is now, and the options every pod on the node shares.
 */
import type { Clock } from '../../lib/clock.js';
import type { Pod } from '../../adapters/kubernetes/model.js';
import type { ContainerEventRef } from '../registration.js';
import type { ConfigSource } from './configSource.js';
import type { ShellRunner } from './containerRuntime.js';
import type { ImageCommands } from './imageCommands.js';
import type { PodContainers } from './podContainers.js';
import type { PodProbesDeps } from './probes/podProbes.js';

/** Whose containers they are: the pod as it is now (spec and status) is `owner.pod`. */
export interface ContainersOwner {
  readonly pod: Pod;
}

/**
 * What every pod's containers on a node share: one object for the node, never one per pod (with
 * its closures, about 400 bytes an idle pod would keep); each call names the pod's owner.
 */
export interface PodContainersOptions<O extends ContainersOwner> {
  readonly clock: Clock;
  readonly imageCommands: ImageCommands;
  /** Where a command's ConfigMaps and Secrets come from; without one they are left out. */
  readonly configSource?: ConfigSource;
  readonly runShell?: ShellRunner;
  /** Servers of a Never/OnFailure pod exit 0 this long after they start (benchmarks); read once, when the pod's containers are made. */
  readonly exitAfterMs?: (pod: Pod) => number | undefined;
  /** An exec probe's command in a running container (the path exec sessions take); without it exec probes fail. */
  readonly runExec?: (owner: O, ...exec: Parameters<PodProbesDeps['runExec']>) => ReturnType<PodProbesDeps['runExec']>;
  /** A kubelet Event about one of the containers (its probes' `Unhealthy`, `Killing`). */
  readonly event?: (owner: O, type: 'Normal' | 'Warning', reason: string, note: string, container: ContainerEventRef) => void;
  readonly changed: (owner: O, containers: PodContainers<O>) => void;
}
