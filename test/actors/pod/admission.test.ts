/**
 * The pod actor asks the node's admission before the provider (issue 24, item 4): a fresh pod is
 * created only once admitted; a rejected one becomes Failed with the kubelet's reason and
 * "Pod was rejected: <message>", with a Warning Event of that reason, and never reaches the provider.
 * A pod already at the provider (a restart) is adopted as it is, never asked again.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import type { PodEffect, PodMsg, PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-12-02T19:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const host: Pod = {
  metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1' },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'nginx:1' }] },
  status: { phase: 'Pending', qosClass: 'BestEffort' },
};
type Next = Transition<PodState, PodEffect>;
const step = (state: PodState, msg: PodMsg): Next => decidePod(config, state, msg, NOW);
const fresh = (): PodState => initialPodState(host, { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
const effects = (next: Next): readonly PodEffect[] => (next.stop ? [] : next.effects ?? []);
const types = (next: Next): string[] => effects(next).map((e) => e.type);

t.test('a pod the provider does not have is admitted before it is created', async (t) => {
  const fetched = step(fresh(), { type: 'pod.provider-fetched', pod: undefined });
  t.same(types(fetched), ['node.admit'], 'admission asked, the provider not yet');
  const admitted = step(fetched.state, { type: 'pod.admitted' });
  t.ok(types(admitted).includes('provider.create'), 'created once admitted');
});

t.test('a rejected pod becomes Failed with the kubelet reason and a Warning Event, never reaching the provider', async (t) => {
  const fetched = step(fresh(), { type: 'pod.provider-fetched', pod: undefined });
  const message = "Node didn't have enough resource: cpu, requested: 1000000, used: 0, capacity: 4000";
  const rejected = step(fetched.state, { type: 'pod.admission-rejected', reason: 'OutOfcpu', message });
  t.equal(rejected.state.stage, 'done');
  t.notOk(types(rejected).some((x) => x.startsWith('provider.')), 'the provider is never asked');
  const write = effects(rejected).find((e) => e.type === 'host.write-status');
  t.match(write, { status: { phase: 'Failed', reason: 'OutOfcpu', message: `Pod was rejected: ${message}`, qosClass: 'BestEffort' } });
  t.match(effects(rejected).find((e) => e.type === 'host.event'), { eventType: 'Warning', reason: 'OutOfcpu', note: message });
  t.same(types(step(rejected.state, { type: 'pod.admitted' })), [], 'a late answer changes nothing');
});

t.test('a pod already at the provider is adopted without asking admission again', async (t) => {
  const running: Pod = { ...host, status: { phase: 'Running' } };
  const adopted = step(fresh(), { type: 'pod.provider-fetched', pod: running });
  t.equal(adopted.state.stage, 'running');
  t.ok(types(adopted).includes('node.admitted-as-running'), 'the node counts it as admitted');
  t.notOk(types(adopted).includes('node.admit'));
});

t.test('an admission answer after the host pod was deleted creates nothing', async (t) => {
  const fetched = step(fresh(), { type: 'pod.provider-fetched', pod: undefined });
  const deleting = step(fetched.state, { type: 'pod.host-changed', pod: { ...host, metadata: { ...host.metadata, deletionTimestamp: new Date(NOW) } } });
  t.notOk(types(step(deleting.state, { type: 'pod.admitted' })).includes('provider.create'));
});
