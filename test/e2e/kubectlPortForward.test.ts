/**
 * `kubectl port-forward` through the real host API server to Tether's kubelet API (issue 15).
 * kubectl 1.36 tunnels SPDY in a WebSocket (`SPDY/3.1+portforward.k8s.io`); the virtual node
 * declares `ExtendWebSocketsToKubelet`, so the API server hands the tunnel to the node unchanged.
 * The simulated provider answers HTTP on each declared containerPort, so an ordinary HTTP GET to
 * kubectl's local port shows the whole path works. Then the Kubernetes provider's relay (how a host
 * Tether forwards to a remote pod) through the same API server, and a port nothing listens on.
 * The node is reachable as in kubectlExec.test.ts (test/support/kubeletNode.ts).
 */
import { spawn } from 'node:child_process';
import t from 'tap';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { providerKindOf } from '../../src/providers/errors.js';
import { relayRemotePortForward } from '../../src/providers/kubernetes/streams/remotePortForward.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startKubeletNode } from '../support/kubeletNode.js';
import { httpGet } from '../support/serviceChecks.js';

const support = await networkNamespaceSupport();

t.test('kubectl port-forward reaches a simulated pod\'s declared port through the host API server', { skip: support.available ? false : support.reason }, async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const { nodeName, kubelet } = await startKubeletNode(t, host, { prefix: 'vn-pf', provider: new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100 }) });

  const namespace = await testNamespace(t, host, 'pf');
  await host.kubectl(['apply', '-f', '-'], {
    input: podManifest('web', namespace, nodeName, { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 8080 }] }] }),
  });
  await waitFor('web Running', async () => (await getJson<KubeObject>(host, ['pod', 'web', '-n', namespace]))?.status?.phase === 'Running', { timeoutMs: 60_000 });

  await t.test('an HTTP GET to kubectl\'s local port is answered by the pod, twice', async (t) => {
    const { kubectlPath } = host.describe();
    const child = spawn(kubectlPath, ['--kubeconfig', host.kubeconfigPath, 'port-forward', '-n', namespace, 'pod/web', ':8080'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    t.teardown(() => void child.kill('SIGTERM'));
    const local = await waitFor('kubectl listens', () => {
      const match = /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.exec(out);
      if (child.exitCode !== null) throw new Error(`kubectl port-forward exited ${child.exitCode}: ${err}`);
      return match ? Number(match[1]) : undefined;
    }, { timeoutMs: 30_000, intervalMs: 50 });
    for (const path of ['/first', '/second']) {
      const answer = await httpGet(local, path, 30_000);
      t.equal(answer.status, 200);
      t.equal(answer.body, `Hello from pod ${namespace}/web, container app, port 8080 (Tether simulated provider): GET ${path}\n`);
    }
    t.match(out, /Handling connection for \d+/);
    t.equal(err, '', 'kubectl reports no error');
    child.kill('SIGTERM');
    await exited;
    await waitFor('the kubelet API has no stream left', () => kubelet.activeStreams() === 0, { timeoutMs: 10_000 });
  });

  await t.test('the Kubernetes provider\'s relay (how a host Tether forwards to a remote pod) carries the same exchange', async (t) => {
    // The virtual node of this test stands in for a remote cluster's pod: the relay talks to its API server.
    let answer = '';
    const connection = {
      input: (async function* () { yield Buffer.from('GET /relayed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'); })(),
      write: async (chunk: Buffer) => void (answer += chunk.toString()),
    };
    await relayRemotePortForward(host.kubeConfig(), { namespace, pod: 'web', port: 8080 }, connection, 'port-forward');
    t.match(answer, /^HTTP\/1.1 200 OK\r\n/);
    t.match(answer, /GET \/relayed\n$/);

    const nothing = { input: (async function* () { yield Buffer.from('x'); })(), write: async () => undefined };
    const refused = await relayRemotePortForward(host.kubeConfig(), { namespace, pod: 'web', port: 9999 }, nothing, 'port-forward').then(() => undefined, (e: unknown) => e);
    t.equal(providerKindOf(refused), 'invalid-input');
    t.match(String(refused), /error forwarding port 9999 to pod .*nothing listens on port 9999/, 'the remote\'s error stream, unchanged');
    const missing = await relayRemotePortForward(host.kubeConfig(), { namespace, pod: 'ghost', port: 8080 }, nothing, 'port-forward').then(() => undefined, (e: unknown) => e);
    t.equal(providerKindOf(missing), 'not-found');
    t.match(String(missing), /pods "ghost" not found/);
    await waitFor('the kubelet API has no stream left', () => kubelet.activeStreams() === 0, { timeoutMs: 10_000 });
  });
});
