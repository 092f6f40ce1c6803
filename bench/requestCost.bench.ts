/**
 * The agent's CPU per API request on a real control plane, by the path a request takes (issue 28,
 * "Creating CPU at 50 qps: what is left" in docs/benchmarks.md):
 *
 * - `client-node, node-fetch`: the generated API over Tether's pooled keep-alive agents with
 *   client-node's default HTTP library (node-fetch), as the agent sent until issue 28;
 * - `client-node, https.request`: the same API on Tether's HTTP library (src/adapters/kubernetes/
 *   httpLibrary.ts, the `httpApi` of its configuration), as API clients are made now;
 * - `client-node through call()`: that, through the rate limiter, a deadline and the fence, as the
 *   agent's recorder and status writes send (Events on the Events' limiter);
 * - `EventRecorderClient.record`: the whole recorder, one new Event per record (its series key and
 *   body included), as a pod actor records one;
 * - `bare https`: no client at all, a keep-alive agent and `JSON.parse` of the answer: the floor.
 *
 * Each path: 200 requests to warm up, then N timed, 8 in flight (`--in-flight`; the recorder's own cap is 4), two rounds in turn (the first
 * round pays for the JIT). CPU is this process's user + system time.
 *
 *   npm run build && node dist/bench/requestCost.bench.js [--requests 2000] [--in-flight 8]
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  CoreV1Api, EventsV1Api, IsomorphicFetchHttpLibrary, PatchStrategy, setHeaderOptions, V1MicroTime,
} from '@kubernetes/client-node';
import { apiClientOn } from '../src/adapters/kubernetes/clientKubeConfig.js';
import { nodeHttpLibrary } from '../src/adapters/kubernetes/httpLibrary.js';
import { call } from '../src/adapters/kubernetes/call.js';
import { ClusterClient } from '../src/adapters/kubernetes/clusterClient.js';
import { EventRecorderClient } from '../src/adapters/kubernetes/eventRecorderClient.js';
import type { RequestScheduler } from '../src/adapters/kubernetes/rateLimiter.js';
import { operation } from '../src/adapters/kubernetes/operation.js';
import { startCluster } from '../src/harness/controlPlane.js';
import { benchLog, runBench } from './clusterBench.js';
import { inFlight, waitFor } from './measure.js';

const log = benchLog('bench:request-cost');
const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, 'in-flight': { type: 'string', default: '8' } } });
const N = Number(values.requests);
const IN_FLIGHT = Number(values['in-flight']);

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
    const client = new ClusterClient(cluster.kubeConfig(), { rateLimit: { qps: Infinity, burst: 1 }, eventRateLimit: { qps: Infinity, burst: 1 } });
    const kc = client.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    // A Node for the pod to be bound to: the pod garbage collector deletes pods bound to none.
    await core.createNode({ body: { metadata: { name: 'bench-request-cost' } } });
    // Until the ServiceAccount controller has made `default`, a pod is refused.
    const pod = { metadata: { name: 'bench' }, spec: { nodeName: 'bench-request-cost', containers: [{ name: 'app', image: 'pause' }] } };
    await waitFor('the bench pod created', 30_000, () => core.createNamespacedPod({ namespace: 'default', body: pod }).then(() => true, () => undefined), 500);
    const post = barePost(cluster.kubeconfigPath);
    const paths: [string, (i: number) => Promise<unknown>, (i: number) => Promise<unknown>][] = ([['client-node, node-fetch', new IsomorphicFetchHttpLibrary()], ['client-node, https.request', nodeHttpLibrary]] as const).map(([name, httpApi]) => {
      const events = apiClientOn(kc, EventsV1Api, httpApi);
      const pods = apiClientOn(kc, CoreV1Api, httpApi);
      return [name as string,
        () => events.createNamespacedEvent({ namespace: 'default', body: event() }),
        (i: number) => pods.patchNamespacedPodStatus({ name: 'bench', namespace: 'default', body: { status: { message: `m${i}` } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch))];
    });
    // What the agent sends: its library (clientKubeConfig.ts), plus the limiter, the deadline and its signal, the fence.
    const viaCall = kc.makeApiClient(EventsV1Api);
    paths.push(['client-node through call()',
      () => call({ ...client.writes, limiter: client.eventLimiter }, 'other', operation('create', 'event'), (o) => viaCall.createNamespacedEvent({ namespace: 'default', body: event() }, o)),
      (i: number) => client.call('status', operation('patch', 'status'), (core, o) =>
        core.patchNamespacedPodStatus({ name: 'bench', namespace: 'default', body: { status: { message: `m${i}` } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, o)))]);
    // The whole recorder (its series key, the Event's body), as the pod actors record: one new Event each.
    let recorded: (() => void) | undefined;
    const signalling: RequestScheduler = {
      schedule: (priority, fn, options) => {
        const done = recorded;
        recorded = undefined;
        return client.eventLimiter.schedule(priority, fn, options).finally(() => done?.());
      },
      refuses: (priority) => client.eventLimiter.refuses(priority),
    };
    const recorder = new EventRecorderClient(kc.makeApiClient(EventsV1Api), { ...client.writes, limiter: signalling }, { reportingInstance: 'bench' });
    const subject = { kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: 'bench', uid: 'bench', fieldPath: 'spec.containers{app}' };
    paths.push(['EventRecorderClient.record',
      (i: number) => new Promise<void>((resolve) => {
        recorded = resolve;
        recorder.record(subject, 'Normal', 'Started', `Started container app (${i}, ${sequence++})`, 'Started');
      }),
      () => Promise.resolve()]);
    paths.push(['bare https', () => post(event()), () => Promise.resolve()]);
    const rows: string[] = [];
    for (let round = 1; round <= 2; round++) {
      for (const [name, create, patch] of paths) {
        await inFlight(200, IN_FLIGHT, create);
        let cpu = cpuSeconds();
        await inFlight(N, IN_FLIGHT, create);
        const perEvent = ((cpuSeconds() - cpu) / N) * 1e3;
        let perPatch = NaN;
        if (name !== 'bare https' && name !== 'EventRecorderClient.record') {
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
