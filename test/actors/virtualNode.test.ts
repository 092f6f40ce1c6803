import t from 'tap';
import { ManualClock } from '../support/manualClock.js';
import type { Node, NodeStatus, Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import type { NodeApi } from '../../src/adapters/kubernetes/nodeApi.js';
import type { PodApi } from '../../src/adapters/kubernetes/podApi.js';
import type { NodeWatch, PodWatch } from '../../src/adapters/kubernetes/watch.js';
import { silentLogger } from '../../src/adapters/logger.js';
import { markGivenUp, type VirtualNodeDeps } from '../../src/actors/virtualNode.js';
import { FakeEvents } from './fakes/fakeEvents.js';

const readyPod = (name: string, phase: string): Pod => ({
  metadata: { namespace: 'shop', name, uid: `uid-${name}` },
  spec: { nodeName: 'vnode-1', containers: [{ name: 'app', image: 'nginx' }] },
  status: { phase, podIP: '10.0.0.1', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: phase === 'Running' ? 'True' : 'False' }] },
});

/** Only what giving a node up touches; the rest of the dependencies are never called. */
function givenUpDeps(pods: Pod[]): { deps: VirtualNodeDeps; statusWrites: Array<{ name: string; status: PodStatus }>; nodeWrites: NodeStatus[] } {
  const statusWrites: Array<{ name: string; status: PodStatus }> = [];
  const nodeWrites: NodeStatus[] = [];
  const podWatch = { list: () => pods, stop: async () => 'clean' } as unknown as PodWatch;
  const nodeWatch = { stop: async () => 'clean' } as unknown as NodeWatch;
  const nodeApi = { patchNodeStatus: async (_name: string, status: NodeStatus) => (nodeWrites.push(status), {} as Node) } as unknown as NodeApi;
  const podApi = {
    patchPodStatus: async (_ns: string, name: string, _uid: string, status: PodStatus) => (statusWrites.push({ name, status }), {} as Pod),
  } as unknown as PodApi;
  const deps = { podWatch, nodeWatch, nodeApi, podApi, events: new FakeEvents(), logger: silentLogger, clock: new ManualClock() } as unknown as VirtualNodeDeps;
  return { deps, statusWrites, nodeWrites };
}

t.test('a given-up node marks its pods NotReady along with the Node', async (t) => {
  const { deps, statusWrites, nodeWrites } = givenUpDeps([readyPod('web-1', 'Running'), readyPod('job-1', 'Succeeded')]);
  markGivenUp(deps, 'vnode-1', 'too many restarts', new Error('boom'));
  await new Promise((r) => setImmediate(r));
  t.equal(nodeWrites[0]?.conditions?.[0]?.status, 'False');
  t.same(statusWrites.map((w) => w.name), ['web-1'], 'a pod that already ended is left alone');
  const status = statusWrites[0]?.status;
  t.match(status?.conditions?.find((c) => c.type === 'Ready'), { status: 'False', reason: 'VirtualNodeNotReady', message: /TetherGaveUp/ });
  t.match(status?.conditions?.find((c) => c.type === 'ContainersReady'), { status: 'False', reason: 'VirtualNodeNotReady' });
  t.equal(status?.phase, 'Running', 'the rest of the status stays as it was');
});
