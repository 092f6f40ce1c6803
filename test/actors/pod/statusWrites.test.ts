/** Status writes: an actor whose host pod is gone writes nothing more. */
import t from 'tap';
import { admittingEverything } from '../../support/admittedStep.js';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { decidePod, initialPodState } from '../../../src/actors/pod/decide.js';
import { type PodEffect, type PodMsg, type PodState } from '../../../src/actors/pod/protocol.js';
import { defaultPodActorConfig } from '../../../src/actors/pod/config.js';
import type { Transition } from '../../../src/runtime/behavior.js';

const config = defaultPodActorConfig('vnode-1');
const NOW = Date.parse('2026-11-30T04:00:00Z');
const ready = { ready: true, reason: 'KubeletReady', message: 'ok' };
const host: Pod = {
  metadata: { namespace: 'data', name: 'db-0', uid: 'uid-1' },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'db:1' }] },
  status: { phase: 'Pending' },
};
const status = (phase: string, ready: boolean): PodStatus => ({
  phase,
  conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }, { type: 'ContainersReady', status: ready ? 'True' : 'False' }],
});
type Next = Transition<PodState, PodEffect>;
const step = admittingEverything((state: PodState, msg: PodMsg, now = NOW): Next => decidePod(config, state, msg, now));
const types = (next: Next): string[] => (next.stop ? [] : next.effects ?? []).map((e) => e.type);

t.test('once a status write finds the host pod gone (404, or another uid holds the name), nothing more is written', async (t) => {
  let s = initialPodState(host, { namespace: 'data', name: 'db-0', uid: 'uid-1' }, ready);
  const fetched = step(s, { type: 'pod.provider-fetched', pod: { ...host, status: status('Running', true) } });
  t.same(types(fetched), ['node.admitted-as-running', 'host.write-status']);
  s = step(fetched.state, { type: 'pod.status-write-failed', message: 'conflict', podGone: true }).state;
  const later = step(s, { type: 'pod.provider-status', status: status('Failed', false) });
  t.notOk(types(later).includes('host.write-status'), 'no write for a pod that is gone');
  t.notOk(types(step(later.state, { type: 'pod.retry-write' })).includes('host.write-status'), 'nor on a retry');
});
