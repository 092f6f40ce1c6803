/**
 * Remote namespaces: one Tether creates carries its marks and the Pod Security labels; one that
 * already exists is used only when it is Tether's for this host cluster or listed as adoptable,
 * and a squatted one gets no pod and no reflected copy, with a reason the host pod can show.
 */
import t from 'tap';
import type { V1Namespace } from '@kubernetes/client-node';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import { eventReasonOf, providerKindOf } from '../../../../src/providers/errors.js';
import type { Reflector } from '../../../../src/providers/kubernetes/configReflection/configReflector.js';
import type { KubernetesProviderOptions } from '../../../../src/providers/kubernetes/options.js';
import { podSecurityLabels } from '../../../../src/providers/kubernetes/pods/podPolicy.js';
import { RemotePodCalls } from '../../../../src/providers/kubernetes/pods/remotePodCalls.js';
import { existingNamespaceRefusal, RemoteNamespaces } from '../../../../src/providers/kubernetes/pods/remoteNamespaces.js';
import type { RemotePods } from '../../../../src/providers/kubernetes/pods/remotePods.js';
import { kubeError } from '../../../support/kubeErrors.js';

const ours = { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'home' };

/** A remote cluster holding `existing` namespaces; records the namespaces and pods created. */
function remoteCluster(existing: Record<string, Record<string, string> | undefined>) {
  const namespaces = new Map<string, V1Namespace>(Object.entries(existing).map(([name, labels]) => [name, { metadata: { name, ...(labels ? { labels } : {}) } }]));
  const createdNamespaces: V1Namespace[] = [];
  const createdPods: string[] = [];
  const core = {
    createNamespace: ({ body }: { body: V1Namespace }) => {
      const name = body.metadata?.name ?? '';
      if (namespaces.has(name)) return Promise.reject(kubeError('already-exists'));
      namespaces.set(name, body);
      createdNamespaces.push(body);
      return Promise.resolve(body);
    },
    readNamespace: ({ name }: { name: string }) => {
      const ns = namespaces.get(name);
      return ns ? Promise.resolve(ns) : Promise.reject(kubeError('not-found'));
    },
    createNamespacedPod: ({ namespace, body }: { namespace: string; body: Pod }) => {
      createdPods.push(`${namespace}/${body.metadata?.name ?? ''}`);
      return Promise.resolve(body);
    },
  };
  const client = { call: (_priority: unknown, _op: unknown, fn: (c: typeof core, o: object) => Promise<unknown>) => fn(core, {}) } as unknown as ClusterClient;
  return { client, createdNamespaces, createdPods, remove: (name: string) => namespaces.delete(name) };
}

/** The pod calls of node vk-1 (host cluster `home`, suffix strategy); records what was reflected where. */
function podCalls(client: ClusterClient, adoptable: readonly string[] = []) {
  const reflected: string[] = [];
  const reflector = {
    reflectFor: (_pod: Pod, remoteNamespace: string) => {
      reflected.push(remoteNamespace);
      return Promise.resolve({ done: () => undefined });
    },
  } as unknown as Reflector;
  const namespaces = new RemoteNamespaces(client, { hostClusterId: 'home', labels: podSecurityLabels(), adoptable });
  const calls = new RemotePodCalls({
    o: { nodeName: 'vk-1', hostClusterId: 'home' } as unknown as KubernetesProviderOptions,
    remote: client, namespaces, reflector, pods: {} as unknown as RemotePods,
    rule: { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespaceOf: (ns) => `${ns}-home` },
    remoteNamespaceOf: (ns) => `${ns}-home`,
  });
  return { calls, reflected };
}

const pod: Pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'x', env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 'db', key: 'pw' } } }] }] },
};

void t.test('a pre-created unmarked <hostns>-<hostClusterId> namespace is refused: no pod and no copy go there, and the reason names it', async (t) => {
  const remote = remoteCluster({ 'shop-home': { team: 'squatter' } });
  const { calls, reflected } = podCalls(remote.client);
  const err = await calls.create(pod).then(() => undefined, (e: unknown) => e);
  t.ok(err, 'the create is refused');
  t.equal(providerKindOf(err), 'transient', 'retried with backoff (deleting or adopting the namespace fixes it)');
  t.equal(eventReasonOf(err), 'RemoteNamespaceNotOwned');
  t.match((err as Error).message, /remote namespace shop-home already exists and it was not created by Tether/);
  t.same(remote.createdPods, []);
  t.same(reflected, []);
});

void t.test('a namespace Tether created for another host cluster is refused too', async (t) => {
  const remote = remoteCluster({ 'shop-home': { 'tether.dev/managed-by': 'tether', 'tether.dev/host-cluster': 'elsewhere' } });
  const err = await podCalls(remote.client).calls.create(pod).then(() => undefined, (e: unknown) => e);
  t.match((err as Error).message, /it is Tether's for host cluster elsewhere/);
  t.same(remote.createdPods, []);
});

void t.test('an existing namespace with Tether\'s marks for this host cluster is used', async (t) => {
  const remote = remoteCluster({ 'shop-home': ours });
  const { calls, reflected } = podCalls(remote.client);
  await calls.create(pod);
  t.same(remote.createdPods, ['shop-home/web']);
  t.same(reflected, ['shop-home']);
});

void t.test('an unmarked namespace listed in adoptNamespaces is used as it is', async (t) => {
  const remote = remoteCluster({ 'shop-home': undefined });
  await podCalls(remote.client, ['shop-home']).calls.create(pod);
  t.same(remote.createdPods, ['shop-home/web']);
});

void t.test('a namespace Tether creates carries its marks and the Pod Security labels', async (t) => {
  const remote = remoteCluster({});
  await podCalls(remote.client).calls.create(pod);
  t.same(remote.createdNamespaces.map((ns) => ns.metadata?.labels), [{
    ...ours, 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'latest',
  }]);
  t.same(remote.createdPods, ['shop-home/web']);
});

void t.test('a refusal is not remembered: once the squatter is gone the namespace is created and used', async (t) => {
  const remote = remoteCluster({ 'shop-home': {} });
  const { calls } = podCalls(remote.client);
  await t.rejects(calls.create(pod));
  remote.remove('shop-home');
  await calls.create(pod);
  t.same(remote.createdPods, ['shop-home/web']);
  t.same(remote.createdNamespaces.map((ns) => ns.metadata?.name), ['shop-home']);
});

void t.test('existingNamespaceRefusal: owned or adoptable passes; anything else names the namespace', (t) => {
  t.equal(existingNamespaceRefusal('a', ours, 'home', []), undefined);
  t.equal(existingNamespaceRefusal('a', undefined, 'home', ['a']), undefined);
  t.match(existingNamespaceRefusal('a', undefined, 'home', ['b']), /remote namespace a already exists/);
  t.match(existingNamespaceRefusal('a', { 'tether.dev/managed-by': 'tether' }, 'home', []), /Tether's for host cluster \(none\)/);
  t.end();
});
