/** The remote node's size, as read from the remote cluster: the pods it lists, and how. */
import { KubeConfig } from '@kubernetes/client-node';
import t from 'tap';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { RemoteNode } from '../../../../src/providers/kubernetes/node/remoteNode.js';
import { pagedList } from '../../../support/pagedList.js';

const worker = { metadata: { name: 'w1' }, status: { allocatable: { cpu: '8', memory: '16Gi', pods: '2000' }, conditions: [{ type: 'Ready', status: 'True' }] } };
const pod = (name: string, own: boolean): object => ({
  metadata: { name, namespace: 'ns', labels: own ? { own: 'yes' } : {} },
  spec: { nodeName: 'w1', containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1' } } }] },
  status: { phase: 'Running' },
});

t.test('capacity reads the remote pods page by page, and a foreign pod on a later page still counts', async (t) => {
  const pods = [...Array.from({ length: 1_100 }, (_, i) => pod(`own-${i}`, true)), pod('foreign', false)];
  const { asks, list } = pagedList(pods);
  const core = { listNode: async () => ({ items: [worker] }), listPodForAllNamespaces: list };
  const remote = { kubeConfig: new KubeConfig(), call: (_p: string, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  const node = new RemoteNode({ remote, isOwnPod: (p) => p.metadata?.labels?.['own'] === 'yes' });
  const capacity = await node.capacity();
  t.same(asks.map((a) => a.limit), [500, 500, 500], 'three pages of at most 500');
  t.match(capacity, { allocatable: { cpu: '7', pods: '1999' } }, 'the foreign pod\'s request is taken from what is left; this node\'s own pods are not');
});
