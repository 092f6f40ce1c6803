/**
 * Stream slots on a real kubelet server: released on every path (the client gone before, during
 * or after the checks), capped per node, per user and per pod with 429 and Retry-After, and a
 * session ended at the absolute limit however busy.
 */
import { connect, type TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import type { AccessReviewer, NodeRequestAttributes, UserInfo } from '../../src/adapters/kubernetes/accessReview.js';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { startKubeletServer, type KubeletServer, type KubeletServerOptions } from '../../src/kubelet/kubeletServer.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../harness/waitFor.js';
import { ManualClock } from '../support/manualClock.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }] } };
const other: Pod = { metadata: { name: 'db', namespace: 'shop', uid: 'u2' }, spec: { containers: [{ name: 'app', image: 'x' }] } };

/** Users by token (alice, carol), allowed everything; token reviews wait while the gate is closed. */
class GatedReviewer implements AccessReviewer {
  pending = 0;
  private gate: Promise<void> = Promise.resolve();
  private open: () => void = () => undefined;

  close(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  async reviewToken(token: string): Promise<UserInfo | undefined> {
    this.pending++;
    await this.gate;
    this.pending--;
    return token === 'alice' || token === 'carol' ? { username: token, groups: [] } : undefined;
  }

  async authorize(_user: UserInfo, _attributes: NodeRequestAttributes): Promise<{ allowed: boolean }> {
    return { allowed: true };
  }
}

async function setup(t: Test, extra: Partial<KubeletServerOptions> = {}): Promise<{ server: KubeletServer; reviewer: GatedReviewer; provider: SimulatedProvider }> {
  const provider = new SimulatedProvider({ startLatencyMs: 0, logIntervalMs: 50 });
  provider.notifyPods(() => undefined);
  for (const p of [pod, other]) await provider.createPod(structuredClone(p));
  await waitFor('running', async () => (await provider.getPodStatus('shop', 'db'))?.phase === 'Running' && (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const reviewer = new GatedReviewer();
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer, address: '127.0.0.1', port: 0, ...extra });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  return { server, reviewer, provider };
}

const execPath = (target = 'web', command = 'cat'): string => `/exec/shop/${target}/app?command=${command}&input=1&output=1`;

/** An upgrade request on a raw TLS socket, left for the caller to cut. */
function rawUpgrade(server: KubeletServer, path: string, token = 'alice'): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: k\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n');
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

interface Opened { readonly socket: WebSocket; readonly closed: Promise<{ code: number; status: string }> }

/** A WebSocket exec: resolves once open, or rejects with the refusal's status, headers and body. */
function openExec(server: KubeletServer, path: string, token = 'alice'): Promise<Opened> {
  const socket = new WebSocket(`wss://127.0.0.1:${server.port}${path}`, ['v5.channel.k8s.io'], { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } });
  let status = '';
  socket.on('message', (data: Buffer) => {
    if (data[0] === 3) status += data.subarray(1).toString();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; status: string }>((resolve) => socket.once('close', (code) => resolve({ code, status })));
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, closed }));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(Object.assign(new Error(body.trim()), { status: res.statusCode, retryAfter: res.headers['retry-after'] })));
    });
  });
}

t.test('clients gone while their token is still being reviewed free their slots; the next upgrade is admitted', async (t) => {
  const { server, reviewer } = await setup(t, { streams: { maxConcurrentStreams: 2 } });
  reviewer.close();
  const sockets = await Promise.all([rawUpgrade(server, execPath()), rawUpgrade(server, execPath())]);
  await waitFor('both under review', () => reviewer.pending === 2, { timeoutMs: 5_000, intervalMs: 5 });
  t.equal(server.activeStreams(), 2, 'each holds a slot while it is checked');
  for (const socket of sockets) socket.destroy();
  await waitFor('the slots freed when the clients left', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
  reviewer.release();
  const next = await openExec(server, execPath());
  t.equal(server.activeStreams(), 1, 'admitted, and the late reviews took no slot back');
  next.socket.close();
  await next.closed;
  await waitFor('released', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
});

t.test('a client gone during the pod check frees its slot and aborts the check', async (t) => {
  const signals: AbortSignal[] = [];
  const { server, provider } = await setup(t, { streams: { maxConcurrentStreams: 1 } });
  const getPod = provider.getPod.bind(provider);
  let hold = true;
  provider.getPod = (namespace, name, signal) => {
    if (!hold) return getPod(namespace, name, signal);
    if (signal) signals.push(signal);
    return new Promise(() => undefined);
  };
  const socket = await rawUpgrade(server, execPath());
  await waitFor('the pod check started', () => signals.length === 1, { timeoutMs: 5_000, intervalMs: 5 });
  socket.destroy();
  await waitFor('the check aborted', () => signals[0]?.aborted === true, { timeoutMs: 5_000, intervalMs: 5 });
  await waitFor('the slot freed', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
  hold = false;
  const next = await openExec(server, execPath());
  next.socket.close();
  await next.closed;
});

t.test('forty upgrades cut at once, at every stage, leave no slot behind', async (t) => {
  const { server } = await setup(t, { streams: { maxConcurrentStreams: 4 } });
  for (let round = 0; round < 10; round++) {
    const sockets = await Promise.all([1, 2, 3, 4].map(() => rawUpgrade(server, execPath())));
    for (const socket of sockets) socket.destroy();
  }
  await waitFor('every slot freed', () => server.activeStreams() === 0, { timeoutMs: 10_000, intervalMs: 10 });
  const next = await openExec(server, execPath());
  next.socket.close();
  await next.closed;
});

t.test('one user holds at most maxStreamsPerUser; another user is still admitted; 429 says when to retry', async (t) => {
  const { server } = await setup(t, { streams: { maxConcurrentStreams: 10, maxStreamsPerUser: 1 } });
  const held = await openExec(server, execPath());
  const refused = await openExec(server, execPath('db')).then(() => 'opened', (error: unknown) => error);
  t.match(refused, { status: 429, retryAfter: '10', message: /too many concurrent streams for user alice on node vk-1 \(at most 1\)/ });
  const carol = await openExec(server, execPath('db'), 'carol');
  t.equal(server.activeStreams(), 2);
  for (const s of [held, carol]) s.socket.close();
  await Promise.all([held.closed, carol.closed]);
  await waitFor('released', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
});

t.test('one pod takes at most maxStreamsPerPod, whoever asks; other pods are still reachable', async (t) => {
  const { server } = await setup(t, { streams: { maxStreamsPerPod: 1 } });
  const held = await openExec(server, execPath());
  const refused = await openExec(server, execPath(), 'carol').then(() => 'opened', (error: unknown) => error);
  t.match(refused, { status: 429, retryAfter: '10', message: /too many concurrent streams to pod shop\/web \(at most 1\)/ });
  const db = await openExec(server, execPath('db'), 'carol');
  for (const s of [held, db]) s.socket.close();
  await Promise.all([held.closed, db.closed]);
});

t.test('a session is ended at maxSessionMs however busy, with a Failure Status saying so', async (t) => {
  const clock = new ManualClock();
  const { server } = await setup(t, { clock, streams: { maxSessionMs: 60_000 } });
  const session = await openExec(server, execPath());
  session.socket.send(Buffer.from([0, ...Buffer.from('still here\n')]));
  clock.advance(59_999);
  t.equal(session.socket.readyState, WebSocket.OPEN, 'open until the limit');
  clock.advance(1);
  const end = await session.closed;
  t.equal(end.code, 1000);
  t.match(JSON.parse(end.status), { status: 'Failure', reason: 'Timeout', message: 'exec in shop/web/app reached the session limit of 60 s, closed by Tether' });
  await waitFor('released', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
});
