/**
 * The kill that follows a failed postStart hook (postStart.ts), as kuberuntime_container.go's
 * killContainer does it: the Warning `FailedPostStartHook` and the `Killing` Event
 * ("FailedPostStartHook") first; then, if the container has a preStop hook and the grace period
 * (setTerminationGracePeriod: the deletion's, else the pod's) is above 0, that hook within the
 * grace period (executePreStopHook: a failure is the Warning `FailedPreStopHook`, a hook that
 * outlasts the grace is cut); then the provider's kill with what is left of the grace, never
 * less than the kubelet's 2 s (minimumGracePeriodInSeconds). Held meanwhile (phase `preStop`,
 * then `failed`). Pure.
 */
import type { PodActorConfig } from './config.js';
import { containerFieldPath, failedHookEvent, longRunningContainer, MINIMUM_GRACE_SECONDS } from './lifecycleHooks.js';
import { gracePeriodSeconds } from './podStatusView.js';
import type { PodEffect, PodState, PostStartRun } from './protocol.js';
import { after, kubeletEvent, withEffects, type Next } from './transitions.js';

interface RunRef {
  readonly container: string;
  readonly run: string;
}

type PreStopRun = Extract<PostStartRun, { phase: 'preStop' }>;

const replaceRun = (state: PodState, { container, run }: RunRef, next: PostStartRun): PodState => ({
  ...state,
  postStart: state.postStart.map((r) => (r.container === container && r.run === run ? next : r)),
});

const kill = (container: string, graceSeconds: number): PodEffect => ({ type: 'provider.kill-container', container, graceSeconds });

/** The run `ref`, held by the provider, failed its postStart hook: the kubelet's Events, then its preStop hook or the kill. */
export function killAfterFailedPostStart(config: PodActorConfig, state: PodState, ref: RunRef, now: number): Next {
  const { container, run } = ref;
  const path = containerFieldPath(state.host, container);
  const said: PodEffect[] = [
    failedHookEvent(config, container, 'postStart', path),
    kubeletEvent(config, { eventType: 'Normal', reason: 'Killing', note: 'FailedPostStartHook', fieldPath: path }),
  ];
  const graceSeconds = gracePeriodSeconds(state.host);
  const preStop = longRunningContainer(state.host, container)?.lifecycle?.preStop;
  const killNow = (warn: PodEffect[]): Next => withEffects(replaceRun(state, ref, { container, run, phase: 'failed' }), [...said, ...warn, kill(container, graceSeconds)]);
  if (preStop === undefined || graceSeconds <= 0) return killNow([]);
  const held = replaceRun(state, ref, { container, run, phase: 'preStop', since: now, graceSeconds });
  const due = (ms: number): PodEffect => ({ type: 'schedule', ms, msg: { type: 'pod.poststart-due', container, run, at: now + ms } });
  const graceMs = graceSeconds * 1000;
  if (preStop.sleep) return withEffects(held, [...said, due(Math.min(Math.max(0, preStop.sleep.seconds) * 1000, graceMs))]);
  // exec and httpGet are the provider's; one it cannot run is the kubelet's Warning, and the kill at once.
  if ((preStop.exec || preStop.httpGet) && config.containerDuties.hooks) return withEffects(held, [...said, { type: 'provider.run-hook', container, hook: 'preStop', run }, due(graceMs)]);
  return killNow([failedHookEvent(config, container, 'preStop', path)]);
}

/** What is left of the grace once the preStop hook is over: executePreStopHook's whole seconds spent, at least 2 s. */
function killed(state: PodState, current: PreStopRun, now: number): Next {
  const spent = Math.floor((now - current.since) / 1000);
  const graceSeconds = Math.max(MINIMUM_GRACE_SECONDS, current.graceSeconds - spent);
  return withEffects(replaceRun(state, current, { container: current.container, run: current.run, phase: 'failed' }), [kill(current.container, graceSeconds)]);
}

/** The preStop sleep is over, or the grace period cut the hook: the kill. */
export function onKillPreStopDue(state: PodState, current: PreStopRun, now: number): Next {
  return killed(state, current, now);
}

/** The provider ran the preStop hook of a kill: a failure is the kubelet's Warning; the kill follows, if the hook was not cut already. */
export function onKillPreStopFinished(config: PodActorConfig, state: PodState, msg: RunRef & { readonly error?: string }, now: number): Next {
  const warn = msg.error !== undefined ? [failedHookEvent(config, msg.container, 'preStop', containerFieldPath(state.host, msg.container))] : [];
  const current = state.postStart.find((r): r is PreStopRun => r.container === msg.container && r.run === msg.run && r.phase === 'preStop');
  if (current === undefined) return withEffects(state, warn);
  return after(warn, killed(state, current, now));
}
