/**
 * The kubelet port's own endpoints on a real HTTPS server with the simulated provider: /metrics
 * (the kubelet's families, then Tether's figures for the node), /metrics/probes (declared, no
 * samples), /configz (the kubelet's `{"kubeletconfig": …}`) and /healthz, each authorized as the
 * kubelet authorizes it (nodes/metrics; nodes/configz then nodes/proxy; nodes/healthz then
 * nodes/proxy), anonymous callers 401, and a huge target refused before any review.
 */
import { request } from 'node:https';
import t, { type Test } from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/kubeletServer.js';
import { goDuration } from '../../src/kubelet/kubeletConfigz.js';
import { kubeletMetricsText, runningCounts } from '../../src/kubelet/nodeMetrics.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { seriesOfNode, TetherMetrics } from '../../src/observability/metrics.js';
import { GrantingReviewer } from '../support/fakeAccessReviewer.js';
import { waitFor } from '../harness/waitFor.js';

const user = (username: string) => ({ username, groups: [] });
const reviewer = (): GrantingReviewer => new GrantingReviewer(
  { scraper: user('prometheus'), proxy: user('proxy-reader'), none: user('nobody') },
  { prometheus: ['get metrics'], 'proxy-reader': ['get proxy'] },
);

async function setup(t: Test, figures?: () => Promise<string>): Promise<{ server: KubeletServer; reviews: GrantingReviewer }> {
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  provider.notifyPods(() => undefined);
  await provider.createPod({ metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }, { name: 'side', image: 'y' }] } });
  await waitFor('web running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const reviews = reviewer();
  const server = await startKubeletServer({
    nodeName: 'vk-1', provider, reviewer: reviews, address: '127.0.0.1', port: 0, streams: { streamIdleTimeoutMs: 90 * 60_000 },
    ...(figures ? { nodeFigures: figures } : {}),
  });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  return { server, reviews };
}

function get(server: KubeletServer, path: string, token?: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const req = request(`https://127.0.0.1:${server.port}${path}`, { rejectUnauthorized: false, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('/metrics: the kubelet\'s node name, running pods and containers, then Tether\'s figures for this node', async (t) => {
  const { server } = await setup(t, async () => '# HELP tether_pods Pods.\n# TYPE tether_pods gauge\ntether_pods{node="vk-1",phase="Running"} 1\n');
  const res = await get(server, '/metrics', 'scraper');
  t.equal(res.status, 200);
  t.match(res.type, /^text\/plain; version=0\.0\.4/);
  t.match(res.body, '# TYPE kubelet_node_name gauge\nkubelet_node_name{node="vk-1"} 1\n');
  t.match(res.body, 'kubelet_running_pods 1\n');
  t.match(res.body, 'kubelet_running_containers{container_state="running"} 2\n');
  t.match(res.body, /\ntether_pods\{node="vk-1",phase="Running"\} 1\n$/);
});

t.test('/metrics/probes: prober_probe_total declared, no samples (Tether runs no probes)', async (t) => {
  const { server } = await setup(t);
  const res = await get(server, '/metrics/probes', 'scraper');
  t.equal(res.status, 200);
  t.equal(res.body, '# HELP prober_probe_total Cumulative number of a liveness, readiness or startup probe for a container by result.\n# TYPE prober_probe_total counter\n');
});

t.test('/configz: the kubelet\'s shape, with the port served and the streams\' idle timeout', async (t) => {
  const { server } = await setup(t);
  const res = await get(server, '/configz', 'proxy');
  t.equal(res.status, 200);
  t.equal(res.type, 'application/json');
  t.match(JSON.parse(res.body), {
    kubeletconfig: {
      kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', port: server.port, address: '127.0.0.1',
      authentication: { webhook: { enabled: true, cacheTTL: '2m0s' }, anonymous: { enabled: false } },
      authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
      streamingConnectionIdleTimeout: '1h30m0s',
    },
  });
  t.equal((await get(server, '/healthz', 'proxy')).body, 'ok\n');
});

t.test('each endpoint asks for the kubelet\'s subresource; anonymous is 401, others 403 naming what was tried', async (t) => {
  const { server, reviews } = await setup(t);
  t.equal((await get(server, '/metrics')).status, 401);
  t.equal((await get(server, '/configz')).status, 401);
  t.equal((await get(server, '/healthz')).status, 401);
  const metrics = await get(server, '/metrics', 'proxy');
  t.equal(metrics.status, 403, 'nodes/proxy does not read /metrics: the kubelet has no proxy fallback there');
  t.match(metrics.body, 'Forbidden (user=proxy-reader, verb=get, resource=nodes, subresource=metrics)');
  t.equal((await get(server, '/metrics/probes', 'proxy')).status, 403);
  const configz = await get(server, '/configz', 'scraper');
  t.equal(configz.status, 403);
  t.match(configz.body, 'Forbidden (user=prometheus, verb=get, resource=nodes, subresource(s)=[configz proxy])');
  t.match((await get(server, '/healthz', 'none')).body, 'subresource(s)=[healthz proxy]');
  reviews.asked.length = 0;
  t.equal((await get(server, '/configz', 'proxy')).status, 200, 'the proxy fallback');
  t.same(reviews.asked.map((a) => `${a.verb} ${a.subresource}`), ['get configz', 'get proxy']);
});

t.test('a huge query or path is refused before any review, cheaply', async (t) => {
  const { server, reviews } = await setup(t);
  reviews.asked.length = 0;
  const tokens = reviews.tokenReviews;
  const query = await get(server, `/metrics?${'x'.repeat(17 * 1024)}`, 'scraper');
  t.ok(query.status === 400 || query.status === 431, `answered ${query.status}`);
  const path = await get(server, `/metrics/${'p'.repeat(17 * 1024)}`, 'scraper');
  t.ok(path.status === 400 || path.status === 431, `answered ${path.status}`);
  t.equal(reviews.tokenReviews, tokens, 'no token review spent');
  t.same(reviews.asked, [], 'no access review spent');
});

t.test('the counts: Running pods; running and exited containers, a never-started one not counted', async (t) => {
  const pods = [
    { status: { phase: 'Running', containerStatuses: [{ state: { running: {} } }, { state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1 } } }] } },
    { status: { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ContainerCreating' } } }] } },
    { status: { phase: 'Succeeded', initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }], containerStatuses: [{ state: { terminated: { exitCode: 0 } } }] } },
  ] as Pod[];
  const counts = runningCounts(pods);
  t.equal(counts.pods, 1);
  t.same([...counts.containers].sort(), [['exited', 3], ['running', 1]]);
  const text = await kubeletMetricsText('vk-2', []);
  t.match(text, 'kubelet_running_pods 0\n');
  t.notMatch(text, 'kubelet_running_containers{', 'no state, no series');
});

t.test('Tether\'s figures for a node: its own labelled series with their HELP and TYPE, no other node\'s', async (t) => {
  const metrics = new TetherMetrics({ processMetrics: false });
  metrics.recordKubeletRejection('vk-1', 'unauthorized');
  metrics.recordKubeletRejection('vk-10', 'forbidden');
  metrics.recordProviderCall('vk-1', 'createPod', 'ok', 0.01);
  const text = await metrics.renderNode('vk-1');
  t.match(text, '# TYPE tether_kubelet_rejected_requests_total counter\ntether_kubelet_rejected_requests_total{node="vk-1",reason="unauthorized"} 1\n');
  t.match(text, 'tether_provider_call_duration_seconds_bucket{le="0.01",node="vk-1",method="createPod",outcome="ok"} 1');
  t.notMatch(text, 'vk-10');
  t.notMatch(text, 'tether_actors', 'a family with no series of the node is left out');
  t.equal(seriesOfNode('# HELP a x\n# TYPE a gauge\na{node="other"} 1\n', 'vk-1'), '');
});

t.test('durations as Go prints them', async (t) => {
  t.same([0, 250, 1500, 30_000, 120_000, 4 * 3_600_000, 5_400_000].map(goDuration), ['0s', '250ms', '1.5s', '30s', '2m0s', '4h0m0s', '1h30m0s']);
});
