/**
 * observedGeneration, decided as kubelet v1.36.3 computes it (PodObservedGenerationTracking is GA
 * and locked on): every status Tether writes carries the host pod's metadata.generation, on the
 * status and on each condition Tether owns; a new generation is answered with a status for it;
 * nothing is written when the generation has not moved.
 */
import t from 'tap';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import { fingerprint } from '../../../src/lib/fingerprint.js';
import { ownedFingerprint } from '../../../src/actors/pod/podStatusView.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const notReady = { ready: false, reason: 'ProviderUnreachable', message: 'down' };

function hostPod(generation: number, image = 'nginx:1', extra: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1', generation, ...extra },
    spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', observedGeneration: 1 }] },
  };
}
/** The provider's status: a remote kubelet's own generation (7) on it, which is not the host pod's. */
const running: PodStatus = {
  phase: 'Running',
  observedGeneration: 7,
  conditions: [
    { type: 'PodScheduled', status: 'True', observedGeneration: 7 },
    { type: 'Ready', status: 'True', observedGeneration: 7 },
    { type: 'ContainersReady', status: 'True' },
  ],
};

type Next = Transition<PodState, PodEffect>;
const step = (state: PodState, msg: PodMsg, now = NOW): Next => decidePod(config, state, msg, now);
const writes = (next: Next): PodStatus[] => (next.stop ? [] : next.effects ?? []).flatMap((e) => (e.type === 'host.write-status' ? [e.status] : []));
const landed = (next: Next): PodState => {
  const [status] = writes(next).slice(-1);
  return status ? step(next.state, { type: 'pod.status-written', written: fingerprint(status), stored: ownedFingerprint(status) }).state : next.state;
};
const generations = (status: PodStatus | undefined): Record<string, number | undefined> =>
  Object.fromEntries([['status', status?.observedGeneration], ...(status?.conditions ?? []).map((c) => [c.type, c.observedGeneration])]);

function runningAt(generation: number, node = ready): PodState {
  const start = initialPodState(hostPod(generation), { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, node);
  return landed(step(start, { type: 'pod.provider-fetched', pod: { ...hostPod(generation), status: running } }));
}

t.test("the first status written carries the host pod's generation, on the status and on each condition Tether owns", async (t) => {
  const start = initialPodState(hostPod(3), { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const [written] = writes(step(start, { type: 'pod.provider-fetched', pod: { ...hostPod(3), status: running } }));
  t.same(generations(written), { status: 3, Ready: 3, ContainersReady: 3 }, "never the provider's own generation; PodScheduled is the scheduler's, not written");
});

t.test('a spec update (a new generation) is sent to the provider and answered with one status write for it', async (t) => {
  const s = runningAt(1);
  const updated = step(s, { type: 'pod.host-changed', pod: { ...hostPod(2, 'nginx:2'), status: s.host?.status ?? {} } });
  t.ok(!updated.stop && (updated.effects ?? []).some((e) => e.type === 'provider.update'), 'the provider gets the new spec');
  const sent = writes(updated);
  t.equal(sent.length, 1, 'one write');
  t.same(generations(sent[0]), { status: 2, Ready: 2, ContainersReady: 2 });
  t.equal(sent[0]?.phase, 'Running', "the provider's status, for the new generation");
  const again = step(landed(updated), { type: 'pod.host-changed', pod: { ...hostPod(2, 'nginx:2'), status: sent[0] ?? {} } });
  t.same(writes(again), [], 'the same generation again: nothing written');
});

t.test('the same generation on every resync and provider status writes nothing new', async (t) => {
  const s = runningAt(4);
  t.same(writes(step(s, { type: 'pod.host-changed', pod: { ...hostPod(4), status: s.writes.last ?? {} } })), [], 'a resync');
  t.same(writes(step(s, { type: 'pod.provider-status', status: running })), [], 'the same provider status');
});

t.test("status.observedGeneration never goes below what the host pod shows (the kubelet keeps the larger)", async (t) => {
  const host = { ...hostPod(2), status: { phase: 'Running', observedGeneration: 5 } };
  const start = initialPodState(host, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const [written] = writes(step(start, { type: 'pod.provider-fetched', pod: { ...host, status: running } }));
  t.equal(written?.observedGeneration, 5);
  t.equal(written?.conditions?.find((c) => c.type === 'Ready')?.observedGeneration, 2, 'conditions carry the generation itself');
});

t.test("a host pod without a generation gets none, and never the provider's", async (t) => {
  const host: Pod = { ...hostPod(1), metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1' } };
  const start = initialPodState(host, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const [written] = writes(step(start, { type: 'pod.provider-fetched', pod: { ...host, status: running } }));
  t.same(generations(written), { status: undefined, Ready: undefined, ContainersReady: undefined });
});

t.test('while the node is NotReady, a new generation rewrites the NotReady override for it, not Ready=True', async (t) => {
  const down = landed(step(runningAt(1), { type: 'pod.node-readiness', readiness: notReady }));
  const [written] = writes(step(down, { type: 'pod.host-changed', pod: hostPod(2, 'nginx:2') }));
  t.equal(written?.observedGeneration, 2);
  t.match(written?.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'VirtualNodeNotReady', observedGeneration: 2 });
});

t.test('a graceful deletion (the API server bumps the generation) costs no extra write: the final status carries it', async (t) => {
  const s = runningAt(1);
  const deleting = step(s, { type: 'pod.host-changed', pod: hostPod(2, 'nginx:1', { deletionTimestamp: new Date(NOW), deletionGracePeriodSeconds: 30 }) });
  t.same(writes(deleting), [], 'no write on the deletion itself');
  const ended = step(deleting.state, { type: 'pod.provider-status', status: { phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'False' }] } });
  t.same(generations(writes(ended)[0]), { status: 2, Ready: 2 });
});
