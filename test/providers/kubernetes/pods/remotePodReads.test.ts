/**
 * How the Kubernetes provider answers `getPod` before its remote pod informer has listed (a
 * restart: every pod actor asks at once): it waits for the one list rather than reading each pod,
 * so N adopted pods cost one remote request, not N. A mock remote API server whose pod list fails
 * until the test lets it through.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { KubernetesProvider } from '../../../../src/providers/kubernetes/index.js';
import { MockApiServer, status } from '../../../adapters/kubernetes/mockApiServer.js';
import { until } from '../../../support/until.js';
import { ownedRemotePod } from '../../../support/ownedRemotePod.js';
import { ManualClock } from '../../../support/manualClock.js';

async function remoteWithOnePod(t: Test, options: { deadlines?: { other: number }; clock?: ManualClock } = {}) {
  const server = await MockApiServer.start({ tls: true });
  t.teardown(() => server.close());
  const remotePod = ownedRemotePod();
  let listable = false;
  server.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/pods') {
      return listable ? { body: { metadata: { resourceVersion: '7' }, items: [remotePod] } } : { status: 503, body: status(503, 'ServiceUnavailable', 'not yet') };
    }
    if (r.method === 'GET' && r.url.pathname === '/api/v1/namespaces/shop-home/pods/web-1') return { body: remotePod };
    return undefined;
  });
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'tether-remote-reads-')), 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeConfigYaml());
  const provider = new KubernetesProvider({
    nodeName: 'vk-1', hostClusterId: 'home',
    host: { kind: 'file', path: kubeconfig }, remote: { kind: 'file', path: kubeconfig },
    reflectedKinds: [],
    ...options,
  });
  t.teardown(() => provider.stop());
  return { server, provider, letList: () => void (listable = true) };
}

const podReads = (server: MockApiServer): number => server.matching('GET', '/api/v1/namespaces/shop-home/pods/web-1').length;

t.test('before the remote pods have been listed, getPod waits for the list instead of reading the pod', async (t) => {
  const { server, provider, letList } = await remoteWithOnePod(t);
  const answers = [provider.getPod('shop', 'web-1'), provider.getPod('shop', 'web-1'), provider.getPod('shop', 'web-1')];
  await until('the list tried', () => server.matching('GET', '/api/v1/pods').length > 0, 10_000);
  letList();
  const pods = await Promise.all(answers);
  t.same(pods.map((p) => p?.metadata?.uid), ['host-uid', 'host-uid', 'host-uid'], 'answered from the list, under the host identity');
  t.equal(podReads(server), 0, 'no pod was read on its own');
});

t.test('a list slower than one read\'s deadline gives way to one read of the pod: the wait is bounded', async (t) => {
  // On a manual clock, so a loaded machine cannot make the one read itself outlast the deadline.
  const clock = new ManualClock();
  const { server, provider } = await remoteWithOnePod(t, { deadlines: { other: 200 }, clock });
  const answer = provider.getPod('shop', 'web-1');
  await until('the list tried', () => server.matching('GET', '/api/v1/pods').length > 0, 10_000);
  t.equal(podReads(server), 0, 'no read while the list may still come');
  clock.advance(200);
  const pod = await answer;
  t.equal(pod?.metadata?.uid, 'host-uid');
  t.equal(podReads(server), 1);
});

t.test('the caller\'s signal ends the wait', async (t) => {
  const { provider } = await remoteWithOnePod(t);
  const stop = new AbortController();
  const answer = provider.getPod('shop', 'web-1', stop.signal);
  stop.abort(new Error('the pod actor gave up'));
  await t.rejects(answer, /the pod actor gave up/);
});
