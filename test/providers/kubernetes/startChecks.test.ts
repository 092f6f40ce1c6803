/**
 * The Kubernetes node's start checks, driven directly (the e2e files prove them on real
 * clusters): `preflight()` finds an overlap of both clusters' pod CIDRs and a changed namespace
 * mapping, and the registration (registration.ts `checkedProvider`) refuses the node with one
 * ProviderSetupError, lets it start with `blankPodIPs`, or adopts the old mapping when told to.
 * Two mock API servers answer the Nodes, ServiceCIDRs and pod lists.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { KubernetesProvider, kubernetesRegistration } from '../../../src/providers/kubernetes/index.js';
import { kubernetesProviderSchema } from '../../../src/providers/kubernetes/configSchema.js';
import { ProviderSetupError, type ProviderCreationContext } from '../../../src/providers/registration.js';
import { MockApiServer } from '../../adapters/kubernetes/mockApiServer.js';
import { ownedRemotePod } from '../../support/ownedRemotePod.js';

/** The host pod of ownedRemotePod(): bound to vk-1, running. */
const hostPod: Pod = { metadata: { name: 'web-1', namespace: 'shop', uid: 'host-uid' }, spec: { nodeName: 'vk-1', containers: [{ name: 'app', image: 'x' }] }, status: { phase: 'Running' } };

/** A cluster whose Nodes carry `podCIDRs`, with no ServiceCIDRs, whose pod lists answer `pods`. */
async function cluster(t: Test, podCIDRs: string[], pods: readonly unknown[]): Promise<MockApiServer> {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => {
    if (r.method !== 'GET') return undefined;
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.url.pathname === '/api/v1/nodes') return { body: { metadata: {}, items: [{ metadata: { name: 'n1' }, spec: { podCIDRs } }] } };
    if (r.url.pathname === '/api/v1/pods') return { body: { metadata: { resourceVersion: '1' }, items: pods } };
    return { body: { metadata: { resourceVersion: '1' }, items: [] } };
  });
  return server;
}

async function clusters(t: Test, o: { hostPods: string[]; remotePods: string[]; placed?: boolean }) {
  const host = await cluster(t, o.hostPods, o.placed ? [hostPod] : []);
  const remote = await cluster(t, o.remotePods, o.placed ? [ownedRemotePod()] : []);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-start-checks-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = path.join(dir, 'remote.yaml');
  fs.writeFileSync(kubeconfig, remote.kubeConfigYaml());
  const context: ProviderCreationContext = { nodeName: 'vk-1', internalIP: '127.0.0.1', host: { kind: 'string', yaml: host.kubeConfigYaml() }, logger: silentLogger };
  const create = (block: Record<string, unknown>): Promise<KubernetesProvider> =>
    kubernetesRegistration.create(kubernetesProviderSchema.parse({ type: 'kubernetes', hostClusterId: 'home', remote: { kubeconfig }, ...block }), context).then((handle) => {
      t.teardown(() => handle.stop());
      return handle.provider as KubernetesProvider;
    });
  const provider = (options: { blankPodIPs?: boolean } = {}): KubernetesProvider => {
    const p = new KubernetesProvider({ nodeName: 'vk-1', hostClusterId: 'home', host: host.kubeConfig(), remote: remote.kubeConfig(), ...options });
    t.teardown(() => p.stop());
    return p;
  };
  return { create, provider };
}

const overlapping = { hostPods: ['10.244.0.0/16'], remotePods: ['10.244.3.0/24'] };

t.test('preflight: overlapping pod CIDRs are a refusal naming both; with blankPodIPs they are not', async (t) => {
  const { provider } = await clusters(t, overlapping);
  const refused = (await provider().preflight()).filter((f) => f.level === 'refuse');
  t.equal(refused.length, 1);
  t.match(refused[0]?.message, /^node vk-1: the remote pod CIDR 10\.244\.3\.0\/24 \(Node spec\.podCIDRs\) overlaps the host pod CIDR 10\.244\.0\.0\/16 \(Node spec\.podCIDRs\).*blankPodIPs/);
  t.same((await provider({ blankPodIPs: true }).preflight()).filter((f) => f.level === 'refuse'), [], 'blankPodIPs: nothing refused');
  const { provider: disjoint } = await clusters(t, { hostPods: ['10.244.0.0/16'], remotePods: ['10.88.0.0/16'] });
  t.same((await disjoint().preflight()).filter((f) => f.level === 'refuse'), [], 'disjoint CIDRs: nothing refused');
});

t.test('the registration refuses a node whose clusters\' pod CIDRs overlap with one setup error, and starts it with blankPodIPs', async (t) => {
  const { create } = await clusters(t, overlapping);
  const error = await create({}).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof ProviderSetupError, 'a setup error (tether run exits 2)');
  t.match((error as Error).message, /overlaps the host pod CIDR.*refusing to start/);
  const started = await create({ blankPodIPs: true });
  t.ok(started instanceof KubernetesProvider, 'blankPodIPs: the node starts');
});

t.test('a changed namespace mapping with running pods: refused by default, adopted with mappingChange: adopt', async (t) => {
  const { create, provider } = await clusters(t, { hostPods: ['10.244.0.0/16'], remotePods: ['10.88.0.0/16'], placed: true });
  t.same((await provider().preflight()).filter((f) => f.level !== 'note' && f.level !== 'warn'), [], 'the mapping the pod was made with: nothing to say');
  const error = await create({ namespaceStrategy: 'same-name' }).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof ProviderSetupError);
  t.match((error as Error).message, /^node vk-1: 1 running host pod \(e\.g\. shop\/web-1, remote pod shop-home\/web-1\) was offloaded under namespaceStrategy suffix and hostClusterId home, but the config says namespaceStrategy same-name.*refusing to start/);
  const adopted = await create({ namespaceStrategy: 'same-name', mappingChange: 'adopt' });
  t.equal(adopted.remoteNamespaceOf('shop'), 'shop-home', 'adopted: the node runs under the mapping its pods were made with');
});
