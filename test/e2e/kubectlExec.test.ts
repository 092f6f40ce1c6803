/**
 * `kubectl exec` and attach through the real host API server to Tether's kubelet API over
 * WebSockets (issue 15). The virtual node declares `ExtendWebSocketsToKubelet` in
 * `status.declaredFeatures`, so the 1.36 API server proxies the client's `v5.channel.k8s.io`
 * WebSocket to the node unchanged instead of translating it to SPDY. Network set-up as in
 * kubectlLogs.test.ts (the node advertises a harness network namespace's host-side address).
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import WebSocket from 'ws';
import { createConfigObjectReader } from '../../src/adapters/kubernetes/configObjects.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { KubectlError } from '../../src/harness/clusterAccess.js';
import { providerKindOf } from '../../src/providers/errors.js';
import { relayRemoteStream } from '../../src/providers/kubernetes/streams/remoteStreams.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startKubeletNode } from '../support/kubeletNode.js';

const support = await networkNamespaceSupport();

interface ApiSession {
  readonly socket: WebSocket;
  readonly stdout: () => string;
  readonly opened: Promise<void>;
  /** The error channel: v4/v5's Status parsed; `error` its raw text under every protocol. */
  readonly ended: Promise<{ code: number; status: Record<string, unknown> | undefined; error: string }>;
}

/** A client-go-style v5 WebSocket (or one of `protocols`) to a pod subresource on the API server, as the admin. */
function apiStream(server: string, ca: string, token: string, path: string, protocols = ['v5.channel.k8s.io']): ApiSession {
  const socket = new WebSocket(`${server.replace(/^https/, 'wss')}${path}`, protocols, { ca, headers: { authorization: `Bearer ${token}` } });
  let stdout = '';
  let error = '';
  let status: Record<string, unknown> | undefined;
  socket.on('message', (data: Buffer) => {
    const text = data.subarray(1).toString('utf8');
    if (data[0] === 1) stdout += text;
    if (data[0] === 3) error += text;
    if (data[0] === 3 && text !== '' && socket.protocol !== 'channel.k8s.io') status = JSON.parse(text) as Record<string, unknown>;
  });
  socket.on('error', () => undefined);
  return {
    socket,
    stdout: () => stdout,
    opened: new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode ?? 0}`)));
    }),
    ended: new Promise((resolve) => socket.once('close', (code) => resolve({ code, status, error }))),
  };
}

const frame = (channel: number, data: string): Buffer => Buffer.concat([Buffer.from([channel]), Buffer.from(data)]);

t.test('kubectl exec and attach reach the virtual node over WebSockets through the host API server', { skip: support.available ? false : support.reason }, async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100, logIntervalMs: 100, configSource: createConfigObjectReader(host.kubeConfig()) });
  const { nodeName, kubelet } = await startKubeletNode(t, host, { prefix: 'vn-exec', provider });
  const node = await waitFor('the node is Ready', async () => {
    const n = await getJson<KubeObject & { status?: { declaredFeatures?: string[] } }>(host, ['node', nodeName]);
    return condition(n, 'Ready')?.status === 'True' ? n : undefined;
  }, { timeoutMs: 60_000 });
  t.same(node.status?.declaredFeatures, ['ExtendWebSocketsToKubelet'], 'the node declares the feature the API server looks for');

  const namespace = await testNamespace(t, host, 'exec');
  await host.kubectl(['create', 'configmap', 'cfg', '-n', namespace, '--from-literal=greeting=hello', '--from-literal=color=blue']);
  await host.kubectl(['apply', '-f', '-'], {
    input: podManifest('shell', namespace, nodeName, {
      containers: [{
        name: 'app', image: 'busybox',
        env: [{ name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'color' } } }],
        volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }],
      }],
      volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
    }),
  });
  await waitFor('shell Running', async () => (await getJson<KubeObject>(host, ['pod', 'shell', '-n', namespace]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
  const exec = (args: string[], input?: string): Promise<string> =>
    host.kubectl(['exec', ...(input !== undefined ? ['-i'] : []), 'shell', '-n', namespace, '--', ...args], input !== undefined ? { input } : {});

  await t.test('stdout, env from a ConfigMap, and a mounted ConfigMap file that follows updates', async (t) => {
    t.equal(await exec(['sh', '-c', 'echo $COLOR; hostname']), 'blue\nshell\n');
    t.equal(await exec(['cat', '/etc/cfg/greeting']), 'hello');
    await host.kubectl(['create', 'configmap', 'cfg', '-n', namespace, '--from-literal=greeting=bonjour', '--from-literal=color=blue', '--dry-run=client', '-o', 'yaml'])
      .then((yaml) => host.kubectl(['apply', '-f', '-'], { input: yaml }));
    t.equal(await exec(['cat', '/etc/cfg/greeting']), 'bonjour', 'the current content after an update');
  });

  await t.test('stderr and a non-zero exit code come back as kubectl\'s own', async (t) => {
    const error = await exec(['sh', '-c', 'nope; exit 5']).then(() => undefined, (e: unknown) => e);
    t.type(error, KubectlError);
    t.equal((error as KubectlError).code, 5, 'kubectl exits with the command\'s code');
    t.match((error as KubectlError).stderr, /sh: nope: not found/);
    t.match((error as KubectlError).stderr, /command terminated with exit code 5/);
  });

  await t.test('exec -i passes stdin', async (t) => {
    t.equal(await exec(['cat'], 'typed\nlines\n'), 'typed\nlines\n');
  });

  const { adminToken, caCertPath } = host.describe();
  const ca = readFileSync(caCertPath, 'utf8');
  const podPath = `/api/v1/namespaces/${namespace}/pods/shell`;

  await t.test('a terminal session sees its resizes', async (t) => {
    const s = apiStream(host.server, ca, adminToken, `${podPath}/exec?container=app&command=sh&stdin=true&stdout=true&tty=true`);
    await s.opened;
    s.socket.send(frame(4, '{"Width":132,"Height":43}'));
    s.socket.send(frame(0, 'stty size\r'));
    await waitFor('the first size', () => s.stdout().includes('43 132'), { timeoutMs: 10_000, intervalMs: 20 });
    s.socket.send(frame(4, '{"Width":100,"Height":30}'));
    s.socket.send(frame(0, 'stty size\rexit 0\r'));
    const end = await s.ended;
    t.match(s.stdout(), /43 132\r\n[^]*30 100\r\n/);
    t.same(end.status, { metadata: {}, status: 'Success' });
  });

  await t.test('a client offering only the v1 channel.k8s.io protocol execs through the API server, its error as plain text', async (t) => {
    // kubectl speaks only v5 over WebSockets; this is a bare ws client, as older clients and scripts are.
    const command = ['sh', '-c', 'echo $COLOR; exit 6'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const s = apiStream(host.server, ca, adminToken, `${podPath}/exec?container=app&${command}&stdout=true&stderr=true`, ['channel.k8s.io']);
    await s.opened;
    t.equal(s.socket.protocol, 'channel.k8s.io', 'the API server handed the v1 offer through and the node answered it');
    const end = await s.ended;
    t.equal(s.stdout(), 'blue\n');
    t.match(end.error, /^command terminated with non-zero exit code: .*exit code 6$/, 'v1: the message as text, no JSON Status');
    t.equal(end.code, 1000);
    const ok = apiStream(host.server, ca, adminToken, `${podPath}/exec?container=app&command=hostname&stdout=true`, ['channel.k8s.io']);
    const okEnd = await ok.ended;
    t.equal(ok.stdout(), 'shell\n');
    t.equal(okEnd.error, '', 'success: nothing on the error channel');
  });

  await t.test('the Kubernetes provider\'s relay (how a host Tether execs in a remote pod) brings output, exit code and errors back', async (t) => {
    // The virtual node of this test stands in for a remote cluster's pod: the relay talks to its API server.
    let stdout = '';
    let stderr = '';
    const streams = {
      tty: false,
      stdout: async (c: string | Buffer) => void (stdout += c.toString()),
      stderr: async (c: string | Buffer) => void (stderr += c.toString()),
      stdin: (async function* () { yield Buffer.from('piped\n'); })(),
    };
    const query = new URLSearchParams([['container', 'app'], ['command', 'sh'], ['command', '-c'], ['command', 'cat; echo $COLOR; nope; exit 3'], ['stdin', 'true'], ['stdout', 'true'], ['stderr', 'true']]);
    const code = await relayRemoteStream(host.kubeConfig(), `${podPath}/exec?${query.toString()}`, streams, 'exec');
    t.equal(code, 3);
    t.equal(stdout, 'piped\nblue\n');
    t.equal(stderr, 'sh: nope: not found\n');
    const missing = await relayRemoteStream(host.kubeConfig(), `/api/v1/namespaces/${namespace}/pods/ghost/exec?command=ls&stdout=true`, { tty: false, stdout: async () => undefined }, 'exec')
      .then(() => undefined, (e: unknown) => e);
    t.equal(providerKindOf(missing), 'not-found');
    t.match(String(missing), /pods "ghost" not found/, 'the remote\'s message unchanged');
  });

  await t.test('/pods, /runningpods/, /stats/summary and /metrics/resource through the node proxy, in host terms', async (t) => {
    const hostPod = await getJson<KubeObject & { metadata: { uid: string } }>(host, ['pod', 'shell', '-n', namespace]);
    const proxy = `/api/v1/nodes/${nodeName}/proxy`;
    const pods = JSON.parse(await host.kubectl(['get', '--raw', `${proxy}/pods`])) as { items: Array<{ metadata: { name: string; namespace: string; uid: string }; spec: { nodeName: string } }> };
    t.match(pods.items.find((p) => p.metadata.name === 'shell'), { metadata: { namespace, uid: hostPod?.metadata.uid }, spec: { nodeName } });
    const runningPods = JSON.parse(await host.kubectl(['get', '--raw', `${proxy}/runningpods/`])) as { items: unknown[] };
    t.same(runningPods.items, [{ metadata: { name: 'shell', namespace, uid: hostPod?.metadata.uid }, spec: { containers: [{ name: 'app', image: 'busybox' }] } }]);
    const summary = JSON.parse(await host.kubectl(['get', '--raw', `${proxy}/stats/summary`])) as Record<string, unknown>;
    t.match(summary, { node: { nodeName }, pods: [{ podRef: { name: 'shell', namespace } }] });
    const metrics = await host.kubectl(['get', '--raw', `${proxy}/metrics/resource`]);
    t.match(metrics, new RegExp(`container_memory_working_set_bytes\\{container="app",namespace="${namespace}",pod="shell"\\} \\d+ \\d+`));
    t.equal(await host.kubectl(['get', '--raw', `${proxy}/healthz`]), 'ok\n');
  });

  await t.test('the kubelet port\'s own /metrics, /metrics/probes and /configz answer through the node proxy', async (t) => {
    const proxy = `/api/v1/nodes/${nodeName}/proxy`;
    const metrics = await host.kubectl(['get', '--raw', `${proxy}/metrics`]);
    t.match(metrics, `kubelet_node_name{node="${nodeName}"} 1\n`);
    t.match(metrics, /\nkubelet_running_pods [1-9]\d*\n/, 'the shell pod runs');
    t.match(metrics, /kubelet_running_containers\{container_state="running"\} [1-9]/);
    t.match(await host.kubectl(['get', '--raw', `${proxy}/metrics/probes`]), /^# HELP prober_probe_total /);
    const configz = JSON.parse(await host.kubectl(['get', '--raw', `${proxy}/configz`])) as { kubeletconfig?: { kind?: string; port?: number } };
    t.match(configz, { kubeletconfig: { kind: 'KubeletConfiguration', port: kubelet.port } });
  });

  await t.test('attach streams the container\'s output', async (t) => {
    const s = apiStream(host.server, ca, adminToken, `${podPath}/attach?container=app&stdout=true`);
    await s.opened;
    await waitFor('two lines', () => s.stdout().split('\n').length > 2, { timeoutMs: 10_000, intervalMs: 20 });
    t.match(s.stdout(), /^shell\/app line \d+\nshell\/app line \d+\n/);
    s.socket.close();
    await waitFor('the kubelet API has no stream left', () => kubelet.activeStreams() === 0, { timeoutMs: 10_000 });
  });
});
