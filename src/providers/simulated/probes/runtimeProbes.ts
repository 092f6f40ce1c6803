/**
 * A pod's probes as the container runtime (../podContainers.ts) runs them: exec probes through
 * the runtime's `runExec` (the path exec sessions take), a health change announced as a status
 * change, every failed attempt the kubelet's `Unhealthy` Event, and a liveness or startup failure
 * the kubelet's `Killing` Event and a kill as killContainer does it: TERM, then KILL (137) at the
 * grace deadline (probeKillGraceMs). What follows (a restart with back-off, or none under Never)
 * is the runtime's ordinary exit path, except that a probe-killed container restarts unless the
 * policy is Never whatever it exits with, as computePodActions decides (../restartPolicy.ts).
 */
import type { Clock } from '../../../lib/clock.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import type { ContainerEventRef } from '../../registration.js';
import { podRestartPolicy } from '../restartPolicy.js';
import { PodProbes, probedContainers, type PodProbesDeps } from './podProbes.js';

export interface RuntimeProbesOptions {
  readonly clock: Clock;
  readonly pod: () => Pod;
  readonly runExec?: PodProbesDeps['runExec'];
  readonly event?: (type: 'Normal' | 'Warning', reason: string, note: string, container: ContainerEventRef) => void;
  /** A container's health changed. */
  readonly changed: () => void;
  /** Whether the container runs and may still be killed (not while the pod stops). */
  readonly running: (container: string) => boolean;
  /** Stops the container's running instance: TERM now, KILL once `gracePeriodMs` has passed. */
  readonly kill: (container: string, gracePeriodMs: number) => void;
}

/** kuberuntime's minimumGracePeriodInSeconds. */
const MINIMUM_GRACE_SECONDS = 2;

/**
 * The grace of a kill for a failed probe (setTerminationGracePeriod): the pod's deletion grace
 * when it is being deleted, else the probe's `terminationGracePeriodSeconds`, else the pod's
 * (30 s by default); at least 2 s.
 */
export function probeKillGraceMs(pod: Pod, container: string, kind: 'liveness' | 'startup'): number {
  const spec = probedContainers(pod).find((c) => c.name === container);
  const probe = kind === 'liveness' ? spec?.livenessProbe : spec?.startupProbe;
  const seconds = pod.metadata?.deletionGracePeriodSeconds ?? probe?.terminationGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
  return Math.max(MINIMUM_GRACE_SECONDS, seconds) * 1000;
}

export function runtimeProbes(options: RuntimeProbesOptions): PodProbes {
  const isMain = (container: string): boolean => (options.pod().spec?.containers ?? []).some((c) => c.name === container);
  const event = (type: 'Normal' | 'Warning', reason: string, action: string, note: string, container: string): void =>
    options.event?.(type, reason, note, { fieldPath: `spec.${isMain(container) ? 'containers' : 'initContainers'}{${container}}`, action });
  return new PodProbes(options.pod, {
    clock: options.clock,
    runExec: options.runExec ?? (() => Promise.reject(new Error('exec probes are not run on this node'))),
    changed: options.changed,
    probeEvent: (container, _kind, reason, note) => event('Warning', reason, reason, note, container),
    kill: (container, message, kind) => {
      if (!options.running(container)) return;
      // The kubelet's words: computePodActions adds ", will be restarted" unless the policy is
      // Never; computeInitContainerActions names a sidecar "Init container …" and adds nothing.
      const restarts = podRestartPolicy(options.pod().spec) !== 'Never';
      const note = !isMain(container) ? `Init container ${container} failed ${kind} probe` : restarts ? `${message}, will be restarted` : message;
      event('Normal', 'Killing', 'Kill', note, container);
      options.kill(container, probeKillGraceMs(options.pod(), container, kind));
    },
  });
}
