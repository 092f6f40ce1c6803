/**
 * One host client per node: the Kubernetes provider is handed the node's host ClusterClient, the
 * one the agent's clients call through, instead of building a second one. So the provider's host
 * calls and the agent's share one rate limiter (and pool, and fence), and the provider never
 * closes a client it was handed. Two mock API servers: the host, and the remote.
 */
import t, { type Test } from 'tap';
import { ClusterClient } from '../../../src/adapters/kubernetes/clusterClient.js';
import { createKubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { KubernetesProvider } from '../../../src/providers/kubernetes/index.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import { MockApiServer } from '../../adapters/kubernetes/mockApiServer.js';
import { mockClusters } from './mockClusters.js';

const podWithConfigMap: Pod = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'host-uid' },
  spec: { containers: [{ name: 'app', image: 'x' }], volumes: [{ name: 'conf', configMap: { name: 'app-config' } }] },
};

async function world(t: Test) {
  const { host, remote } = await mockClusters(t);
  remote.route((r) => {
    if (r.method === 'POST' && r.url.pathname === '/api/v1/namespaces') return { status: 201, body: JSON.parse(r.body) as unknown };
    return undefined;
  });
  // The host has no ConfigMap app-config and no Node vk-1: both answer 404 (the mock's default).
  const hostClient = new ClusterClient(host.kubeConfig());
  t.teardown(() => hostClient.stop());
  const agent = createKubeClients(hostClient, { nodeName: 'vk-1' });
  t.teardown(() => agent.stop());
  const provider = new KubernetesProvider({
    nodeName: 'vk-1', hostClusterId: 'home', host: hostClient, remote: remote.kubeConfig(), reflectedKinds: [],
  });
  t.teardown(() => provider.stop());
  return { host, remote, hostClient, agent, provider };
}

t.test('the agent and the provider call the host through one rate limiter', async (t) => {
  const { host, hostClient, agent, provider } = await world(t);
  t.equal(agent.cluster, hostClient, 'the agent\'s clients are built on the client handed in');
  t.equal(await agent.nodes.getNode('vk-1'), undefined, 'the agent reads its Node (404)');
  const error = await provider.createPod(podWithConfigMap).then(() => undefined, (e: unknown) => e);
  t.equal(providerKindOf(error), 'transient', 'the missing ConfigMap: a creation to retry');
  t.equal(host.matching('GET', '/api/v1/namespaces/shop/configmaps/app-config').length, 1, 'the provider read the ConfigMap from the host');
  const counted = [...hostClient.apiRequestCounts().values()].reduce((a, b) => a + b, 0);
  t.equal(counted, host.requests.length, 'every request the host saw went through the one limiter');
  t.equal(hostClient.apiRequestCounts().get('get 404'), 2, 'the agent\'s read and the provider\'s, counted together');
  t.same(agent.apiRequestCounts(), hostClient.apiRequestCounts(), 'the agent\'s metrics are the shared limiter\'s');
});

t.test('the provider does not close a host client it was handed; the agent goes on calling through it', async (t) => {
  const { host, agent, provider } = await world(t);
  await provider.stop();
  t.equal(await agent.nodes.getNode('vk-1'), undefined, 'still answered after the provider stopped');
  t.equal(host.matching('GET', '/api/v1/nodes/vk-1').length, 1);
});

t.test('fencing the agent\'s writes fences the provider\'s host writes too: one fence', async (t) => {
  const { hostClient, agent } = await world(t);
  agent.fenceWrites('the lock of node vk-1 was lost');
  await t.rejects(
    hostClient.call('other', { verb: 'create', target: 'configmap shop-home/x' }, (core, o) => core.createNamespacedConfigMap({ namespace: 'shop-home', body: {} }, o)),
    /writes fenced: the lock of node vk-1 was lost/,
  );
  agent.openWrites();
  await t.rejects(
    hostClient.call('other', { verb: 'create', target: 'configmap shop-home/x' }, (core, o) => core.createNamespacedConfigMap({ namespace: 'shop-home', body: {} }, o)),
    /404|not find/,
    'open again: the write reaches the host (which answers 404)',
  );
});

t.test('one host EventRecorder per node: the agent\'s clients and the provider take the one handed in and make none of their own', async (t) => {
  const host = await MockApiServer.start();
  const remote = await MockApiServer.start();
  t.teardown(() => Promise.all([host.close(), remote.close()]));
  remote.route((r) => (r.url.searchParams.get('watch') === 'true' ? 'hang' : r.method === 'GET' ? { body: { metadata: { resourceVersion: '1' }, items: [] } } : undefined));
  const hostClient = new ClusterClient(host.kubeConfig());
  t.teardown(() => hostClient.stop());
  const recorder = hostClient.eventRecorder({ reportingInstance: 'vk-1' });
  let made = 0;
  const make = hostClient.eventRecorder.bind(hostClient);
  hostClient.eventRecorder = (options) => {
    made += 1;
    return make(options);
  };
  const agent = createKubeClients(hostClient, { nodeName: 'vk-1', eventRecorder: recorder });
  t.teardown(() => agent.stop());
  const provider = new KubernetesProvider({ nodeName: 'vk-1', hostClusterId: 'home', host: hostClient, hostEvents: recorder, remote: remote.kubeConfig(), reflectedKinds: [] });
  t.teardown(() => provider.stop());
  t.equal(agent.events, recorder, 'the agent records through the node\'s recorder');
  t.equal(made, 0, 'neither made a second recorder over the host client');
});
