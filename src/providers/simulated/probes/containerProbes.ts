/**
 * The effects around probeWorker.ts for one running container instance: one timer per probe at a
 * time on the injected clock, each probe run through `deps` (exec in the shell, network probes
 * answered by probeResponses.ts), results folded by the pure worker, and changes reported:
 * readiness and startup as values, a liveness (or startup) failure as a restart request. A
 * container without probes costs nothing: no timer, no closure kept.
 */
import { sleep, type Clock, type Timer } from '../../../lib/clock.js';
import { expandReferences } from '../commandExpansion.js';
import { goDuration } from '../crashLoopBackOff.js';
import type { ProbeAnswer } from './probeResponses.js';
import {
  containerHealth, firstDue, gated, initialProbeState, observe,
  type Container, type ContainerHealth, type Probe, type ProbeKind, type ProbeWorkerState,
} from './probeWorker.js';

export interface ContainerProbesDeps {
  readonly clock: Clock;
  /**
   * Runs an exec probe's command in the container; resolves with its exit code and its output
   * (stdout and stderr together, what the kubelet's exec prober reports). `signal` aborts it at
   * the probe's timeout.
   */
  readonly runExec: (command: readonly string[], timeoutMs: number, signal: AbortSignal) => Promise<ExecResult>;
  /** The simulated answer to an httpGet, tcpSocket or grpc probe. */
  readonly answer: (kind: ProbeKind, probe: Probe) => ProbeAnswer;
  readonly onReadiness: (ready: boolean) => void;
  readonly onStartup: (started: boolean) => void;
  /**
   * The container must be killed: its liveness or startup probe failed past the threshold. The
   * message is the kubelet's (`Container app failed liveness probe`); whether it is restarted is
   * the restart policy's to say.
   */
  readonly onLivenessFailure: (message: string, kind: 'liveness' | 'startup') => void;
  /**
   * A probe attempt the kubelet records an Event for, with its note: `Unhealthy` for a failure
   * (`Readiness probe failed: …`) or an error (`… probe errored and resulted in unknown state: …`),
   * `ProbeWarning` for a success with a warning (`… probe warning: …`, an HTTP redirect not followed).
   */
  readonly onProbeEvent: (kind: ProbeKind, reason: ProbeEventReason, note: string) => void;
}

export type ProbeEventReason = 'Unhealthy' | 'ProbeWarning';

export interface ExecResult {
  readonly exitCode: number;
  readonly output: string;
}

export interface ContainerProbes {
  stop(): void;
  /**
   * The pod is being deleted: as the kubelet's worker, liveness and startup stop with a last
   * Success (a container not yet started counts as started), readiness goes on probing until
   * the container ends, so a draining container can turn itself not ready.
   */
  terminating(): void;
}

const KINDS: readonly ProbeKind[] = ['startup', 'readiness', 'liveness'];
const PROBE_FIELD = { startup: 'startupProbe', readiness: 'readinessProbe', liveness: 'livenessProbe' } as const;
const NO_PROBES: ContainerProbes = { stop: () => undefined, terminating: () => undefined };

function probeOf(container: Container, kind: ProbeKind): Probe | undefined {
  return container[PROBE_FIELD[kind]];
}

/** `started` and `ready` of a container that just began running, before any probe ran. */
export function initialContainerHealth(container: Container): ContainerHealth {
  return containerHealth({
    startup: container.startupProbe ? 'unknown' : undefined,
    readiness: container.readinessProbe ? 'failure' : undefined,
  });
}

export function hasProbes(container: Container): boolean {
  return KINDS.some((kind) => probeOf(container, kind) !== undefined);
}

interface Worker {
  state: ProbeWorkerState;
  readonly probe: Probe;
  timer: Timer | undefined;
}

const label = (kind: ProbeKind): string => `${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}`;

/**
 * An exec probe's command as the kubelet runs it (ExpandContainerCommandOnlyStatic): `$(VAR)`
 * expanded against the container's env entries as written, a `valueFrom` one being empty.
 */
export function execProbeCommand(container: Container, command: readonly string[]): string[] {
  const env = new Map((container.env ?? []).map((e) => [e.name, e.value ?? '']));
  return command.map((word) => expandReferences(word, env));
}

/** The kubelet's Event for an attempt (prober.go probe), if it records one. */
function probeEvent(kind: ProbeKind, answer: ProbeAnswer): { reason: ProbeEventReason; note: string } | undefined {
  switch (answer.result) {
    case 'success': return undefined;
    case 'warning': return { reason: 'ProbeWarning', note: `${label(kind)} probe warning: ${answer.message}` };
    case 'failure': return { reason: 'Unhealthy', note: `${label(kind)} probe failed: ${answer.message}` };
    case 'error': return { reason: 'Unhealthy', note: `${label(kind)} probe errored and resulted in unknown state: ${answer.message}` };
  }
}

/** Starts the probes of a container instance that began running at `startedAt` (default: now). */
export function startContainerProbes(container: Container, deps: ContainerProbesDeps, startedAt = deps.clock.now()): ContainerProbes {
  if (!hasProbes(container)) return NO_PROBES;
  const { clock } = deps;
  let stopped = false;
  let health = initialContainerHealth(container);
  const workers = new Map<ProbeKind, Worker>();
  for (const kind of KINDS) {
    const probe = probeOf(container, kind);
    if (probe) workers.set(kind, { state: initialProbeState(kind, probe, startedAt), probe, timer: undefined });
  }

  // A startup worker removed at the deletion counts as a success, as no startup probe does.
  const report = (): void => {
    const next = containerHealth({ startup: workers.get('startup')?.state.value, readiness: workers.get('readiness')?.state.value });
    const before = health;
    health = next;
    if (next.started !== before.started) deps.onStartup(next.started);
    if (next.ready !== before.ready) deps.onReadiness(next.ready);
  };

  const runOnce = async (kind: ProbeKind, probe: Probe, timeoutMs: number): Promise<ProbeAnswer> => {
    if (probe.exec) {
      const command = execProbeCommand(container, probe.exec.command ?? []);
      const abort = new AbortController();
      let timer: Timer | undefined;
      // The kubelet's words (cri-client ErrCommandTimedOut): `command timed out: "sh -c x" timed out after 1s`.
      const timedOut = new Promise<ProbeAnswer>((resolve) => {
        timer = clock.setTimer(timeoutMs, () => {
          resolve({ result: 'failure', message: `command timed out: ${JSON.stringify(command.join(' '))} timed out after ${goDuration(timeoutMs)}`, delayMs: 0 });
          abort.abort(new Error('probe timed out'));
        });
      });
      // A failing exec probe says what the command wrote, as the kubelet's exec prober does; an
      // exec that could not run at all is a probe error (probe.Unknown), not a failure.
      const ran = deps.runExec(command, timeoutMs, abort.signal).then(
        ({ exitCode, output }): ProbeAnswer => ({ result: exitCode === 0 ? 'success' : 'failure', message: output, delayMs: 0 }),
        (error: unknown): ProbeAnswer => ({ result: 'error', message: error instanceof Error ? error.message : String(error), delayMs: 0 }),
      );
      try {
        return await Promise.race([ran, timedOut]);
      } finally {
        timer?.cancel();
      }
    }
    // The answer says when it comes: at its delay, or at the timeout with the client's timeout error.
    const answer = deps.answer(kind, probe);
    if (answer.delayMs > 0) await sleep(clock, Math.min(answer.delayMs, timeoutMs));
    return answer;
  };

  const schedule = (worker: Worker, at: number): void => {
    worker.timer = clock.setTimer(Math.max(0, at - clock.now()), () => {
      worker.timer = undefined;
      void tick(worker);
    });
  };

  const tick = async (worker: Worker): Promise<void> => {
    if (stopped) return;
    const { kind, timing } = worker.state;
    const probedAt = clock.now();
    if (gated(worker.state, health.started)) {
      // Readiness and liveness wait for the startup probe; the startup probe is done once started.
      if (kind !== 'startup') schedule(worker, probedAt + timing.periodMs);
      return;
    }
    const answer = await runOnce(kind, worker.probe, timing.timeoutMs);
    if (stopped || workers.get(kind) !== worker) return;
    const event = probeEvent(kind, answer);
    if (event !== undefined) deps.onProbeEvent(kind, event.reason, event.note);
    if (answer.result === 'error') {
      // The worker throws an errored result away: the value stays, the next probe comes a period on.
      schedule(worker, Math.max(clock.now(), probedAt + timing.periodMs));
      return;
    }
    const seen = observe(worker.state, answer.result === 'failure' ? 'failure' : 'success', probedAt, clock.now());
    worker.state = seen.state;
    if (seen.nextDue !== undefined) schedule(worker, seen.nextDue);
    if (seen.changed) report();
    if (seen.state.onHold && seen.state.value === 'failure' && kind !== 'readiness') {
      deps.onLivenessFailure(`Container ${container.name} failed ${kind} probe`, kind);
    }
  };

  for (const worker of workers.values()) schedule(worker, firstDue(worker.state));
  return {
    stop: () => {
      stopped = true;
      for (const worker of workers.values()) worker.timer?.cancel();
    },
    terminating: () => {
      if (stopped) return;
      for (const kind of ['startup', 'liveness'] as const) {
        const worker = workers.get(kind);
        if (worker === undefined) continue;
        worker.timer?.cancel();
        workers.delete(kind);
        // A probe already in flight finds its worker gone (below) and reports nothing.
        if (kind === 'startup') report();
      }
    },
  };
}
