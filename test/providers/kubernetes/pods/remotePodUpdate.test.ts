/**
 * A host pod's update reaches its remote pod as a patch of the keys that come from the host:
 * what a remote controller set (Calico, Multus, Istio, a remote webhook) is kept, and a key the
 * host removed goes only if Tether put it there. A fake remote that stores one pod and applies
 * patches as the API server merges them.
 */
import t from 'tap';
import type { Pod } from '../../../../src/adapters/kubernetes/model.js';
import type { ClusterClient } from '../../../../src/adapters/kubernetes/clusterClient.js';
import type { Operation } from '../../../../src/adapters/kubernetes/operation.js';
import { RemotePodCalls, type RemotePodCallsDeps } from '../../../../src/providers/kubernetes/pods/remotePodCalls.js';
import { toRemotePod } from '../../../../src/providers/kubernetes/pods/podTranslation.js';
import { withHostKeys } from '../../../../src/providers/kubernetes/pods/hostKeys.js';
import { asCalled } from '../configReflection/configMapWorld.js';
import { mergeBy, mergeMap } from '../../../support/mergePatch.js';

const rule = { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespaceOf: (ns: string) => `${ns}-home` };

const hostPod = (labels: Record<string, string>, annotations: Record<string, string> = {}): Pod => ({
  metadata: { name: 'web', namespace: 'shop', uid: 'host-uid', labels, annotations },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});

function remoteWorld(created: Pod) {
  let stored: Pod = { ...created, metadata: { ...created.metadata, uid: 'remote-uid', resourceVersion: '5' } };
  const sent: { verb: string; body: unknown }[] = [];
  const core = {
    readNamespacedPod: async () => stored,
    replaceNamespacedPod: async ({ body }: { body: Pod }) => {
      sent.push({ verb: 'replace', body });
      stored = body;
      return stored;
    },
    patchNamespacedPod: async ({ body }: { body: { metadata: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> }; spec?: { containers?: { name: string; image: string }[] } } }) => {
      sent.push({ verb: 'patch', body });
      const containers = mergeBy(stored.spec?.containers, body.spec?.containers?.map((c) => ({ ...stored.spec?.containers.find((s) => s.name === c.name), ...c })), (c) => c.name) ?? [];
      stored = {
        ...stored,
        metadata: { ...stored.metadata, labels: mergeMap(stored.metadata?.labels, body.metadata.labels), annotations: mergeMap(stored.metadata?.annotations, body.metadata.annotations), resourceVersion: '6' },
        spec: { ...stored.spec, containers },
      };
      return stored;
    },
  };
  const refuseResize: { error?: unknown } = {};
  const inPlace = {
    patchNamespacedPodResize: async ({ body }: { body: unknown }) => {
      sent.push({ verb: 'resize', body });
      if (refuseResize.error) throw refuseResize.error;
      return stored;
    },
    patchNamespacedPodEphemeralcontainers: async ({ body }: { body: { spec: { ephemeralContainers: NonNullable<NonNullable<Pod['spec']>['ephemeralContainers']> } } }) => {
      sent.push({ verb: 'ephemeralcontainers', body });
      stored = { ...stored, spec: { ...stored.spec!, ephemeralContainers: [...(stored.spec?.ephemeralContainers ?? []), ...body.spec.ephemeralContainers] } };
      return stored;
    },
  };
  const all = { ...core, ...inPlace };
  const remote = { call: (_p: string, op: Operation, fn: (c: typeof all, o: unknown) => Promise<unknown>) => asCalled(op, () => fn(all, {})) } as unknown as ClusterClient;
  const refusals: { key: string; condition: unknown }[] = [];
  const events: string[] = [];
  const pods = { setResizeRefusal: (ns: string, name: string, condition: unknown) => refusals.push({ key: `${ns}/${name}`, condition }) };
  const o = { nodeName: 'vk-1', hostClusterId: 'home', onRemoteEvent: (_p: unknown, type: string, reason: string, note: string) => events.push(`${type} ${reason}: ${note}`) };
  const calls = new RemotePodCalls({ o, remote, rule, pods, remoteNamespaceOf: rule.remoteNamespaceOf } as unknown as RemotePodCallsDeps);
  return { calls, sent, refusals, events, refuseResize, remotePod: (): Pod => stored, setRemote: (f: (p: Pod) => Pod) => void (stored = f(stored)) };
}

const created = (pod: Pod): Pod => withHostKeys(toRemotePod(pod, { hostClusterId: 'home', nodeName: 'vk-1', remoteNamespace: 'shop-home' }));

void t.test('a remote annotation survives a host label change', async (t) => {
  const world = remoteWorld(created(hostPod({ app: 'web' })));
  world.setRemote((p) => ({ ...p, metadata: { ...p.metadata, annotations: { ...p.metadata?.annotations, 'cni.projectcalico.org/podIP': '10.1.2.3/32' }, labels: { ...p.metadata?.labels, 'istio.io/rev': 'stable' } } }));
  await world.calls.update(hostPod({ app: 'web', tier: 'front' }));
  const meta = world.remotePod().metadata;
  t.equal(meta?.labels?.tier, 'front', 'the host label arrived');
  t.equal(meta?.annotations?.['cni.projectcalico.org/podIP'], '10.1.2.3/32', "Calico's annotation is kept");
  t.equal(meta?.labels?.['istio.io/rev'], 'stable', "a remote controller's label is kept");
  t.same(world.sent.map((s) => s.verb), ['patch'], 'one patch, never a replace of the whole pod');
});

void t.test('a key the host removed is removed remotely only if Tether wrote it', async (t) => {
  const world = remoteWorld(created(hostPod({ app: 'web', tier: 'front' }, { note: 'host' })));
  world.setRemote((p) => ({ ...p, metadata: { ...p.metadata, labels: { ...p.metadata?.labels, 'remote.example/zone': 'a' } } }));
  await world.calls.update(hostPod({ app: 'web' }, { note: 'host' }));
  const meta = world.remotePod().metadata;
  t.equal(meta?.labels?.tier, undefined, 'the label Tether wrote and the host dropped is gone');
  t.equal(meta?.annotations?.note, 'host', 'the annotation the host still has stays');
  t.equal(meta?.labels?.['remote.example/zone'], 'a', 'the remote key Tether never wrote stays');
  await world.calls.update(hostPod({ app: 'web' }));
  t.equal(world.remotePod().metadata?.labels?.['remote.example/zone'], 'a', 'and stays on later updates');
});

void t.test('the patch carries the uid and resourceVersion it was computed from, and images by container name', async (t) => {
  const world = remoteWorld(created(hostPod({ app: 'web' })));
  const pod = hostPod({ app: 'web' });
  await world.calls.update({ ...pod, spec: { containers: [{ name: 'app', image: 'app:2' }] } });
  const body = world.sent[0]?.body as { metadata: { uid?: string; resourceVersion?: string } };
  t.equal(body.metadata.uid, 'remote-uid');
  t.equal(body.metadata.resourceVersion, '5');
  t.equal(world.remotePod().spec?.containers[0]?.image, 'app:2');
});

void t.test('a remote pod that lost its marks is not updated', async (t) => {
  const world = remoteWorld(created(hostPod({ app: 'web' })));
  world.setRemote((p) => ({ ...p, metadata: { ...p.metadata, labels: { app: 'web' } } }));
  await t.rejects(world.calls.update(hostPod({ app: 'web', tier: 'front' })), /not Tether's/);
  t.same(world.sent, [], 'nothing written');
});

const withResources = (pod: Pod, cpu: string): Pod => ({ ...pod, spec: { ...pod.spec!, containers: [{ name: 'app', image: 'app:1', resources: { requests: { cpu } } }] } });

void t.test('changed container resources go to the remote pod\'s resize subresource, only the containers that changed; the same resources send nothing', async (t) => {
  const world = remoteWorld(created(withResources(hostPod({ app: 'web' }), '100m')));
  await world.calls.update(withResources(hostPod({ app: 'web' }), '0.1'));
  t.same(world.sent.map((s) => s.verb), ['patch'], '0.1 is 100m: no resize');
  await world.calls.update(withResources(hostPod({ app: 'web' }), '250m'));
  t.same(world.sent.map((s) => s.verb), ['patch', 'patch', 'resize']);
  t.same(world.sent.at(-1)?.body, { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '250m' } } }] } });
  t.same(world.refusals.at(-1)?.condition, undefined, 'no refusal shown');
});

void t.test('a resize the remote API server refuses is the host\'s answer: PodResizePending Infeasible with its words, and a Warning ResizeInfeasible Event', async (t) => {
  const world = remoteWorld(created(withResources(hostPod({ app: 'web' }), '100m')));
  world.refuseResize.error = Object.assign(new Error('Pod "web" is invalid: spec: Forbidden: Pod QOS Class may not change as a result of resizing'), { code: 422, body: { reason: 'Invalid', code: 422, message: 'Pod QOS Class may not change as a result of resizing' } });
  const pod = withResources(hostPod({ app: 'web' }), '250m');
  await world.calls.update({ ...pod, metadata: { ...pod.metadata, generation: 3 } });
  t.match(world.refusals.at(-1), { key: 'shop-home/web', condition: { type: 'PodResizePending', status: 'True', reason: 'Infeasible', observedGeneration: 3, message: /^the remote cluster refused the resize: .*QOS Class may not change/ } });
  t.match(world.events, [/^Warning ResizeInfeasible: Pod resize Infeasible: the remote cluster refused the resize: .*QOS/]);
});

void t.test('a host pod\'s new ephemeral container (kubectl debug) goes to the remote pod\'s ephemeralcontainers subresource, once', async (t) => {
  const world = remoteWorld(created(hostPod({ app: 'web' })));
  const debugged: Pod = { ...hostPod({ app: 'web' }), spec: { ...hostPod({}).spec!, ephemeralContainers: [{ name: 'debugger-1', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } };
  await world.calls.update(debugged);
  t.same(world.sent.at(-1), { verb: 'ephemeralcontainers', body: { spec: { ephemeralContainers: [{ name: 'debugger-1', image: 'busybox', targetContainerName: 'app', stdin: true, tty: true }] } } });
  await world.calls.update(debugged);
  t.equal(world.sent.filter((s) => s.verb === 'ephemeralcontainers').length, 1, 'the remote pod has it now');
});
