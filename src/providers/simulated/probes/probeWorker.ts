/**
 * One probe of one container, as pure state: the kubelet's prober worker rules
 * (pkg/kubelet/prober/worker.go, v1.36.3). A result only changes the probe's value once it has
 * repeated `successThreshold` / `failureThreshold` times in a row; the value before the first
 * decision is Failure for readiness, Success for liveness and Unknown for startup. A liveness
 * failure or any startup decision puts the worker on hold until the container restarts.
 */
import type { PodSpec } from '../../../adapters/kubernetes/model.js';

export type Container = PodSpec['containers'][number];
export type Probe = NonNullable<Container['readinessProbe']>;

export type ProbeKind = 'startup' | 'readiness' | 'liveness';
export type ProbeResult = 'success' | 'failure';
export type ProbeValue = ProbeResult | 'unknown';

/** The kubelet's probe fields in milliseconds, with the API's defaults. */
export interface ProbeTiming {
  readonly initialDelayMs: number;
  readonly periodMs: number;
  readonly timeoutMs: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
}

/** API defaults: periodSeconds 10, timeoutSeconds 1, successThreshold 1, failureThreshold 3, initialDelaySeconds 0. */
export function probeTiming(probe: Probe): ProbeTiming {
  const positive = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);
  return {
    initialDelayMs: Math.max(0, probe.initialDelaySeconds ?? 0) * 1000,
    periodMs: positive(probe.periodSeconds, 10) * 1000,
    timeoutMs: positive(probe.timeoutSeconds, 1) * 1000,
    successThreshold: positive(probe.successThreshold, 1),
    failureThreshold: positive(probe.failureThreshold, 3),
  };
}

export interface ProbeWorkerState {
  readonly kind: ProbeKind;
  readonly timing: ProbeTiming;
  /** When the container instance started running. */
  readonly startedAt: number;
  /** The probe's decided value, as the kubelet's results manager holds it. */
  readonly value: ProbeValue;
  readonly lastResult: ProbeResult | undefined;
  /** How many times in a row `lastResult` came. */
  readonly run: number;
  /** No more probing of this container instance (liveness failed, or startup decided). */
  readonly onHold: boolean;
}

const INITIAL_VALUE: Record<ProbeKind, ProbeValue> = { readiness: 'failure', liveness: 'success', startup: 'unknown' };

export function initialProbeState(kind: ProbeKind, probe: Probe, startedAt: number): ProbeWorkerState {
  return { kind, timing: probeTiming(probe), startedAt, value: INITIAL_VALUE[kind], lastResult: undefined, run: 0, onHold: false };
}

/** The first probe: once the initial delay from the container's start has passed. */
export function firstDue(state: ProbeWorkerState): number {
  return state.startedAt + state.timing.initialDelayMs;
}

/** Whether the worker probes at all now: readiness and liveness wait for the startup probe. */
export function gated(state: ProbeWorkerState, started: boolean): boolean {
  return state.kind === 'startup' ? started : !started;
}

export interface Observation {
  readonly state: ProbeWorkerState;
  /** The decided value changed with this result. */
  readonly changed: boolean;
  /** When to probe next; undefined when the worker is on hold. */
  readonly nextDue: number | undefined;
}

/** A probe result that came at `now` for a probe that began at `probedAt`. */
export function observe(state: ProbeWorkerState, result: ProbeResult, probedAt: number, now: number): Observation {
  const run = state.lastResult === result ? state.run + 1 : 1;
  const threshold = result === 'failure' ? state.timing.failureThreshold : state.timing.successThreshold;
  const nextDue = Math.max(now, probedAt + state.timing.periodMs);
  if (run < threshold) return { state: { ...state, lastResult: result, run }, changed: false, nextDue };
  const onHold = (state.kind === 'liveness' && result === 'failure') || state.kind === 'startup';
  const next: ProbeWorkerState = { ...state, value: result, lastResult: result, run: onHold ? 0 : run, onHold };
  return { state: next, changed: state.value !== result, nextDue: onHold ? undefined : nextDue };
}

/** What the container's status says before any probe ran: started and ready unless a probe says otherwise later. */
export interface ContainerHealth {
  readonly started: boolean;
  readonly ready: boolean;
}

/**
 * The kubelet's `started` and `ready` for a running container from its probes' values: started
 * once the startup probe succeeded (or without one); ready once started and the readiness probe
 * succeeded (or without one).
 */
export function containerHealth(probes: { readonly startup?: ProbeValue | undefined; readonly readiness?: ProbeValue | undefined }): ContainerHealth {
  const started = probes.startup === undefined || probes.startup === 'success';
  return { started, ready: started && (probes.readiness === undefined || probes.readiness === 'success') };
}
