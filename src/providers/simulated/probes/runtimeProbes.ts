/**
 * A pod's probes as the container runtime (../podContainers.ts) runs them: exec probes through
 * the runtime's `runExec` (the path exec sessions take), a health change announced as a status
 * change, every failed attempt the kubelet's `Unhealthy` Event, and a liveness or startup failure
 * the kubelet's `Killing` Event and a kill (exit 137, as SIGKILL ends a process; the kubelet
 * sends TERM first, but a shell running as PID 1 ignores it). What follows the kill (a restart
 * with back-off, or none under `Never`) is the runtime's ordinary exit path.
 */
import type { Clock } from '../../../lib/clock.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { ContainerEventRef } from '../../registration.js';
import { podRestartPolicy, shouldRestart } from '../restartPolicy.js';
import { PodProbes, type PodProbesDeps } from './podProbes.js';

export interface RuntimeProbesOptions {
  readonly clock: Clock;
  readonly pod: () => Pod;
  readonly runExec?: PodProbesDeps['runExec'];
  readonly event?: (type: 'Normal' | 'Warning', reason: string, note: string, container: ContainerEventRef) => void;
  /** A container's health changed. */
  readonly changed: () => void;
  /** Whether the container runs and may still be killed (not while the pod stops). */
  readonly running: (container: string) => boolean;
  /** Ends the container's running instance with this exit code. */
  readonly kill: (container: string, exitCode: number) => void;
}

const KILLED_EXIT = 137;

export function runtimeProbes(options: RuntimeProbesOptions): PodProbes {
  const event = (type: 'Normal' | 'Warning', reason: string, action: string, note: string, container: string): void =>
    options.event?.(type, reason, note, { fieldPath: `spec.containers{${container}}`, action });
  return new PodProbes(options.pod, {
    clock: options.clock,
    runExec: options.runExec ?? (() => Promise.reject(new Error('exec probes are not run on this node'))),
    changed: options.changed,
    probeFailed: (container, _kind, message) => event('Warning', 'Unhealthy', 'Unhealthy', message, container),
    kill: (container, message) => {
      if (!options.running(container)) return;
      // The kubelet's words (kuberuntime_manager.go): ", will be restarted" when the policy restarts it.
      const restarts = shouldRestart(podRestartPolicy(options.pod().spec), KILLED_EXIT);
      event('Normal', 'Killing', 'Kill', restarts ? `${message}, will be restarted` : message, container);
      options.kill(container, KILLED_EXIT);
    },
  });
}
