/**
 * Readiness gates: the host pod's Ready follows its own gates, as the kubelet computes it. The
 * remote twin has no gates (nothing remote would set them), so its Ready alone must not make the
 * host pod Ready.
 */
import t from 'tap';
import type { Pod, PodCondition, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import { type PodEffect, type PodMsg, type PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import { withReadinessGates } from '../../../src/actors/pod/readinessGates.js';
import { fingerprint } from '../../../src/lib/fingerprint.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const gate = 'example.com/feature-ready';

function hostPod(gateStatus?: 'True' | 'False'): Pod {
  return {
    metadata: { namespace: 'shop', name: 'web-1', uid: 'uid-1', resourceVersion: '10' },
    spec: { nodeName: 'vnode-1', readinessGates: [{ conditionType: gate }], containers: [{ name: 'app', image: 'nginx:1' }] },
    status: { phase: 'Running', conditions: gateStatus ? [{ type: gate, status: gateStatus }] : [] },
  };
}
const remoteReady: PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }],
  containerStatuses: [{ name: 'app', image: 'nginx:1', imageID: '', ready: true, restartCount: 0, state: { running: {} } }],
};
const readyOf = (s: PodStatus | undefined): PodCondition | undefined => s?.conditions?.find((c) => c.type === 'Ready');
type Next = Transition<PodState, PodEffect>;
const step = (state: PodState, msg: PodMsg): Next => decidePod(config, state, msg, NOW);
const writes = (n: Next): PodStatus[] => (n.stop ? [] : n.effects ?? []).flatMap((e) => (e.type === 'host.write-status' ? [e.status] : []));

t.test('Ready is False while a gate is False or missing, with the kubelet reason and message', async (t) => {
  const missing = readyOf(withReadinessGates(remoteReady, hostPod()));
  t.match(missing, { status: 'False', reason: 'ReadinessGatesNotReady', message: `corresponding condition of pod readiness gate "${gate}" does not exist.` });
  const off = readyOf(withReadinessGates(remoteReady, hostPod('False')));
  t.match(off, { status: 'False', reason: 'ReadinessGatesNotReady', message: `the status of pod readiness gate "${gate}" is not "True", but False` });
  t.equal(readyOf(withReadinessGates(remoteReady, hostPod('True')))?.status, 'True', 'every gate True: the containers decide');
  t.same(withReadinessGates(remoteReady, { ...hostPod('False'), spec: { containers: [] } }), remoteReady, 'no gates: unchanged');
  const notReady = { ...remoteReady, conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady' }] };
  t.same(withReadinessGates(notReady, hostPod()), notReady, 'containers not ready: their reason stays');
});

t.test('the actor writes Ready=False while the gate is False, and Ready=True once it is set True', async (t) => {
  let s = initialPodState(hostPod('False'), { namespace: 'shop', name: 'web-1', uid: 'uid-1' }, ready);
  const fetched = step(s, { type: 'pod.provider-fetched', pod: { ...hostPod(), status: remoteReady } });
  t.equal(readyOf(writes(fetched)[0])?.status, 'False', 'remote twin Ready, host pod not');
  const written = writes(fetched)[0] ?? {};
  s = step(fetched.state, { type: 'pod.status-written', written: fingerprint(written), stored: fingerprint(written), storedVersion: '11' }).state;
  const opened: Pod = { ...hostPod('True'), metadata: { ...hostPod().metadata, resourceVersion: '12' }, status: { ...written, conditions: [...(written.conditions ?? []), { type: gate, status: 'True' }] } };
  const changed = step(s, { type: 'pod.host-changed', pod: opened });
  t.equal(readyOf(writes(changed)[0])?.status, 'True', 'the gate opened: Ready is written True');
});
