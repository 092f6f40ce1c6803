/**
 * Lifecycle hooks, decided as the kubelet runs them (lifecycle/handlers.go, kuberuntime
 * killContainer/executePreStopHook): a `sleep` is waited out on the actor's clock; an `exec` or
 * `httpGet` hook is the provider's to run (LifecycleHookProvider), and one it cannot run gets the
 * kubelet's Warning, in its words (never the error, which may carry secrets). PreStop hooks run
 * only in containers that run, only with a grace period above 0, and count against it.
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { LifecycleHookName } from '../../providers/containerDuties.js';
import type { PodActorConfig } from './config.js';
import type { PodEffect, PreStop, Termination } from './protocol.js';
import { kubeletEvent } from './transitions.js';

/** The kubelet never gives a container less than this to stop (minimumGracePeriodInSeconds). */
export const MINIMUM_GRACE_SECONDS = 2;

type Container = NonNullable<Pod['spec']>['containers'][number];

/** The containers running now, with their spec. */
function runningContainers(pod: Pod | undefined, status: PodStatus | undefined): Container[] {
  const running = new Set((status?.containerStatuses ?? []).filter((s) => s.state?.running !== undefined).map((s) => s.name));
  return (pod?.spec?.containers ?? []).filter((c) => running.has(c.name));
}

const fieldPath = (container: string): string => `spec.containers{${container}}`;

/** The restartable init containers (restartPolicy Always): the sidecars, which run beside the main containers. */
export const sidecarsOf = (pod: Pod | undefined): Container[] => (pod?.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');

/** A main container or sidecar of `pod` by name (names are unique across both lists). */
export const longRunningContainer = (pod: Pod | undefined, name: string): Container | undefined =>
  (pod?.spec?.containers ?? []).find((c) => c.name === name) ?? sidecarsOf(pod).find((c) => c.name === name);

/** The kubelet's reference to a main container or sidecar in its Events. */
export const containerFieldPath = (pod: Pod | undefined, container: string): string =>
  sidecarsOf(pod).some((c) => c.name === container) ? `spec.initContainers{${container}}` : fieldPath(container);

/** The kubelet's `Killing` for each running container, as it stops them. */
export function killingEvents(config: PodActorConfig, pod: Pod | undefined, status: PodStatus | undefined): PodEffect[] {
  return runningContainers(pod, status).map((c) => kubeletEvent(config, { eventType: 'Normal', reason: 'Killing', note: `Stopping container ${c.name}`, fieldPath: fieldPath(c.name) }));
}

/** The kubelet's Warning for a hook that failed or that nobody can run: `FailedPreStopHook`, "PreStopHook failed". */
export function failedHookEvent(config: PodActorConfig, container: string, hook: LifecycleHookName, path = fieldPath(container)): PodEffect {
  const reason = hook === 'preStop' ? 'FailedPreStopHook' : 'FailedPostStartHook';
  const note = hook === 'preStop' ? 'PreStopHook failed' : 'PostStartHook failed';
  return kubeletEvent(config, { eventType: 'Warning', reason, note, fieldPath: path });
}

/** When the hooks begin and within what: `sleptFrom`, when the sleeps began (default `now`). */
export interface HookWindow {
  readonly graceSeconds: number;
  readonly now: number;
  readonly sleptFrom?: number;
}

/**
 * The preStop hooks of the running containers, begun `now` within `graceSeconds`: the wait (null:
 * nothing to wait for, ask the provider at once) and the effects that start it (timers, hooks the
 * provider runs, Warnings for hooks it cannot run). `sleptFrom`: when the sleeps began (a restart
 * continues them from the deletion rather than sleeping again; exec and httpGet hooks are run
 * again, as a restarted kubelet runs them).
 */
export function beginPreStop(config: PodActorConfig, pod: Pod | undefined, status: PodStatus | undefined, { graceSeconds, now, sleptFrom = now }: HookWindow): { preStop: PreStop | null; effects: PodEffect[] } {
  if (graceSeconds <= 0) return { preStop: null, effects: [] };
  const hooked = runningContainers(pod, status).filter((c) => c.lifecycle?.preStop !== undefined);
  const sleepSeconds = Math.max(0, ...hooked.map((c) => c.lifecycle?.preStop?.sleep?.seconds ?? 0));
  const others = hooked.filter((c) => c.lifecycle?.preStop?.sleep === undefined).map((c) => c.name);
  const pending = config.containerDuties.hooks ? others : [];
  const effects: PodEffect[] = config.containerDuties.hooks
    ? others.map((container) => ({ type: 'provider.run-hook', container, hook: 'preStop' }))
    : others.map((container) => failedHookEvent(config, container, 'preStop'));
  const cutAt = now + graceSeconds * 1000;
  const sleepUntil = Math.min(sleptFrom + sleepSeconds * 1000, cutAt);
  if (sleepUntil <= now && pending.length === 0) return { preStop: null, effects };
  const preStop: PreStop = { sleepUntil, cutAt, graceFrom: now, pending, resuming: false };
  return { preStop, effects: [...effects, ...preStopTimers(preStop, now)] };
}

/** The timers a wait needs: the sleep's end, and the cut when the provider runs hooks of unknown length. */
function preStopTimers(preStop: PreStop, now: number): PodEffect[] {
  const at = [preStop.sleepUntil, ...(preStop.pending.length > 0 ? [preStop.cutAt] : [])].filter((t, i, all) => t > now && all.indexOf(t) === i);
  return at.map((t) => ({ type: 'schedule', ms: t - now, msg: { type: 'pod.prestop-due', at: t } }));
}

export const preStopOver = (preStop: PreStop, now: number): boolean => now >= preStop.cutAt || (!preStop.resuming && now >= preStop.sleepUntil && preStop.pending.length === 0);

/** Does any container of the pod have a preStop hook (before the provider says which run)? */
export const hasPreStopHooks = (pod: Pod | undefined): boolean => (pod?.spec?.containers ?? []).some((c) => c.lifecycle?.preStop !== undefined);

/**
 * A restarted incarnation that finds the deletion begun and containers with preStop hooks: it
 * waits for the provider's status (which containers run) until the grace left runs out, then the
 * hooks are over whatever it heard.
 */
export function awaitPreStop(graceSeconds: number, now: number): { preStop: PreStop; effects: PodEffect[] } {
  const cutAt = now + graceSeconds * 1000;
  const preStop: PreStop = { sleepUntil: cutAt, cutAt, graceFrom: now, pending: [], resuming: true };
  return { preStop, effects: preStopTimers(preStop, now) };
}

/** What is left of the grace period once the hooks are over: the provider's to stop the pod in. */
export function remainingGrace(termination: Termination, preStop: PreStop, now: number): number {
  if (termination.graceSeconds === 0) return 0;
  const spent = Math.floor((now - preStop.graceFrom) / 1000);
  return Math.max(MINIMUM_GRACE_SECONDS, termination.graceSeconds - spent);
}

/** A shorter grace period given during the hooks: it begins now and cuts them when it runs out. */
export function shortenPreStop(preStop: PreStop, graceSeconds: number, now: number): { preStop: PreStop; effects: PodEffect[] } {
  const cutAt = Math.min(preStop.cutAt, now + graceSeconds * 1000);
  const next: PreStop = { ...preStop, cutAt, sleepUntil: Math.min(preStop.sleepUntil, cutAt), graceFrom: now };
  const effects: PodEffect[] = cutAt < preStop.cutAt && cutAt > now ? [{ type: 'schedule', ms: cutAt - now, msg: { type: 'pod.prestop-due', at: cutAt } }] : [];
  return { preStop: next, effects };
}
