/**
 * The agent's CPU per API request on a real control plane, by the path a request takes (issue 28,
 * "Creating CPU at 50 qps: what is left" in docs/benchmarks.md):
 *
 * - `client-node`: the generated API over Tether's pooled keep-alive agents, as the agent sends
 *   every Event and status write (node-fetch underneath);
 * - `client-node, https.request`: the same API with client-node's HTTP library swapped for a
 *   plain `https.request` one (the `httpApi` of its configuration), which is what replacing
 *   node-fetch would save;
 * - `bare https`: no client at all, a keep-alive agent and `JSON.parse` of the answer: the floor.
 *
 * Each path: 200 requests to warm up, then N timed, 8 in flight, two rounds in turn (the first
 * round pays for the JIT). CPU is this process's user + system time.
 *
 *   npm run build && node dist/bench/requestCost.bench.js [--requests 2000]
 */
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  CoreV1Api, createConfiguration, EventsV1Api, PatchStrategy, ResponseContext, ServerConfiguration, setHeaderOptions, V1MicroTime, wrapHttpLibrary,
  type HttpLibrary, type KubeConfig,
} from '@kubernetes/client-node';
import { ClusterClient } from '../src/adapters/kubernetes/clusterClient.js';
import { startCluster } from '../src/harness/controlPlane.js';
import { benchLog, runBench } from './clusterBench.js';
import { inFlight, waitFor } from './measure.js';

const log = benchLog('bench:request-cost');
const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } });
const N = Number(values.requests);
const IN_FLIGHT = 8;

/** client-node's HttpLibrary on `https.request`, honouring the agent, headers, body and signal it is given. */
const httpsLibrary: HttpLibrary = wrapHttpLibrary({
  send: (request) => new Promise((resolve, reject) => {
    const url = new URL(request.getUrl());
    const transport = url.protocol === 'https:' ? https : http;
    const agent = request.getAgent();
    const signal = request.getSignal();
    const req = transport.request(url, { method: request.getHttpMethod(), headers: request.getHeaders(), ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v ?? '']));
        resolve(new ResponseContext(res.statusCode ?? 0, headers, { text: () => Promise.resolve(body.toString('utf8')), binary: () => Promise.resolve(body) }));
      });
    });
    req.on('error', reject);
    req.end(request.getBody() as string | undefined);
  }),
});

function api<T>(kc: KubeConfig, type: new (config: ReturnType<typeof createConfiguration>) => T, httpApi?: HttpLibrary): T {
  const server = kc.getCurrentCluster()?.server ?? '';
  return new type(createConfiguration({ baseServer: new ServerConfiguration(server, {}), authMethods: { default: kc }, ...(httpApi ? { httpApi } : {}) }));
}

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

let sequence = 0;
const event = () => ({
  apiVersion: 'events.k8s.io/v1', kind: 'Event',
  metadata: { name: `bench.${Date.now().toString(16)}${(++sequence).toString(16)}`, namespace: 'default' },
  // events.k8s.io wants microseconds, which V1MicroTime writes (JSON.stringify included).
  eventTime: new V1MicroTime(Date.now()),
  reportingController: 'tether.dev/virtual-kubelet', reportingInstance: 'bench', type: 'Normal', reason: 'Started', action: 'Started',
  note: 'Started container app', regarding: { kind: 'Pod', apiVersion: 'v1', name: 'bench', namespace: 'default', uid: 'bench' },
});

/** A keep-alive agent and a POST, from the admin kubeconfig the harness wrote (its data fields or files). */
function barePost(kubeconfigPath: string): (body: object) => Promise<void> {
  const config = JSON.parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
  const cluster = config.clusters[0]?.cluster ?? {};
  const user = config.users[0]?.user ?? {};
  const read = (data: string | undefined, file: string | undefined): Buffer => (data ? Buffer.from(data, 'base64') : readFileSync(file ?? ''));
  const url = new URL(cluster['server'] ?? '');
  const agent = new https.Agent({
    keepAlive: true, maxSockets: IN_FLIGHT,
    ca: read(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: read(user['client-certificate-data'], user['client-certificate']),
    key: read(user['client-key-data'], user['client-key']),
  });
  return (body) => new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = https.request({
      host: url.hostname, port: url.port, path: '/apis/events.k8s.io/v1/namespaces/default/events', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), accept: 'application/json' },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if ((res.statusCode ?? 0) < 300) resolve();
        else reject(new Error(`HTTP ${res.statusCode}`));
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

runBench('bench:request-cost', async () => {
  const cluster = await startCluster({ name: 'bench-request-cost' });
  try {
    const client = new ClusterClient(cluster.kubeConfig(), { rateLimit: { qps: Infinity, burst: 1 } });
    const kc = client.kubeConfig;
    const core = api(kc, CoreV1Api);
    // Until the ServiceAccount controller has made `default`, a pod is refused.
    const pod = { metadata: { name: 'bench' }, spec: { nodeName: 'nowhere', containers: [{ name: 'app', image: 'pause' }] } };
    await waitFor('the bench pod created', 30_000, () => core.createNamespacedPod({ namespace: 'default', body: pod }).then(() => true, () => undefined), 500);
    const post = barePost(cluster.kubeconfigPath);
    const paths: [string, (i: number) => Promise<unknown>, (i: number) => Promise<unknown>][] = [['client-node', undefined], ['client-node, https.request', httpsLibrary]].map(([name, httpApi]) => {
      const events = api(kc, EventsV1Api, httpApi as HttpLibrary | undefined);
      const pods = api(kc, CoreV1Api, httpApi as HttpLibrary | undefined);
      return [name as string,
        () => events.createNamespacedEvent({ namespace: 'default', body: event() }),
        (i: number) => pods.patchNamespacedPodStatus({ name: 'bench', namespace: 'default', body: { status: { message: `m${i}` } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch))];
    });
    paths.push(['bare https', () => post(event()), () => Promise.resolve()]);
    const rows: string[] = [];
    for (let round = 1; round <= 2; round++) {
      for (const [name, create, patch] of paths) {
        await inFlight(200, IN_FLIGHT, create);
        let cpu = cpuSeconds();
        await inFlight(N, IN_FLIGHT, create);
        const perEvent = ((cpuSeconds() - cpu) / N) * 1e3;
        let perPatch = NaN;
        if (name !== 'bare https') {
          cpu = cpuSeconds();
          await inFlight(N / 2, IN_FLIGHT, patch);
          perPatch = ((cpuSeconds() - cpu) / (N / 2)) * 1e3;
        }
        log(`round ${round}, ${name}: ${perEvent.toFixed(3)} ms per Event created, ${Number.isNaN(perPatch) ? 'n/a' : perPatch.toFixed(3)} ms per status patch`);
        rows.push(`| ${round} | ${name} | ${perEvent.toFixed(3)} | ${Number.isNaN(perPatch) ? 'n/a' : perPatch.toFixed(3)} |`);
      }
    }
    process.stdout.write([`${N} Events created and ${N / 2} status patches per path, ${IN_FLIGHT} in flight; CPU ms per request`, '| round | path | Event create | status patch |', '|---|---|---|---|', ...rows, ''].join('\n'));
    await client.stop();
  } finally {
    await cluster.stop();
  }
});
