/**
 * The pod actor's writes to its host pod carry the pod's uid; a write refused because another pod
 * of the same name holds it now (409 on the uid) means this actor's host pod is gone.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import type { PodApi } from '../../../src/adapters/kubernetes/podApi.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { SupersededError } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { performPodEffect, type PodEffectDeps } from '../../../src/actors/pod/effects.js';
import type { PodMsg } from '../../../src/actors/pod/protocol.js';
import type { PodProvider } from '../../../src/providers/provider.js';
import type { EffectContext } from '../../../src/runtime/behavior.js';
import { ManualClock } from '../../support/manualClock.js';
import { FakeEvents } from '../fakes/fakeEvents.js';
import { kubeError } from '../fakes/kubeErrors.js';

const identity = { namespace: 'data', name: 'db-0', uid: 'old-uid' };

/** A host where db-0 has been re-created: every write naming the old uid is refused, as the API server does. */
function recreatedHost(calls: string[]): PodApi {
  const refuse = (what: string, uid: string): Promise<Pod> => {
    calls.push(`${what}:${uid}`);
    return Promise.reject(kubeError('conflict', `${what} of pod data/db-0`));
  };
  return {
    getPod: () => Promise.resolve(undefined),
    patchPodStatus: (_ns, _name, uid) => refuse('status', uid),
    patchPodAnnotations: (_ns, _name, uid) => refuse('annotations', uid),
    deletePod: () => Promise.resolve(),
    listPods: () => Promise.resolve({ items: [], resourceVersion: '' }),
  };
}

/** Runs one effect against `pods` (a re-created host by default); what it told the actor, and the calls made. */
function run(effect: Parameters<typeof performPodEffect>[2], patchStatus?: PodApi['patchPodStatus'], provider: Partial<PodProvider> = {}): { done: Promise<void>; told: PodMsg[]; calls: string[]; clock: ManualClock } {
  const told: PodMsg[] = [];
  const calls: string[] = [];
  const clock = new ManualClock();
  const host = recreatedHost(calls);
  const pods: PodApi = patchStatus ? { ...host, patchPodStatus: patchStatus } : host;
  const deps: PodEffectDeps = { provider: provider as PodProvider, admission: { admit: () => ({ admit: true }), recordRunning: () => {} }, pods, events: new FakeEvents(), clock, logger: silentLogger };
  const ctx: EffectContext<PodMsg> = { self: { path: 'pod', tell: (m) => told.push(m) }, clock, signal: new AbortController().signal, schedule: () => {} };
  return { done: Promise.resolve(performPodEffect(deps, identity, effect, ctx)), told, calls, clock };
}

t.test('a status write refused for a same-named successor carries our uid and reports our pod gone', async (t) => {
  const { done, told, calls } = run({ type: 'host.write-status', status: { phase: 'Failed' } });
  await done;
  t.same(calls, ['status:old-uid']);
  t.match(told, [{ type: 'pod.status-write-failed', podGone: true }], 'gone, not a failure to retry');
});

t.test('an annotation refused for a same-named successor is not retried', async (t) => {
  const { done, told, calls } = run({ type: 'host.annotate', annotations: { 'tether.dev/provider-create-error': 'x' } });
  await done;
  t.same(calls, ['annotations:old-uid']);
  t.same(told, [], 'no annotation-failed (which would retry it)');
});

t.test('a status write failing with something that is not an API failure crashes the actor, not a failed write', async (t) => {
  const { done, told } = run({ type: 'host.write-status', status: { phase: 'Running' } }, () => Promise.reject(new TypeError('status.conditions is not iterable')));
  await t.rejects(done, TypeError);
  t.same(told, [], 'no status-write-failed (which would retry a bug forever)');
});

t.test('a status write dropped from the queue for a newer one reports superseded', async (t) => {
  const { done, told } = run({ type: 'host.write-status', status: { phase: 'Running' } }, () => Promise.reject(new SupersededError('pod:data/db-0')));
  await done;
  t.same(told, [{ type: 'pod.status-write-superseded' }]);
});

t.test('a create past its deadline has its call aborted (a create still queued is dropped, not sent late), and its late answer is no message', async (t) => {
  let signal: AbortSignal | undefined;
  const createPod = (_pod: Pod, s?: AbortSignal): Promise<void> => {
    signal = s;
    return new Promise((_resolve, reject) => s?.addEventListener('abort', () => reject(s.reason as Error), { once: true }));
  };
  const { done, told, clock } = run({ type: 'provider.create', pod: { metadata: { ...identity } }, deadlineMs: 60_000 }, undefined, { createPod });
  t.equal(signal?.aborted, false, 'the call runs');
  clock.advance(60_000);
  t.equal(signal?.aborted, true, 'aborted at the deadline');
  await done;
  t.same(told, [], 'the pod.create-deadline timer decides; the abort is no failure of its own');
});
