/**
 * `kubectl logs` through the real host API server to Tether's kubelet API (issue 7). The API
 * server will not proxy to a loopback node address, so the node advertises the host-side address
 * of a harness network namespace's veth pair: a real, non-loopback address of this machine, where
 * the kubelet API listens. The API server presents its kubelet client certificate (signed by the
 * cluster CA, which the kubelet API trusts); anyone else needs a token the TokenReview accepts and
 * a SubjectAccessReview that allows `nodes/proxy`.
 */
import { request } from 'node:https';
import t from 'tap';
import type { ContainerLogOptions } from '../../src/providers/provider.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { withProviderMetrics } from '../../src/observability/providerMetrics.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startKubeletNode } from '../support/kubeletNode.js';

const support = await networkNamespaceSupport();

/** A simulated provider that counts the log chunks it has handed out to followers. */
class CountingProvider extends SimulatedProvider {
  followedChunks = 0;

  override async getContainerLogs(namespace: string, pod: string, container: string, options: ContainerLogOptions, signal?: AbortSignal): Promise<AsyncIterable<string>> {
    const inner = await super.getContainerLogs(namespace, pod, container, options, signal);
    if (!options.follow) return inner;
    const count = (): void => {
      this.followedChunks++;
    };
    return (async function* counted() {
      for await (const chunk of inner) {
        count();
        yield chunk;
      }
    })();
  }
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('kubectl logs reaches the virtual node\'s kubelet API through the host API server', { skip: support.available ? false : support.reason }, async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const metrics = new TetherMetrics({ processMetrics: false });
  const provider = new CountingProvider({ startLatencyMs: 200, stopLatencyMs: 100, logIntervalMs: 100 });
  const { nodeName, kubelet, address } = await startKubeletNode(t, host, {
    prefix: 'vn-logs', provider, kubeletProvider: (nodeName) => withProviderMetrics(provider, metrics, nodeName),
  });
  const node = await waitFor('the node is Ready', async () => {
    const n = await getJson<KubeObject & { status?: { addresses?: Array<{ type: string; address: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }>(host, ['node', nodeName]);
    return condition(n, 'Ready')?.status === 'True' ? n : undefined;
  }, { timeoutMs: 60_000 });
  t.match(node.status?.addresses, [{ type: 'InternalIP', address }], 'a non-loopback InternalIP');
  t.equal(node.status?.daemonEndpoints?.kubeletEndpoint?.Port, kubelet.port, 'the kubelet port the API server dials');

  const namespace = await testNamespace(t, host, 'logs');
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('talker', namespace, nodeName) });
  await waitFor('talker Running', async () => (await getJson<KubeObject>(host, ['pod', 'talker', '-n', namespace]))?.status?.phase === 'Running', { timeoutMs: 60_000 });

  await t.test('kubectl logs returns the provider\'s lines', async (t) => {
    const out = await waitFor('a few log lines', async () => {
      const text = await host.kubectl(['logs', 'talker', '-n', namespace]);
      return text.split('\n').filter(Boolean).length >= 3 ? text : undefined;
    }, { timeoutMs: 30_000 });
    const lines = out.trim().split('\n');
    t.equal(lines[0], 'talker/app line 1');
    t.ok(lines.every((l, i) => l === `talker/app line ${i + 1}`), 'consecutive synthetic lines');
    const stamped = await host.kubectl(['logs', 'talker', '-n', namespace, '--timestamps', '--tail=1']);
    t.match(stamped.trim(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z talker\/app line \d+$/);
    const scrape = await metrics.render();
    t.match(scrape.body, new RegExp(`tether_provider_calls_total\\{node="${nodeName}",method="getContainerLogs",outcome="ok"\\} \\d+`));
  });

  await t.test('kubectl logs -f --tail=2 follows until the container ends', async (t) => {
    const before = provider.followedChunks;
    const following = host.kubectl(['logs', '-f', '--tail=2', 'talker', '-n', namespace], { timeoutMs: 60_000 });
    await waitFor('kubectl has received the tail and new lines', () => provider.followedChunks - before >= 5, { timeoutMs: 30_000, intervalMs: 50 });
    await host.kubectl(['delete', 'pod', 'talker', '-n', namespace, '--wait=false']);
    const lines = (await following).trim().split('\n');
    const numbers = lines.map((l) => Number(/^talker\/app line (\d+)$/.exec(l)?.[1]));
    t.ok(numbers.every((n) => Number.isInteger(n) && n > 0), `every line is the provider's: ${lines.slice(0, 3).join(' | ')}`);
    t.ok(numbers.length >= 5, `the tail and the followed lines (${numbers.length})`);
    t.ok(numbers[0]! > 1, 'the tail starts late in the log, not at line 1');
    t.ok(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1), 'no gap and no repeat');
  });

  await t.test('the kubelet port refuses anonymous callers and unauthorized users', async (t) => {
    const base = `https://${address}:${kubelet.port}`;
    const anonymous = await get(`${base}/containerLogs/${namespace}/talker/app`);
    t.equal(anonymous.status, 401);
    t.equal((await get(`${base}/pods`)).status, 401);
    const badToken = await get(`${base}/pods`, { authorization: 'Bearer not-a-token' });
    t.equal(badToken.status, 401);
    const user = host.describe().tokens.find((i) => i.user === 'tether-user');
    if (user) {
      const forbidden = await get(`${base}/pods`, { authorization: `Bearer ${user.token}` });
      t.equal(forbidden.status, 403);
      t.match(forbidden.body, /Forbidden \(user=tether-user, verb=get, resource=nodes, subresource\(s\)=\[pods proxy\]\)/, 'nodes/pods tried, then the nodes/proxy fallback');
    }
    const admin = await get(`${base}/pods`, { authorization: `Bearer ${host.describe().adminToken}` });
    t.equal(admin.status, 200);
    t.match(JSON.parse(admin.body), { kind: 'PodList' });
    const exec = await get(`${base}/exec/${namespace}/talker/app?command=sh`, { authorization: `Bearer ${host.describe().adminToken}` });
    t.equal(exec.status, 400, 'exec needs a WebSocket upgrade (test/e2e/kubectlExec.test.ts)');
    t.match(exec.body, /needs a WebSocket upgrade request/);
  });
});
