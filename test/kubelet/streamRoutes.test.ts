/**
 * exec and attach on the kubelet API over WebSockets, as kubectl (client-go's v5 WebSocket
 * executor) speaks them once the API server hands the upgrade through: a real HTTPS server, a `ws`
 * client, the simulated provider, a fake access reviewer. Also the bounds: malformed and oversized
 * messages, abrupt closes, the concurrent-stream cap, the idle timeout, and SPDY refused clearly.
 */
import { request } from 'node:https';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { startSimulatedKubelet } from '../support/simulatedKubelet.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { staticConfigSource } from '../../src/providers/simulated/configSource.js';
import type { KubeletServer, KubeletServerOptions } from '../../src/kubelet/kubeletServer.js';
import { waitFor } from '../harness/waitFor.js';

const pod = {
  metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
  spec: {
    containers: [{
      name: 'app', image: 'x',
      env: [{ name: 'GREETING', value: 'hello' }, { name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'color' } } }],
      volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }],
    }],
    volumes: [{ name: 'cfg', configMap: { name: 'cfg' } }],
  },
};

async function setup(t: Test, streams?: KubeletServerOptions['streams']): Promise<{ server: KubeletServer; provider: SimulatedProvider }> {
  const configSource = staticConfigSource({ configMaps: { 'shop/cfg': { color: 'blue', 'app.conf': 'port=8080\n' } } });
  const provider = new SimulatedProvider({ startLatencyMs: 0, logIntervalMs: 20, configSource });
  const server = await startSimulatedKubelet(t, provider, pod, streams);
  return { server, provider };
}

interface Session {
  readonly socket: WebSocket;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves when the socket has closed: the close code, its reason, and the error channel's Status. */
  readonly ended: Promise<{ code: number; reason: string; status: Record<string, unknown> | undefined }>;
  readonly opened: Promise<void>;
}

function open(server: KubeletServer, path: string, options: { token?: string; protocols?: string[] } = {}): Session {
  const socket = new WebSocket(`wss://127.0.0.1:${server.port}${path}`, options.protocols ?? ['v5.channel.k8s.io', 'v4.channel.k8s.io'], {
    rejectUnauthorized: false,
    headers: { authorization: `Bearer ${options.token ?? 'good'}` },
  });
  let stdout = '';
  let stderr = '';
  let status: Record<string, unknown> | undefined;
  socket.on('message', (data: Buffer) => {
    const text = data.subarray(1).toString('utf8');
    if (data[0] === 1) stdout += text;
    if (data[0] === 2) stderr += text;
    if (data[0] === 3 && text !== '') status = JSON.parse(text) as Record<string, unknown>;
  });
  socket.on('error', () => undefined);
  return {
    socket,
    stdout: () => stdout,
    stderr: () => stderr,
    opened: new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(Object.assign(new Error(body.trim()), { status: res.statusCode })));
      });
    }),
    ended: new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString(), status }))),
  };
}

/** The HTTP answer of a session refused before the upgrade. */
async function refusal(session: Session): Promise<{ status?: number; message: string } | 'opened'> {
  try {
    await session.opened;
    session.socket.terminate();
    return 'opened';
  } catch (error) {
    return error as { status?: number; message: string };
  }
}

const exec = (command: string[], query = 'output=1&error=1'): string =>
  `/exec/shop/web/app?${command.map((c) => `command=${encodeURIComponent(c)}`).join('&')}&${query}`;

function send(socket: WebSocket, channel: number, data: string | Buffer): void {
  socket.send(Buffer.concat([Buffer.from([channel]), Buffer.from(data)]));
}

function plainGet(server: KubeletServer, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`https://127.0.0.1:${server.port}${path}`, { rejectUnauthorized: false, headers: { authorization: 'Bearer good', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('exec: stdout, stderr and the exit code as a NonZeroExitCode Status, then a normal close', async (t) => {
  const { server } = await setup(t);
  const s = open(server, exec(['sh', '-c', 'echo $GREETING $COLOR; cat /etc/cfg/app.conf; nope; exit 3']));
  t.equal(s.socket.protocol, '', 'not yet negotiated');
  await s.opened;
  t.equal(s.socket.protocol, 'v5.channel.k8s.io');
  const end = await s.ended;
  t.equal(s.stdout(), 'hello blue\nport=8080\n');
  t.equal(s.stderr(), 'sh: nope: not found\n');
  t.equal(end.code, 1000);
  t.match(end.status, { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
  const ok = open(server, exec(['hostname']));
  const okEnd = await ok.ended;
  t.equal(ok.stdout(), 'web\n');
  t.same(okEnd.status, { metadata: {}, status: 'Success' });
});

t.test('exec -i: stdin reaches the command and the v5 half-close ends it', async (t) => {
  const { server } = await setup(t);
  const s = open(server, exec(['cat'], 'stdin=true&stdout=true'));
  await s.opened;
  send(s.socket, 0, 'line one\n');
  send(s.socket, 0, 'line two\n');
  s.socket.send(Buffer.from([255, 0]));
  const end = await s.ended;
  t.equal(s.stdout(), 'line one\nline two\n');
  t.same(end.status, { metadata: {}, status: 'Success' });
});

t.test('exec -t: a terminal gets \\r\\n, resizes are taken, stderr goes to the terminal', async (t) => {
  const { server } = await setup(t);
  const s = open(server, exec(['sh'], 'input=1&output=1&tty=1'));
  await s.opened;
  send(s.socket, 4, '{"Width":120,"Height":40}');
  send(s.socket, 0, 'echo hi\r');
  send(s.socket, 0, 'stty size\r');
  send(s.socket, 0, 'nope\r');
  send(s.socket, 0, 'exit 4\r');
  const end = await s.ended;
  t.match(s.stdout(), /^# echo hi\r\nhi\r\n# stty size\r\n40 120\r\n# nope\r\nsh: nope: not found\r\n# exit 4\r\n$/);
  t.equal(s.stderr(), '');
  t.match(end.status, { details: { causes: [{ message: '4' }] } });
});

t.test('attach streams the container\'s log lines until the client leaves; the session is released', async (t) => {
  const { server } = await setup(t);
  const s = open(server, '/attach/shop/web/app?output=1&error=1');
  await s.opened;
  await waitFor('two new lines', () => s.stdout().split('\n').length > 2, { timeoutMs: 5_000, intervalMs: 10 });
  t.match(s.stdout(), /^web\/app line \d+\nweb\/app line \d+\n/);
  s.socket.terminate();
  await waitFor('no stream left', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
  t.pass('released');
});

t.test('refusals are plain HTTP answers before any upgrade', async (t) => {
  const { server } = await setup(t);
  t.match(await refusal(open(server, exec(['echo']), { token: 'weak' })), { status: 403 });
  t.match(await refusal(open(server, exec(['echo']), { token: 'nope' })), { status: 401 });
  t.match(await refusal(open(server, '/exec/shop/ghost/app?command=echo&stdout=true')), { status: 404, message: /pod shop\/ghost does not exist on node vk-1/ });
  t.match(await refusal(open(server, '/exec/shop/web/other?command=echo&stdout=true')), { status: 400, message: /container other is not valid/ });
  t.match(await refusal(open(server, '/exec/shop/web/u2/app?command=echo&stdout=true')), { status: 404 }, 'a pod of another UID');
  t.match(await refusal(open(server, '/exec/shop/web/app?stdout=true')), { status: 400, message: /must specify a command/ });
  t.match(await refusal(open(server, exec(['echo']), { protocols: ['v3.channel.k8s.io'] })), { status: 400, message: /v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io, channel.k8s.io, base64.channel.k8s.io/ });
  const spdy = await plainGet(server, exec(['echo']), { connection: 'Upgrade', upgrade: 'SPDY/3.1' });
  t.equal(spdy.status, 400);
  t.match(spdy.body, /WebSockets only .*ExtendWebSocketsToKubelet/);
  const plain = await plainGet(server, exec(['echo']), {});
  t.equal(plain.status, 400);
  t.match(plain.body, /needs a WebSocket upgrade/);
  t.equal(server.activeStreams(), 0, 'no slot leaked by a refusal');
});

t.test('a malformed frame closes with 1002, an oversized one with 1009; neither leaks a stream', async (t) => {
  const { server } = await setup(t, { maxMessageBytes: 1024 });
  const bad = open(server, exec(['sleep', '60'], 'stdin=true&stdout=true'));
  await bad.opened;
  bad.socket.send(Buffer.from([255, 0, 0]));
  const badEnd = await bad.ended;
  t.equal(badEnd.code, 1002);
  t.match(badEnd.reason, /exactly one channel byte/);
  const text = open(server, exec(['sleep', '60'], 'stdin=true&stdout=true'));
  await text.opened;
  text.socket.send('not binary');
  t.equal((await text.ended).code, 1002);
  const big = open(server, exec(['cat'], 'stdin=true&stdout=true'));
  await big.opened;
  send(big.socket, 0, Buffer.alloc(4096, 97));
  t.equal((await big.ended).code, 1009);
  await waitFor('no stream left', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
  t.pass('all released');
});

t.test('the node caps concurrent streams and an idle stream is closed with a Status saying so', async (t) => {
  const { server } = await setup(t, { maxConcurrentStreams: 1, streamIdleTimeoutMs: 300 });
  const first = open(server, exec(['cat'], 'stdin=true&stdout=true'));
  await first.opened;
  t.match(await refusal(open(server, exec(['echo']))), { status: 429, message: /too many concurrent streams on node vk-1 \(at most 1\)/ });
  const end = await first.ended;
  t.equal(end.code, 1000);
  t.match(end.status, { status: 'Failure', reason: 'Timeout', message: /idle for 0s, closed by Tether/ });
  await waitFor('slot free', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 10 });
  const again = open(server, exec(['echo', 'again']));
  await again.ended;
  t.equal(again.stdout(), 'again\n');
});
