/**
 * PostStart hooks, decided as the kubelet runs them (kuberuntime_container.go startContainer,
 * step 4): once the provider says a container's new run is running, its postStart hook runs, and
 * until it is over the container is shown as the kubelet's status shows it then (postStartHold.ts:
 * its sync is blocked in the hook, so the status is the one written before the container was
 * created). A `sleep` is waited out on the actor's clock; an `exec` or `httpGet` hook is the
 * provider's (LifecycleHookProvider), or the kubelet's Warning when it cannot run it. A failed
 * hook is the kubelet's `FailedPostStartHook` ("PostStartHook failed", never the error, which may
 * carry secrets), then its kill (postStartKill.ts), the container's restartPolicy deciding whether
 * it runs again: a new run, whose hook runs again. For the main containers and the sidecars
 * (restartable init containers): SyncPod starts the next init container only after a sidecar's
 * startContainer, hook included, returned, so the provider is told when a sidecar's hook is over
 * (`provider.poststart-done`) and holds what follows until then. Only when Tether has the
 * containers' duties (a provider with its own kubelet runs the hooks there).
 */
import type { Pod, PodStatus } from '../../adapters/kubernetes/model.js';
import type { PodActorConfig } from './config.js';
import { definedOnly } from '../../lib/defaults.js';
import { containerFieldPath, failedHookEvent, sidecarsOf } from './lifecycleHooks.js';
import { hostStatusFrom, isNotReadyMark } from './podStatusView.js';
import type { PodEffect, PodMsg, PodState, PostStartRun } from './protocol.js';
import { containerStatusOf, noPostStart, runOf } from './postStartHold.js';
import { killAfterFailedPostStart, onKillPreStopDue, onKillPreStopFinished } from './postStartKill.js';
import { requestWrite } from './statusWrites.js';
import { andThen, withEffects, type Next } from './transitions.js';

/** The run of `container` a status shows running, if it does. */
function runningRun(status: PodStatus | undefined, container: string): string | undefined {
  const cs = containerStatusOf(status, container);
  return cs?.state?.running !== undefined ? runOf(cs) : undefined;
}

/** The host pod shows this run started already: an earlier incarnation ran its hook. */
function shownStarted(host: Pod | undefined, container: string, run: string): boolean {
  const cs = containerStatusOf(host?.status, container);
  return cs !== undefined && cs.state?.running !== undefined && runOf(cs) === run && cs.started !== false;
}

/**
 * The provider's new `status`: each main container or sidecar with a postStart hook whose run is
 * new gets its hook begun (a record, and the timer, provider call or Warning it needs). Records of
 * containers that have left the spec are dropped.
 */
export function beginPostStart(config: PodActorConfig, state: PodState, status: PodStatus, now: number): Next {
  if (config.containerDuties.by !== 'tether') return { state };
  const hooked = [...sidecarsOf(state.host), ...(state.host?.spec?.containers ?? [])].filter((c) => c.lifecycle?.postStart !== undefined);
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
    const begun = shownStarted(state.host, c.name, run) ? { phase: 'done' as const, effects: [] } : begin(config, containerFieldPath(state.host, c.name), { container: c.name, run }, c.lifecycle?.postStart, now);
    runs.push({ container: c.name, run, phase: begun.phase });
    effects.push(...begun.effects, ...(begun.phase === 'done' ? released(config, state.host, status, c.name, run) : []));
  }
  return withEffects({ ...state, postStart: runs.length === 0 ? noPostStart : runs }, effects);
}

type Handler = NonNullable<NonNullable<NonNullable<Pod['spec']>['containers'][number]['lifecycle']>['postStart']>;

function begin(config: PodActorConfig, path: string, { container, run }: { container: string; run: string }, handler: Handler | undefined, now: number): { phase: 'sleeping' | 'provider' | 'done'; effects: PodEffect[] } {
  if (handler?.sleep) {
    const ms = Math.max(0, handler.sleep.seconds) * 1000;
    if (ms === 0) return { phase: 'done', effects: [] };
    return { phase: 'sleeping', effects: [{ type: 'schedule', ms, msg: { type: 'pod.poststart-due', container, run, at: now + ms } }] };
  }
  // exec and httpGet are the provider's; without it (or a handler nobody runs) the kubelet's Warning.
  if ((handler?.exec || handler?.httpGet) && config.containerDuties.hooks) return { phase: 'provider', effects: [{ type: 'provider.run-hook', container, hook: 'postStart', run }] };
  return { phase: 'done', effects: [failedHookEvent(config, container, 'postStart', path)] };
}

/**
 * A sidecar's hook of `run` is over: the provider that holds what follows it (a
 * LifecycleHookProvider) is told, naming the run by the containerID it reported. A provider that
 * cannot be told holds nothing.
 */
function released(config: PodActorConfig, host: Pod | undefined, status: PodStatus | undefined, container: string, run: string): PodEffect[] {
  if (!config.containerDuties.hooks || !sidecarsOf(host).some((c) => c.name === container)) return [];
  const cs = containerStatusOf(status, container);
  if (cs === undefined || runOf(cs) !== run) return [];
  return [{ type: 'provider.poststart-done', container, containerID: cs.containerID ?? '' }];
}

/** A postStart sleep is over (its run, if still current and sleeping, is started), or the preStop wait of a kill. */
export function onPostStartDue(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.poststart-due' }>, now: number): Next {
  const current = state.postStart.find((r) => r.container === msg.container && r.run === msg.run);
  if (current?.phase === 'preStop') return onKillPreStopDue(state, current, now);
  return settle(config, state, msg, { from: 'sleeping', to: 'done' }, []);
}

/** The provider ran a postStart hook (started, or the kubelet's Warning and kill), or the preStop hook of a kill. */
export function onPostStartFinished(config: PodActorConfig, state: PodState, msg: Extract<PodMsg, { type: 'pod.hook-finished' }>, now: number): Next {
  const run = msg.run ?? state.postStart.find((r) => r.container === msg.container)?.run ?? '';
  if (msg.hook === 'preStop') return onKillPreStopFinished(config, state, { container: msg.container, run, ...definedOnly({ error: msg.error }) }, now);
  if (msg.error === undefined) return settle(config, state, { container: msg.container, run }, { from: 'provider', to: 'done' }, []);
  const current = state.postStart.some((r) => r.container === msg.container && r.run === run && r.phase === 'provider');
  if (!current) return withEffects(state, [failedHookEvent(config, msg.container, 'postStart', containerFieldPath(state.host, msg.container))]);
  return andThen(killAfterFailedPostStart(config, state, { container: msg.container, run }, now), release);
}

type Phase = PostStartRun['phase'];

/** The hook of the container's `run` moves on, `from` to `to` (a stale message changes nothing), then the status is written again. */
function settle(config: PodActorConfig, state: PodState, { container, run }: { container: string; run: string }, { from, to }: { from: Phase; to: 'done' }, effects: PodEffect[]): Next {
  const at = state.postStart.findIndex((r) => r.container === container && r.run === run && r.phase === from);
  if (at < 0) return { state };
  const postStart = state.postStart.map((r, i): PostStartRun => (i === at ? { container, run, phase: to } : r));
  const told = released(config, state.host, state.provider, container, run);
  return andThen(withEffects({ ...state, postStart }, [...effects, ...told]), release);
}

/** The running pod's status written again, now that a hold changed (requestWrite writes only what differs). */
export function release(state: PodState): Next {
  if (state.stage !== 'running' || !state.node.ready || !state.provider || isNotReadyMark(state.writes.last)) return { state };
  return requestWrite(state, hostStatusFrom(state.provider));
}
