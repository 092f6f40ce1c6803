/**
 * Every retry of the pod actor backs off (issue 13, item 5): exponential, jittered, capped, and
 * never sooner than the API server's Retry-After. Annotation patches, provider re-reads and
 * provider updates were retried flat (1 s, 5 s) or not at all.
 */
import t from 'tap';
import { admittingEverything } from '../../support/admittedStep.js';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import { type PodEffect, type PodMsg, type PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const host: Pod = {
  metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1' },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'nginx:1' }] },
  status: { phase: 'Pending' },
};
type Next = Transition<PodState, PodEffect>;
const step = admittingEverything((state: PodState, msg: PodMsg, now = NOW): Next => decidePod(config, state, msg, now));
const fresh = (): PodState => initialPodState(host, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
const timers = (next: Next): Array<{ ms: number; msg: PodMsg }> =>
  (next.stop ? [] : next.effects ?? []).flatMap((e) => (e.type === 'schedule' ? [{ ms: e.ms, msg: e.msg }] : []));

/** The delays of `n` consecutive failures, each followed by its retry message. */
function delays(start: PodState, failure: PodMsg, n: number): number[] {
  const out: number[] = [];
  let state = start;
  for (let i = 0; i < n; i++) {
    const failed = step(state, failure);
    const timer = timers(failed)[0];
    if (!timer) throw new Error(`no retry timer after failure ${i + 1}`);
    out.push(timer.ms);
    state = failed.state;
  }
  return out;
}

const grows = (ms: number[]): boolean => ms.every((d, i) => i === 0 || d > ms[i - 1]! || d === config.retry.maxMs);

/** A pod whose create failed, with the error's annotation patch in flight. */
const annotating = (): PodState =>
  step(step(fresh(), { type: 'pod.provider-fetched', pod: undefined }).state, { type: 'pod.create-failed', kind: 'transient', message: 'quota' }).state;

t.test('annotation patch failures back off exponentially, capped', async (t) => {
  const ms = delays(annotating(), { type: 'pod.annotation-failed', message: '503' }, 12);
  t.ok(ms[1]! > ms[0]! && ms[3]! > ms[2]!, `grows: ${ms.join(', ')}`);
  t.ok(grows(ms.slice(0, 6)), 'each delay longer than the last, far from the cap');
  t.ok(Math.max(...ms) <= config.retry.maxMs, 'capped');
  let failing = annotating();
  for (let i = 0; i < 5; i++) failing = step(failing, { type: 'pod.annotation-failed', message: '503' }).state;
  const written = step(failing, { type: 'pod.annotation-written', value: 'quota' }).state;
  t.same(delays(written, { type: 'pod.annotation-failed', message: '503' }, 1), [ms[0]], 'a success resets the backoff');
});

t.test('a failed provider re-read backs off from refetchMs instead of retrying every refetchMs', async (t) => {
  const ms = delays(fresh(), { type: 'pod.provider-fetch-failed', message: 'unreachable' }, 10);
  t.ok(ms[0]! <= config.refetchMs * (1 + config.retry.jitter), `starts near refetchMs: ${ms[0]}`);
  t.ok(ms[4]! > ms[0]! * 4, `grows: ${ms.join(', ')}`);
  t.ok(Math.max(...ms) <= config.retry.maxMs, 'capped');
});

t.test('a failed provider update is retried with backoff, not left until the next host event', async (t) => {
  const runningState = step(fresh(), { type: 'pod.provider-fetched', pod: { ...host, status: { phase: 'Running' } } }).state;
  const failed = step(runningState, { type: 'pod.update-failed', message: 'timed out' });
  const [timer] = timers(failed);
  t.same(timer?.msg, { type: 'pod.retry-update' }, 'a retry is scheduled');
  t.ok((timer?.ms ?? 0) >= config.retry.minMs * (1 - config.retry.jitter));
  const retried = step(failed.state, { type: 'pod.retry-update' });
  t.ok((retried.stop ? [] : retried.effects ?? []).some((e) => e.type === 'provider.update'), 'the retry sends the update again');
  const ms = delays(runningState, { type: 'pod.update-failed', message: 'timed out' }, 6);
  t.ok(ms[5]! > ms[0]!, `grows: ${ms.join(', ')}`);
});

t.test("the API server's Retry-After is honoured: no retry sooner than it asks", async (t) => {
  const [timer] = timers(step(annotating(), { type: 'pod.annotation-failed', message: '429 TooManyRequests', retryAfterMs: 30_000 }));
  t.ok((timer?.ms ?? 0) >= 30_000, `waits ${timer?.ms} ms`);
  const [fetch] = timers(step(fresh(), { type: 'pod.provider-fetch-failed', message: '429', retryAfterMs: 45_000 }));
  t.ok((fetch?.ms ?? 0) >= 45_000, `re-read waits ${fetch?.ms} ms`);
});
