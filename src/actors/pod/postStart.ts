/**
 * PostStart hooks, decided as the kubelet runs them (kuberuntime_container.go startContainer,
 * step 4): once the provider says a container's new run is running, its postStart hook runs, and
 * until it is over the container counts as neither started nor ready (the kubelet's sync is
 * blocked in the hook, so no status says otherwise). A `sleep` is waited out on the actor's clock;
 * an `exec` or `httpGet` hook is the provider's (LifecycleHookProvider), or the kubelet's Warning
 * when it cannot run it. A failed hook is the kubelet's `FailedPostStartHook` ("PostStartHook
 * failed", never the error, which may carry secrets), then its `Killing` ("FailedPostStartHook")
 * and the provider kills the container, whose restartPolicy decides whether it runs again: a new
 * run, whose hook runs again. Only for the main containers, and only when Tether has the
 * containers' duties (a provider with its own kubelet runs the hooks there).
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { PodActorConfig } from './config.js';
import { failedHookEvent } from './lifecycleHooks.js';
import { gracePeriodSeconds, hostStatusFrom, isNotReadyMark } from './podStatusView.js';
import type { PodEffect, PodMsg, PodState, PostStartRun } from './protocol.js';
import { noPostStart, runOf } from './postStartHold.js';
import { requestWrite } from './statusWrites.js';
import { andThen, kubeletEvent, withEffects, type Next } from './transitions.js';

const fieldPath = (container: string): string => `spec.containers{${container}}`;

/** The run of `container` a status shows running, if it does. */
function runningRun(status: PodStatus | undefined, container: string): string | undefined {
  const cs = status?.containerStatuses?.find((s) => s.name === container);
  return cs?.state?.running !== undefined ? runOf(cs) : undefined;
}

/** The host pod shows this run started already: an earlier incarnation ran its hook. */
function shownStarted(host: Pod | undefined, container: string, run: string): boolean {
  const cs = host?.status?.containerStatuses?.find((s) => s.name === container);
  return cs !== undefined && cs.state?.running !== undefined && runOf(cs) === run && cs.started !== false;
}

/**
 * The provider's new `status`: each main container with a postStart hook whose run is new gets
 * its hook begun (a record, and the timer, provider call or Warning it needs). Records of
 * containers that have left the spec are dropped.
 */
export function beginPostStart(config: PodActorConfig, state: PodState, status: PodStatus, now: number): Next {
  if (config.containerDuties.by !== 'tether') return { state };
  const hooked = (state.host?.spec?.containers ?? []).filter((c) => c.lifecycle?.postStart !== undefined);
  if (hooked.length === 0 && state.postStart.length === 0) return { state };
  const runs: PostStartRun[] = [];
  const effects: PodEffect[] = [];
  for (const c of hooked) {
    const known = state.postStart.find((r) => r.container === c.name);
    const run = runningRun(status, c.name);
    if (run === undefined || known?.run === run) {
      if (known) runs.push(known);
      continue;
    }
    const begun = shownStarted(state.host, c.name, run) ? { phase: 'done' as const, effects: [] } : begin(config, c.name, run, c.lifecycle?.postStart, now);
    runs.push({ container: c.name, run, phase: begun.phase });
    effects.push(...begun.effects);
  }
  return withEffects({ ...state, postStart: runs.length === 0 ? noPostStart : runs }, effects);
}

type Handler = NonNullable<NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>['postStart']>;

function begin(config: PodActorConfig, container: string, run: string, handler: Handler | undefined, now: number): { phase: PostStartRun['phase']; effects: PodEffect[] } {
  if (handler?.sleep) {
    const ms = Math.max(0, handler.sleep.seconds) * 1000;
    if (ms === 0) return { phase: 'done', effects: [] };
    return { phase: 'sleeping', effects: [{ type: 'schedule', ms, msg: { type: 'pod.poststart-due', container, run, at: now + ms } }] };
  }
  // exec and httpGet are the provider's; without it (or a handler nobody runs) the kubelet's Warning.
  if ((handler?.exec || handler?.httpGet) && config.containerDuties.hooks) return { phase: 'provider', effects: [{ type: 'provider.run-hook', container, hook: 'postStart', run }] };
  return { phase: 'done', effects: [failedHookEvent(config, container, 'postStart')] };
}

/** A postStart sleep is over: its run, if still current and sleeping, is started. */
export function onPostStartDue(state: PodState, msg: Extract<PodMsg, { type: 'pod.poststart-due' }>): Next {
  return settle(state, msg, { from: 'sleeping', to: 'done' }, []);
}

/** The provider ran a postStart hook: started, or the kubelet's Warning and kill. */
export function onPostStartFinished(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.hook-finished' }>): Next {
  const run = msg.run ?? state.postStart.find((r) => r.container === msg.container)?.run ?? '';
  if (msg.error === undefined) return settle(state, { container: msg.container, run }, { from: 'provider', to: 'done' }, []);
  const current = state.postStart.some((r) => r.container === msg.container && r.run === run && r.phase === 'provider');
  if (!current) return withEffects(state, [failedHookEvent(config, msg.container, 'postStart')]);
  const kill: PodEffect[] = [
    failedHookEvent(config, msg.container, 'postStart'),
    kubeletEvent(config, { eventType: 'Normal', reason: 'Killing', note: 'FailedPostStartHook', fieldPath: fieldPath(msg.container) }),
    { type: 'provider.kill-container', container: msg.container, graceSeconds: gracePeriodSeconds(state.host) },
  ];
  return settle(state, { container: msg.container, run }, { from: 'provider', to: 'failed' }, kill);
}

type Phase = PostStartRun['phase'];

/** The hook of the container's `run` moves on, `from` to `to` (a stale message changes nothing), then the status is written again. */
function settle(state: PodState, { container, run }: { container: string; run: string }, { from, to }: { from: Phase; to: Phase }, effects: PodEffect[]): Next {
  const at = state.postStart.findIndex((r) => r.container === container && r.run === run && r.phase === from);
  if (at < 0) return { state };
  const postStart = state.postStart.map((r, i) => (i === at ? { ...r, phase: to } : r));
  return andThen(withEffects({ ...state, postStart }, effects), release);
}

/** The running pod's status written again, now that a hold is lifted (requestWrite writes only what differs). */
function release(state: PodState): Next {
  if (state.stage !== 'running' || !state.node.ready || !state.provider || isNotReadyMark(state.writes.last)) return { state };
  return requestWrite(state, hostStatusFrom(state.provider));
}
