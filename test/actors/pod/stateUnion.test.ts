/**
 * The pod actor's state is a union on `stage`: whatever messages arrive, in whatever order, each
 * state carries exactly the fields of its stage (none missing, none left over from an earlier
 * stage), and its retry records stay well formed. The transitions are small pure combinators.
 */
import t from 'tap';
import fc from 'fast-check';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import { decidePod, initialPodState, onPodStart } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState, Retry, Stage } from '../../../src/actors/pod/protocol.js';
import { after, andThen, enter, noRetry, plus, type Next } from '../../../src/actors/pod/transitions.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const identity = { namespace: 'shop', name: 'web-1', uid: 'uid-1' };
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const notReady = { ready: false, reason: 'ProviderUnreachable', message: 'down' };

const COMMON = ['namespace', 'name', 'uid', 'host', 'node', 'provider', 'createError', 'annotation', 'writes', 'retries', 'allocation', 'postStart', 'inPlace'];
const OWN: Record<Stage, string[]> = {
  starting: [],
  creating: ['create', 'sentSpec'],
  backoff: ['create', 'sentSpec'],
  rejected: ['sentSpec'],
  running: ['sentSpec', 'deadlineTimer'],
  done: [],
  terminating: ['termination', 'delete'],
  finishing: ['hostDelete'],
  orphaned: ['termination', 'delete'],
};
const RETRIES: Record<Stage, string[]> = { ...OWN, creating: ['create'], backoff: ['create'], rejected: [], running: [], terminating: ['delete'], orphaned: ['delete'] };

function hostPod(over: Partial<NonNullable<Pod['metadata']>> = {}, image = 'nginx:1'): Pod {
  return {
    metadata: { ...identity, ...over },
    spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image }] },
    status: { phase: 'Pending' },
  };
}
const status = (phase: string, isReady: boolean): PodStatus => ({ phase, conditions: [{ type: 'Ready', status: isReady ? 'True' : 'False' }] });

/** A message, possibly made from the state it is sent to (a timer names what the state armed). */
type MsgFor = (state: PodState) => PodMsg;
const msg = (m: PodMsg): MsgFor => () => m;

const messages: fc.Arbitrary<MsgFor> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<MsgFor>(
    msg({ type: 'pod.host-changed', pod: hostPod() }),
    msg({ type: 'pod.host-changed', pod: hostPod({}, 'nginx:2') }),
    msg({ type: 'pod.host-changed', pod: { ...hostPod({ generation: 2 }), spec: { ...hostPod().spec, containers: [], activeDeadlineSeconds: 5 }, status: { phase: 'Running', startTime: new Date(NOW) } } }),
    msg({ type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 30 }) }),
    msg({ type: 'pod.host-changed', pod: hostPod({ deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 0 }) }),
    msg({ type: 'pod.host-deleted' }),
    msg({ type: 'pod.node-readiness', readiness: ready }),
    msg({ type: 'pod.node-readiness', readiness: notReady }),
    msg({ type: 'pod.provider-fetched', pod: undefined }),
    msg({ type: 'pod.provider-fetched', pod: { ...hostPod(), status: status('Running', true) } }),
    msg({ type: 'pod.provider-fetched', pod: { ...hostPod({ uid: 'older-uid' }), status: status('Running', true) } }),
    msg({ type: 'pod.provider-fetch-failed', message: 'unreachable', retryAfterMs: 2_000 }),
    msg({ type: 'pod.retry-fetch' }),
    msg({ type: 'pod.provider-status', status: status('Running', true) }),
    msg({ type: 'pod.provider-status', status: status('Pending', false) }),
    msg({ type: 'pod.provider-status', status: status('Succeeded', false) }),
    msg({ type: 'pod.provider-gone', reason: 'NotFound', message: 'gone' }),
    msg({ type: 'pod.admitted' }),
    msg({ type: 'pod.admission-rejected', reason: 'OutOfcpu', message: 'no room' }),
    msg({ type: 'pod.admission-deferred' }),
    msg({ type: 'pod.retry-admit' }),
    msg({ type: 'pod.create-succeeded' }),
    msg({ type: 'pod.create-failed', kind: 'transient', message: 'quota' }),
    msg({ type: 'pod.create-failed', kind: 'invalid-input', message: 'bad image', reason: 'InvalidImageName' }),
    msg({ type: 'pod.retry-create' }),
    msg({ type: 'pod.update-failed', message: 'timeout' }),
    msg({ type: 'pod.retry-update' }),
    msg({ type: 'pod.delete-accepted' }),
    msg({ type: 'pod.delete-failed', kind: 'transient', message: 'timeout' }),
    msg({ type: 'pod.delete-failed', kind: 'not-found', message: 'gone' }),
    msg({ type: 'pod.retry-delete' }),
    msg({ type: 'pod.status-written', written: 'w', stored: 's', storedVersion: '7' }),
    msg({ type: 'pod.status-write-failed', message: 'etcd', podGone: false }),
    msg({ type: 'pod.status-write-failed', message: 'gone', podGone: true }),
    msg({ type: 'pod.status-write-superseded' }),
    msg({ type: 'pod.retry-write' }),
    msg({ type: 'pod.annotation-written', value: 'quota' }),
    msg({ type: 'pod.annotation-written', value: null }),
    msg({ type: 'pod.annotation-failed', message: '503' }),
    msg({ type: 'pod.retry-annotate' }),
    msg({ type: 'pod.host-delete-finished' }),
    msg({ type: 'pod.host-delete-failed', message: '503' }),
    msg({ type: 'pod.retry-host-delete' }),
  ) },
  fc.nat(3).map((attempt): MsgFor => msg({ type: 'pod.create-deadline', attempt })),
  fc.nat(3).map((hold): MsgFor => (s) => ({ type: 'pod.hold-expired', hold: hold + s.writes.holds - 1 })),
  // The active deadline the state armed, or a stale one.
  fc.boolean().map((armed): MsgFor => (s) => ({ type: 'pod.active-deadline-reached', at: armed && s.stage === 'running' && s.deadlineTimer !== null ? s.deadlineTimer : NOW - 1 })),
  // The deadline the state armed, or a stale one.
  fc.boolean().map((armed): MsgFor => (s) => ({ type: 'pod.grace-expired', at: armed && 'termination' in s && s.termination ? s.termination.deadlineAt : NOW - 1 })),
);

function wellFormed(retry: Retry): boolean {
  return Number.isInteger(retry.attempt) && retry.attempt >= 0 && (retry.dueAt === null || Number.isFinite(retry.dueAt)) && (retry.attempt > 0 || retry.lastError === null);
}

/** What is wrong with `state` for its stage (empty: nothing). */
function problems(state: PodState): string[] {
  const out: string[] = [];
  const expected = [...COMMON, 'stage', ...OWN[state.stage]].sort();
  const actual = Object.keys(state).sort();
  if (JSON.stringify(actual) !== JSON.stringify(expected)) out.push(`${state.stage} has fields ${actual.join(',')}, wants ${expected.join(',')}`);
  const records = state as unknown as Record<string, unknown>;
  for (const key of RETRIES[state.stage]) if (!wellFormed(records[key] as Retry)) out.push(`${state.stage}.${key} is malformed: ${JSON.stringify(records[key])}`);
  for (const [kind, retry] of Object.entries(state.retries)) if (!wellFormed(retry)) out.push(`retries.${kind} is malformed`);
  if (state.writes.inFlight < 0) out.push('negative writes in flight');
  return out;
}

t.test('no sequence of messages produces a state whose stage lacks its fields or keeps another stage\'s', async (t) => {
  const stagesSeen = new Set<Stage>();
  fc.assert(
    fc.property(fc.boolean(), fc.array(messages, { minLength: 1, maxLength: 60 }), (nodeReady, sequence) => {
      let state = onPodStart(config, initialPodState(hostPod(), identity, nodeReady ? ready : notReady), NOW).state;
      let now = NOW;
      for (const make of sequence) {
        const found = problems(state);
        if (found.length > 0) throw new Error(found.join('; '));
        stagesSeen.add(state.stage);
        now += 1_000;
        const next = decidePod(config, state, make(state), now);
        state = next.state;
        if (next.stop) break;
      }
      const found = problems(state);
      if (found.length > 0) throw new Error(found.join('; '));
      stagesSeen.add(state.stage);
    }),
    { numRuns: 500, seed: 23 },
  );
  t.same([...stagesSeen].sort(), Object.keys(OWN).sort(), 'every stage was reached');
});

// --- the combinators ------------------------------------------------------------------------

const base = (): PodState => initialPodState(hostPod(), identity, ready);
const get: PodEffect = { type: 'provider.get' };
const del: PodEffect = { type: 'host.delete' };
const effectsOf = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);

t.test('enter carries what every stage has and drops the old stage\'s own fields', async (t) => {
  const terminating = enter({ ...base(), createError: { kind: 'transient', message: 'quota', at: NOW } }, {
    stage: 'terminating', termination: { cause: 'deletion', graceSeconds: 30, deadlineAt: NOW + 32_000, escalations: 0, preStop: null }, delete: noRetry,
  });
  const finishing = enter(terminating, { stage: 'finishing', hostDelete: noRetry });
  t.same(Object.keys(finishing).sort(), [...COMMON, 'stage', 'hostDelete'].sort(), 'no termination left behind');
  t.same(finishing.createError, { kind: 'transient', message: 'quota', at: NOW }, 'common fields carried');
});

t.test('plus appends and after prepends effects; a stop stays a stop', async (t) => {
  const s = base();
  t.same(effectsOf(plus({ state: s, effects: [get] }, del)), [get, del]);
  t.same(effectsOf(after([del], { state: s, effects: [get] })), [del, get]);
  t.same(effectsOf(plus({ state: s }, del)), [del], 'a transition without effects');
  t.same(plus({ state: s, stop: true }, del), { state: s, stop: true }, 'nothing runs after a stop');
  t.same(after([del], { state: s, stop: true }), { state: s, stop: true });
});

t.test('andThen runs the next decision on the state reached, effects in order', async (t) => {
  const s = base();
  const chained = andThen({ state: s, effects: [get] }, (reached) => ({ state: enter(reached, { stage: 'done' }), effects: [del] }));
  t.equal(chained.state.stage, 'done');
  t.same(effectsOf(chained), [get, del]);
  let called = false;
  const stopped = andThen({ state: s, stop: true }, (reached) => {
    called = true;
    return { state: reached };
  });
  t.ok(stopped.stop, 'a stop ends the chain');
  t.notOk(called);
});
