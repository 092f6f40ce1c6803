/** A provider's pod Events reach the node's host recorder: its own as `Offload`, a container's as the kubelet's on the node. */
import t from 'tap';
import { PodEventForwarder } from '../../src/app/podEventForwarder.js';
import type { EventRecorder, EventSubject } from '../../src/adapters/kubernetes/eventRecorder.js';

function recorder(): { recorder: EventRecorder; seen: Array<{ regarding: EventSubject; type: string; reason: string; note: string; action: string }> } {
  const seen: Array<{ regarding: EventSubject; type: string; reason: string; note: string; action: string }> = [];
  return { seen, recorder: { record: (regarding, type, reason, note, action) => void seen.push({ regarding, type, reason, note, action }) } };
}

const pod = { namespace: 'ns', name: 'web', uid: 'u1' };

void t.test('a provider\'s own Event is recorded with action Offload, from Tether', async (t) => {
  const { recorder: r, seen } = recorder();
  const forwarder = new PodEventForwarder('vn-1');
  forwarder.bind(r);
  forwarder.record(pod, 'Warning', 'FailedMount', 'remote: no such volume');
  t.same(seen, [{ regarding: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'web', uid: 'u1' }, type: 'Warning', reason: 'FailedMount', note: 'remote: no such volume', action: 'Offload' }]);
});

void t.test('a container\'s Event is the kubelet\'s on the node: its field path, its action', async (t) => {
  const { recorder: r, seen } = recorder();
  const forwarder = new PodEventForwarder('vn-1');
  forwarder.bind(r);
  forwarder.record(pod, 'Normal', 'Killing', 'Container app failed liveness probe, will be restarted', { fieldPath: 'spec.containers{app}', action: 'Kill' });
  t.same(seen, [{
    regarding: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'web', uid: 'u1', fieldPath: 'spec.containers{app}', reporter: { component: 'kubelet', host: 'vn-1' } },
    type: 'Normal', reason: 'Killing', note: 'Container app failed liveness probe, will be restarted', action: 'Kill',
  }]);
});

void t.test('before the agent binds a recorder, Events are dropped', async (t) => {
  const forwarder = new PodEventForwarder('vn-1');
  t.doesNotThrow(() => forwarder.record(pod, 'Normal', 'Killing', 'x', { fieldPath: 'spec.containers{app}', action: 'Kill' }));
});
