/**
 * The probes of one simulated pod: one ContainerProbes per running container instance that has
 * probes, started when the instance starts and stopped when it ends or restarts. Each container's
 * health (`started`, `ready`) is kept here for the status builder (containerStatuses.ts) to read;
 * a liveness or startup failure asks for the container's kill. Network probes are answered from
 * the pod's `sim.tether.dev/probe-responses` annotation (probeResponses.ts).
 */
import type { Clock } from '../../../lib/clock.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { hasProbes, initialContainerHealth, startContainerProbes, type ContainerProbes, type ExecResult, type ProbeEventReason } from './containerProbes.js';
import { answerProbe, parseProbeResponses, type ProbeAnswer, type ProbeResponses } from './probeResponses.js';
import type { ContainerHealth, ProbeKind } from './probeWorker.js';
import { longRunningContainers } from '../restartPolicy.js';

export interface PodProbesDeps {
  readonly clock: Clock;
  /** An exec probe's command in the container (the built-in shell), aborted through `signal` at the probe's timeout. */
  readonly runExec: (container: string, command: readonly string[], timeoutMs: number, signal: AbortSignal) => Promise<ExecResult>;
  /** A container's health changed: the pod status must be written again. */
  readonly changed: () => void;
  /** The container must be killed (its liveness or startup probe failed); `message` is the kubelet's. */
  readonly kill: (container: string, message: string, kind: 'liveness' | 'startup') => void;
  /** A probe attempt the kubelet records an Event for (`Unhealthy`, `ProbeWarning`), with its note. */
  readonly probeEvent: (container: string, kind: ProbeKind, reason: ProbeEventReason, note: string) => void;
}

/** The containers probes apply to: the main ones and the sidecars (restartable init containers), as in the kubelet. */
export function probedContainers(pod: Pod): NonNullable<Pod['spec']>['containers'] {
  return longRunningContainers(pod.spec);
}

/** Whether any of the pod's containers or sidecars has a probe: pods without one never get a PodProbes. */
export function podHasProbes(pod: Pod): boolean {
  return probedContainers(pod).some(hasProbes);
}

export class PodProbes {
  private readonly running = new Map<string, ContainerProbes>();
  private readonly healths = new Map<string, ContainerHealth>();

  constructor(private readonly pod: () => Pod, private readonly deps: PodProbesDeps) {}

  /** The health of a running container that has probes; undefined for one without (started and ready once running). */
  health(name: string): ContainerHealth | undefined {
    return this.healths.get(name);
  }

  /**
   * A container instance began running at `startedAt`: it takes the health it has before any
   * probe (not ready behind a readiness or startup probe), and its probes start. No change is
   * announced: the caller announces the instance start itself.
   */
  startContainer(name: string, startedAt: number): void {
    this.stopContainer(name);
    const container = probedContainers(this.pod()).find((c) => c.name === name);
    if (container === undefined || !hasProbes(container)) return;
    this.healths.set(name, initialContainerHealth(container));
    let responses: ProbeResponses | Error;
    try {
      responses = parseProbeResponses(this.pod());
    } catch (error) {
      responses = error instanceof Error ? error : new Error(String(error));
    }
    const answer = (kind: ProbeKind, probe: Parameters<typeof answerProbe>[4]): ProbeAnswer =>
      responses instanceof Error ? { result: 'failure', message: responses.message, delayMs: 0 } : answerProbe(this.pod(), responses, container, kind, probe);
    this.running.set(name, startContainerProbes(container, {
      clock: this.deps.clock,
      runExec: (command, timeoutMs, signal) => this.deps.runExec(name, command, timeoutMs, signal),
      answer,
      onReadiness: (ready) => this.setHealth(name, { ready }),
      onStartup: (started) => this.setHealth(name, { started }),
      onLivenessFailure: (message, kind) => this.deps.kill(name, message, kind),
      onProbeEvent: (kind, reason, note) => this.deps.probeEvent(name, kind, reason, note),
    }, startedAt));
  }

  /** The instance ended: its probes stop and its health goes (a container that does not run is neither started nor ready). */
  stopContainer(name: string): void {
    this.running.get(name)?.stop();
    this.running.delete(name);
    this.healths.delete(name);
  }

  /** The pod is being deleted: readiness goes on while each container winds down, liveness and startup stop (a success). */
  terminating(): void {
    for (const probes of this.running.values()) probes.terminating();
  }

  /** The pod ends (or is forgotten): no more probing; the last health stays. */
  stopAll(): void {
    for (const probes of this.running.values()) probes.stop();
    this.running.clear();
  }

  private setHealth(name: string, health: Partial<ContainerHealth>): void {
    const before = this.healths.get(name);
    if (before === undefined || !this.running.has(name)) return;
    this.healths.set(name, { ...before, ...health });
    this.deps.changed();
  }
}
