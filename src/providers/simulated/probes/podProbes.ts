/**
 * The probes of one simulated pod: one ContainerProbes per running container instance that has
 * probes, started when the instance starts and stopped when it ends or restarts. Readiness and
 * startup results go into the pod status (podReadiness.ts); a liveness or startup failure asks
 * for the container's restart. Network probes are answered from the pod's
 * `sim.tether.dev/probe-responses` annotation (probeResponses.ts).
 */
import type { Clock } from '../../../lib/clock.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { hasProbes, initialContainerHealth, startContainerProbes, type ContainerProbes } from './containerProbes.js';
import { withContainerHealth } from './podReadiness.js';
import { answerProbe, parseProbeResponses, type ProbeAnswer, type ProbeResponses } from './probeResponses.js';
import type { ContainerHealth, ProbeKind } from './probeWorker.js';

export interface PodProbesDeps {
  readonly clock: Clock;
  /** An exec probe's command in the container (the built-in shell); resolves with its exit code. */
  readonly runExec: (container: string, command: readonly string[], timeoutMs: number) => Promise<number>;
  /** The pod status changed: tell the caller's watchers. */
  readonly changed: () => void;
  /** The container must restart (liveness or startup probe failed). */
  readonly restart: (container: string, message: string) => void;
  readonly probeFailed?: (container: string, kind: ProbeKind, message: string) => void;
}

/** Whether any of the pod's containers has a probe: pods without one never get a PodProbes. */
export function podHasProbes(pod: Pod): boolean {
  return (pod.spec?.containers ?? []).some(hasProbes);
}

export class PodProbes {
  private readonly running = new Map<string, ContainerProbes>();

  constructor(private readonly pod: () => Pod, private readonly deps: PodProbesDeps) {}

  /**
   * A container instance began running at `startedAt`: its status takes the health it has before
   * any probe (not ready behind a readiness or startup probe), and its probes start. No change is
   * announced: the caller announces the instance start itself.
   */
  startContainer(name: string, startedAt: number): void {
    this.stopContainer(name);
    const container = (this.pod().spec?.containers ?? []).find((c) => c.name === name);
    if (container === undefined || !hasProbes(container)) return;
    this.setHealth(name, initialContainerHealth(container), false);
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
      runExec: (command, timeoutMs) => this.deps.runExec(name, command, timeoutMs),
      answer,
      onReadiness: (ready) => this.setHealth(name, { ready }, true),
      onStartup: (started) => this.setHealth(name, { started }, true),
      onLivenessFailure: (message) => this.deps.restart(name, message),
      onProbeFailed: (kind, message) => this.deps.probeFailed?.(name, kind, message),
    }, startedAt));
  }

  stopContainer(name: string): void {
    this.running.get(name)?.stop();
    this.running.delete(name);
  }

  stopAll(): void {
    for (const probes of this.running.values()) probes.stop();
    this.running.clear();
  }

  private setHealth(name: string, health: Partial<ContainerHealth>, announce: boolean): void {
    const pod = this.pod();
    if (pod.status === undefined) return;
    pod.status = withContainerHealth(pod.status, name, health, new Date(this.deps.clock.now()));
    if (announce) this.deps.changed();
  }
}
