/**
 * The reflector never copies a host ServiceAccount token to the remote cluster: a pod referencing
 * one is refused as invalid input (so the pod actor annotates it and records an Event), and
 * nothing is written remotely. Fake cluster clients: only what reflectFor calls.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { classify } from '../../../src/providers/errors.js';
import type { ClusterClient } from '../../../src/providers/kubernetes/clusterClient.js';
import { Reflector } from '../../../src/providers/kubernetes/reflector.js';
import { ManualClock } from '../../support/manualClock.js';

function fakeCluster(secrets: Record<string, object>, writes: string[]): ClusterClient {
  const core = {
    readNamespacedSecret: async ({ name }: { name: string }) => secrets[name] ?? Promise.reject(Object.assign(new Error('not found'), { code: 404 })),
    createNamespacedSecret: async ({ namespace, body }: { namespace: string; body: { metadata: { name: string } } }) => {
      writes.push(`${namespace}/${body.metadata.name}`);
      return body;
    },
  };
  return { call: (_p: string, _what: string, fn: (c: typeof core) => Promise<unknown>) => fn(core) } as unknown as ClusterClient;
}

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function podWithSecretVolume(secretName: string): Pod {
  return {
    metadata: { name: 'p', namespace: 'shop', uid: 'u' },
    spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', secret: { secretName } }] },
  };
}

void t.test('a pod referencing a ServiceAccount token Secret is refused as invalid input; nothing reaches the remote', async (t) => {
  const writes: string[] = [];
  const host = fakeCluster({
    'builder-token': { metadata: { name: 'builder-token', namespace: 'shop' }, type: 'kubernetes.io/service-account-token', data: { token: 'c2VjcmV0' } },
    plain: { metadata: { name: 'plain', namespace: 'shop' }, type: 'Opaque', data: { a: 'eA==' } },
  }, []);
  const reflector = new Reflector({
    host, remote: fakeCluster({}, writes), hostClusterId: 'home', remoteNamespaceOf: (ns) => `${ns}-home`,
    clock: new ManualClock(), log: silentLog as never,
  });
  const error = await reflector.reflectFor(podWithSecretVolume('builder-token'), 'shop-home').then(() => undefined, (e: unknown) => e);
  t.ok(error, 'refused');
  t.equal(classify(error), 'invalid-input', 'permanent: the pod is rejected with an annotation and an Event');
  t.match((error as Error).message, /secret shop\/builder-token .* is a ServiceAccount token/);
  t.notMatch((error as Error).message, /c2VjcmV0/, 'the token is not in the message');
  t.same(writes, [], 'nothing written to the remote');

  const ok = await reflector.reflectFor(podWithSecretVolume('plain'), 'shop-home');
  ok.done();
  t.same(writes, ['shop-home/plain'], 'an ordinary Secret is still reflected');
  reflector.stop();
});
