/**
 * ServiceAccount access to the host API server (pods/hostTokens.ts): with the node's access on, a
 * pod's token is asked of the HOST for its host ServiceAccount, bound to the host pod, written
 * into a remote Secret that carries Tether's marks before the pod is created, asked for again at
 * 80% of its life (the loop's requeue, on a manual clock), and the Secret goes with the pod. With
 * access off nothing is asked and nothing written.
 */
import t from 'tap';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Pod, Secret } from '../../../../src/adapters/kubernetes/model.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { HostTokens, subjectOfHostPod } from '../../../../src/providers/kubernetes/pods/hostTokens.js';
import { RemotePodCalls, type RemotePodCallsDeps } from '../../../../src/providers/kubernetes/pods/remotePodCalls.js';
import { hostTokenSecretName, HOST_TOKEN_SECRET_TYPE, isHostTokenSecret } from '../../../../src/providers/kubernetes/pods/hostTokenSecret.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import { hostAccessPlan, type HostAccessSettings } from '../../../../src/providers/kubernetes/pods/hostAccess.js';
import { hostTokenLabel, hostUidAnnotation, managedByLabel, hostClusterLabel, virtualNodeLabel } from '../../../../src/providers/kubernetes/marks.js';
import type { ReconcileContext } from '../../../../src/lib/reconcile.js';
import { ManualClock } from '../../../support/manualClock.js';
import { kubeError } from '../../../support/kubeErrors.js';
import { asCalled, silentLog } from '../configReflection/configMapWorld.js';

const rule = { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespaceOf: (ns: string) => `${ns}-home` };
const settings: HostAccessSettings = { ip: '192.0.2.10', port: 6443, expirationSeconds: 3600 };
const ctx: ReconcileContext = { signal: new AbortController().signal, failures: 0 };

const hostPod: Pod = {
  metadata: { name: 'operator', namespace: 'shop', uid: 'host-uid-1' },
  spec: { serviceAccountName: 'op-sa', containers: [{ name: 'app', image: 'op:1' }] },
};

interface TokenAsk { namespace: string; name: string; body: { spec: { expirationSeconds?: number; audiences: string[]; boundObjectRef?: { kind?: string; name?: string; uid?: string } } } }

function world() {
  const clock = new ManualClock();
  const asks: TokenAsk[] = [];
  const writes: string[] = [];
  const secrets = new Map<string, Secret>();
  let rv = 1;
  let podsInRemote: Pod[] = [];
  const host = {
    call: (_p: string, op: Operation, fn: (c: unknown, o: unknown) => Promise<unknown>) => asCalled(op, () => fn({
      createNamespacedServiceAccountToken: async (ask: TokenAsk) => {
        asks.push(ask);
        return { status: { token: `token-${asks.length}`, expirationTimestamp: new Date(clock.now() + (ask.body.spec.expirationSeconds ?? 3600) * 1000) } };
      },
      readNamespacedConfigMap: async () => ({ data: { 'ca.crt': 'HOST-CA' } }),
    }, {})),
  } as unknown as ClusterClient;
  const stored = (body: Secret): Secret => {
    const s = structuredClone(body);
    s.metadata = { ...s.metadata, uid: secrets.get(`${s.metadata?.namespace}/${s.metadata?.name}`)?.metadata?.uid ?? `secret-uid-${rv}`, resourceVersion: String(++rv) };
    secrets.set(`${s.metadata.namespace}/${s.metadata.name}`, s);
    return s;
  };
  const notFound = (): Promise<never> => Promise.reject(kubeError('not-found'));
  const remote = {
    call: (_p: string, op: Operation, fn: (c: unknown, o: unknown) => Promise<unknown>) => asCalled(op, () => fn({
      readNamespacedSecret: async ({ namespace, name }: { namespace: string; name: string }) => secrets.get(`${namespace}/${name}`) ?? notFound(),
      createNamespacedSecret: async ({ body }: { body: Secret }) => {
        writes.push(`create ${body.metadata?.name}`);
        return stored(body);
      },
      replaceNamespacedSecret: async ({ body }: { body: Secret }) => {
        writes.push(`replace ${body.metadata?.name} at ${body.metadata?.uid}/${body.metadata?.resourceVersion}`);
        return stored(body);
      },
      deleteNamespacedSecret: async ({ namespace, name, body }: { namespace: string; name: string; body: { preconditions: { uid: string; resourceVersion: string } } }) => {
        writes.push(`delete ${name} at ${body.preconditions.uid}/${body.preconditions.resourceVersion}`);
        secrets.delete(`${namespace}/${name}`);
        return {};
      },
      listSecretForAllNamespaces: async () => ({ items: [...secrets.values()] }),
      createNamespacedPod: async ({ body }: { body: Pod }) => {
        writes.push(`create pod ${body.metadata?.name}`);
        return body;
      },
    }, {})),
  } as unknown as ClusterClient;
  const pods = {
    get: (ns: string, name: string) => podsInRemote.find((p) => p.metadata?.namespace === ns && p.metadata.name === name),
    list: () => podsInRemote,
    hasSynced: () => true,
  };
  const tokens = new HostTokens({ host, remote, rule, settings, pods, clock, log: silentLog });
  const remotePodOf = (pod: Pod): Pod => {
    const plan = hostAccessPlan(pod, settings);
    return toRemotePod(pod, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home', ...(plan ? { hostAccess: plan } : {}) });
  };
  return {
    clock, asks, writes, secrets, tokens, remote, host, remotePodOf,
    setRemotePods: (p: Pod[]) => void (podsInRemote = p),
    secret: (): Secret | undefined => secrets.get(`shop-home/${hostTokenSecretName('operator')}`),
  };
}

function podCalls(w: ReturnType<typeof world>, access: HostAccessSettings | undefined): RemotePodCalls {
  return new RemotePodCalls({
    o: { nodeName: 'vk-1', hostClusterId: 'home', ...(access ? { hostServiceAccountAccess: access } : {}) },
    remote: w.remote, rule, remoteNamespaceOf: rule.remoteNamespaceOf,
    namespaces: { ensure: async () => undefined, forget: () => undefined },
    reflector: { reflectFor: async () => ({ done: () => undefined }) },
    pods: { get: () => undefined },
    ...(access ? { hostTokens: w.tokens } : {}),
  } as unknown as RemotePodCallsDeps);
}

void t.test('on create, a token of the host ServiceAccount bound to the host pod is written into a marked remote Secret before the pod', async (t) => {
  const w = world();
  await podCalls(w, settings).create(hostPod);
  t.same(w.asks.map((a) => ({ namespace: a.namespace, name: a.name, audiences: a.body.spec.audiences, ttl: a.body.spec.expirationSeconds, bound: a.body.spec.boundObjectRef })), [{
    namespace: 'shop', name: 'op-sa', audiences: [], ttl: 3600, bound: { apiVersion: 'v1', kind: 'Pod', name: 'operator', uid: 'host-uid-1' },
  }], 'asked of the host, for the pod\'s own account, bound to the host pod, the API server\'s audience');
  t.same(w.writes, ['create operator-tether-host-token', 'create pod operator'], 'the Secret exists before the pod');
  const secret = w.secret();
  t.equal(secret?.type, HOST_TOKEN_SECRET_TYPE);
  t.match(secret?.metadata?.labels, { [managedByLabel]: 'tether', [hostClusterLabel]: 'home', [virtualNodeLabel]: 'vk-1', [hostTokenLabel]: 'true' }, 'Tether\'s marks and its own');
  t.equal(secret?.metadata?.annotations?.[hostUidAnnotation], 'host-uid-1');
  t.ok(secret && isHostTokenSecret(secret, rule));
  const data = Object.fromEntries(Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
  t.same(data, { token: 'token-1', 'ca.crt': 'HOST-CA', namespace: 'shop' }, 'token, the host CA and the host namespace');
});

void t.test('the remote pod mounts it where in-cluster clients look, and points them at the host API server', async (t) => {
  const w = world();
  const remote = w.remotePodOf({ ...hostPod, spec: { ...hostPod.spec, containers: [{ name: 'app', image: 'op:1', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'x' }] }], initContainers: [{ name: 'init', image: 'i' }] } });
  t.same(remote.spec?.volumes, [{ name: 'tether-host-api-access', secret: { secretName: 'operator-tether-host-token', defaultMode: 0o644 } }]);
  for (const c of [...(remote.spec?.containers ?? []), ...(remote.spec?.initContainers ?? [])]) {
    t.same(c.volumeMounts, [{ name: 'tether-host-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }], `${c.name}: mounted`);
    t.same(c.env, [{ name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' }, { name: 'KUBERNETES_SERVICE_PORT', value: '6443' }], `${c.name}: the host API server`);
  }
  t.same(remote.spec?.hostAliases, [{ ip: '192.0.2.10', hostnames: ['kubernetes.default.svc'] }], 'the name resolves to the configured address');
  t.equal(remote.spec?.automountServiceAccountToken, false, 'the remote account is still never mounted');
  t.equal(remote.metadata?.annotations?.['tether.dev/host-service-account'], 'op-sa');
});

void t.test('a hostname address: the pods reach the host API server by that name, with no hostAlias (which needs an IP)', async (t) => {
  const byName: HostAccessSettings = { hostname: 'api.host.example', port: 443 };
  const own = { ip: '10.1.2.3', hostnames: ['db'] };
  const pod: Pod = { ...hostPod, spec: { containers: [{ name: 'app', image: 'op:1' }], serviceAccountName: 'op-sa', hostAliases: [own] } };
  const plan = hostAccessPlan(pod, byName);
  const remote = toRemotePod(pod, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home', ...(plan ? { hostAccess: plan } : {}) });
  t.same(remote.spec?.containers[0]?.env, [{ name: 'KUBERNETES_SERVICE_HOST', value: 'api.host.example' }, { name: 'KUBERNETES_SERVICE_PORT', value: '443' }]);
  t.same(remote.spec?.hostAliases, [own], 'the pod\'s own aliases only');
  t.same(remote.spec?.containers[0]?.volumeMounts, [{ name: 'tether-host-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }], 'the token mounted as with an IP');
});

void t.test('the token is asked for again at 80% of its life, by the loop\'s requeue, and the Secret replaced at its uid and version', async (t) => {
  const w = world();
  await podCalls(w, settings).create(hostPod);
  w.setRemotePods([{ ...w.remotePodOf(hostPod), metadata: { ...w.remotePodOf(hostPod).metadata, uid: 'remote-uid' } }]);
  const loop = w.tokens.reconciler();
  t.ok((await loop.keys()).includes('shop-home/operator'), 'a pod with access is a key of the loop');
  t.same(await loop.reconcile('shop-home/operator', ctx), { type: 'requeue-after', ms: 2_880_000 }, 'in sync: looked at again at 80% of 3600 s');
  t.equal(w.asks.length, 1, 'no new token before it is due');
  w.clock.advance(2_000_000);
  t.same(await loop.reconcile('shop-home/operator', ctx), { type: 'requeue-after', ms: 880_000 }, 'a resync before the due time only waits the rest');
  w.clock.advance(880_000);
  const before = w.secret()?.metadata;
  t.same(await loop.reconcile('shop-home/operator', ctx), { type: 'requeue-after', ms: 2_880_000 }, 'refreshed, the next one due at 80% again');
  t.equal(w.asks.length, 2, 'a new token asked of the host');
  t.equal(w.asks[1]?.body.spec.boundObjectRef?.uid, 'host-uid-1');
  t.equal(w.writes.at(-1), `replace operator-tether-host-token at ${before?.uid}/${before?.resourceVersion}`);
  t.equal(Buffer.from(w.secret()?.data?.token ?? '', 'base64').toString(), 'token-2');
});

void t.test('the Secret goes with the pod; a Secret whose pod is being created, or young, is kept', async (t) => {
  const w = world();
  const calls = podCalls(w, settings);
  await calls.create(hostPod);
  const loop = w.tokens.reconciler();
  w.setRemotePods([]);
  t.match(await loop.reconcile('shop-home/operator', ctx), { type: 'requeue-after' }, 'just written, its pod not yet in the informer: kept');
  t.ok(w.secret());
  w.clock.advance(30_000);
  const seen = w.secret()?.metadata;
  w.tokens.podGone('shop-home', 'operator');
  t.same(await loop.reconcile('shop-home/operator', ctx), { type: 'done' });
  t.equal(w.writes.at(-1), `delete operator-tether-host-token at ${seen?.uid}/${seen?.resourceVersion}`, 'deleted at the uid and version read');
  t.notOk(w.secret());
});

void t.test('a Secret left by a pod that went while no agent ran is found by the sweep and deleted', async (t) => {
  const w = world();
  await podCalls(w, settings).create(hostPod);
  w.clock.advance(60_000);
  const enqueued: string[] = [];
  const loop = w.tokens.reconciler();
  loop.connect((key) => enqueued.push(key));
  t.same(await loop.reconcile('sweep', ctx), { type: 'done' });
  t.same(enqueued, ['shop-home/operator']);
  await loop.reconcile('shop-home/operator', ctx);
  t.notOk(w.secret());
});

void t.test('a Secret without Tether\'s marks holding the name is never replaced or deleted', async (t) => {
  const w = world();
  w.secrets.set(`shop-home/${hostTokenSecretName('operator')}`, { metadata: { name: hostTokenSecretName('operator'), namespace: 'shop-home', uid: 'theirs' }, data: { token: 'eA==' } });
  const error = await podCalls(w, settings).create(hostPod).then(() => undefined, (e: unknown) => e);
  t.match((error as Error).message, /not Tether's host token secret/);
  t.same(w.writes, [], 'no write, no pod');
  t.same(w.asks, [], 'and no token minted for it');
  w.clock.advance(60_000);
  t.same(await w.tokens.reconciler().reconcile('shop-home/operator', ctx), { type: 'done' });
  t.equal(w.secret()?.metadata?.uid, 'theirs', 'left alone');
});

void t.test('with access off (the default), or a pod that opts out, no token is asked and no Secret written', async (t) => {
  const w = world();
  await podCalls(w, undefined).create(hostPod);
  const optedOut: Pod = { ...hostPod, spec: { serviceAccountName: 'op-sa', containers: [{ name: 'app', image: 'op:1' }], automountServiceAccountToken: false } };
  await podCalls(w, settings).create(optedOut);
  t.same(w.asks, [], 'nothing asked of the host');
  t.same(w.writes, ['create pod operator', 'create pod operator'], 'only the pods');
  const off = toRemotePod(hostPod, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home' });
  t.notOk(off.spec?.volumes, 'no token volume');
  t.notOk(off.spec?.hostAliases);
  t.notOk(off.spec?.containers[0]?.env);
  t.equal(hostAccessPlan(optedOut, settings), undefined);
  t.equal(subjectOfHostPod(hostPod, 'op-sa').uid, 'host-uid-1');
});

void t.test('the ConfigMap/Secret reflection leaves the token Secret alone: not a copy, not a reference', async (t) => {
  const { referencedObjects } = await import('../../../../src/providers/kubernetes/configReflection/references.js');
  const { isTetherCopy } = await import('../../../../src/providers/kubernetes/configReflection/reflectedObject.js');
  const w = world();
  await podCalls(w, settings).create(hostPod);
  const secret = w.secret();
  t.ok(secret);
  if (secret) t.notOk(isTetherCopy(secret, 'home', rule.remoteNamespaceOf), 'never written, repaired or swept as a copy');
  t.same(referencedObjects(w.remotePodOf(hostPod)), [], 'the remote pod\'s token volume names no host object');
});

void t.test('with access, the ServiceAccount is not reported dropped: its token is in the remote pod', async (t) => {
  const { droppedFields } = await import('../../../../src/providers/kubernetes/pods/droppedFields.js');
  const ns = { hostClusterId: 'home', remoteNamespaceOf: rule.remoteNamespaceOf };
  t.same(droppedFields(hostPod.spec, 'drop', ns), ['spec.serviceAccountName'], 'without access: named in the Event');
  t.same(droppedFields(hostPod.spec, 'drop', ns, true), [], 'with access: kept');
});

void t.test('a retried create reuses the token of this very pod while it is not due; another incarnation gets its own', async (t) => {
  const w = world();
  const calls = podCalls(w, settings);
  await calls.create(hostPod);
  await calls.create(hostPod);
  t.equal(w.asks.length, 1, 'one token for two attempts');
  await calls.create({ ...hostPod, metadata: { ...hostPod.metadata, uid: 'host-uid-2' } });
  t.equal(w.asks.length, 2, 'a namesake with a new uid');
  t.equal(w.asks[1]?.body.spec.boundObjectRef?.uid, 'host-uid-2');
});
