/**
 * What a stranger can send to the kubelet port, byte for byte, over a raw TLS socket: each
 * malformed request costs that request alone (a 400 and a closed connection, counted and logged),
 * never the process. A real HTTPS kubelet server on an ephemeral port; the test process itself is
 * the witness that nothing ended it.
 */
import { connect } from 'node:tls';
import t, { type Test } from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/kubeletServer.js';
import type { RejectionReason } from '../../src/kubelet/rejections.js';
import { FakeAccessReviewer } from '../support/fakeAccessReviewer.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }] } };

async function serve(t: Test): Promise<{ server: KubeletServer; rejected: RejectionReason[] }> {
  const rejected: RejectionReason[] = [];
  const server = await startKubeletServer({
    nodeName: 'vk-1',
    provider: { listPods: async () => [pod], getPod: async (namespace, name) => (namespace === 'shop' && name === 'web' ? pod : undefined) },
    reviewer: new FakeAccessReviewer(),
    address: '127.0.0.1',
    port: 0,
    rejections: { onRejected: (reason) => rejected.push(reason) },
  });
  t.teardown(() => server.stop());
  return { server, rejected };
}

/** Sends `bytes` on a fresh TLS connection and reads until the server closes it. */
function raw(server: KubeletServer, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false }, () => socket.end(bytes));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const HANDSHAKE = 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n';
const upgrade = (target: string, extra = HANDSHAKE, token = 'good'): string =>
  `GET ${target} HTTP/1.1\r\nHost: kubelet\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${extra}\r\n`;
const plain = (target: string, token = 'good'): string => `GET ${target} HTTP/1.1\r\nHost: kubelet\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;

// Each of these once made `new URL(req.url, …)` throw inside the upgrade listener, ending the process.
const ONCE_FATAL = ['//', '//[', '//x:99999', '//a@b:c', '//%5B'];
// Targets Go's url.ParseRequestURI refuses (a bad escape), or that are not a path at all.
const MALFORMED_TARGETS = ['/%zz', '//%', '/exec/%zz/web/app?command=sh&output=1', '/containerLogs/shop/%E0%A4%A/app', '*', 'pods'];

t.test('the bytes that ended the process: GET // asking for a WebSocket, with no key and no Host, answer 400', async (t) => {
  const { server, rejected } = await serve(t);
  const answer = await raw(server, 'GET // HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
  t.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*Connection: close\r\n/);
  t.same(rejected, ['malformed-header']);
  t.match(await raw(server, plain('/healthz')), /^HTTP\/1\.1 200 /, 'and the server serves on');
});

t.test('"//"-paths are paths (as Go reads a request target): 401 for a stranger, 404 for a user, upgrade or not', async (t) => {
  const { server, rejected } = await serve(t);
  for (const target of ONCE_FATAL) {
    t.match(await raw(server, upgrade(target, HANDSHAKE, 'nope')), /^HTTP\/1\.1 401 Unauthorized\r\n/, `upgrade ${target}, unknown token`);
    t.match(await raw(server, upgrade(target)), /^HTTP\/1\.1 404 Not Found\r\n[\s\S]*no such streaming endpoint/, `upgrade ${target}`);
    t.match(await raw(server, plain(target)), /^HTTP\/1\.1 404 Not Found\r\n/, `GET ${target}`);
  }
  t.equal(rejected.filter((r) => r === 'unauthenticated').length, ONCE_FATAL.length);
  t.equal(rejected.filter((r) => r === 'not-found').length, 2 * ONCE_FATAL.length);
  t.equal(server.activeStreams(), 0, 'no stream slot held');
});

t.test('a malformed request target answers 400 before authentication, with an upgrade or without', async (t) => {
  const { server, rejected } = await serve(t);
  for (const target of MALFORMED_TARGETS) {
    t.match(await raw(server, upgrade(target, HANDSHAKE, 'nope')), /^HTTP\/1\.1 400 Bad Request\r\n/, `upgrade ${target}`);
    t.match(await raw(server, plain(target, 'nope')), /^HTTP\/1\.1 400 Bad Request\r\n/, `GET ${target}`);
  }
  t.equal(rejected.length, 2 * MALFORMED_TARGETS.length, 'each counted');
  t.ok(rejected.every((r) => r === 'malformed-url' || r === 'malformed-request'), 'as malformed-url (or malformed-request, where Node\'s parser refused the line first)');
  t.ok(rejected.filter((r) => r === 'malformed-url').length >= 8, 'most reach the target parser');
  t.equal(server.activeStreams(), 0, 'no stream slot held');
});

t.test('bytes that are not HTTP, or a request line with a space in its target, answer 400 for that connection alone', async (t) => {
  const { server, rejected } = await serve(t);
  for (const bytes of ['GET //a b HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n', 'hello\r\n\r\n', '\x16\x03\x01\x00\x00\r\n\r\n', `GET / HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`]) {
    t.match(await raw(server, bytes), /^HTTP\/1\.1 4(00|31) /, JSON.stringify(bytes.slice(0, 30)));
  }
  t.ok(rejected.includes('malformed-request'), 'counted');
  t.ok(rejected.includes('header-too-large'), 'oversized headers counted apart');
  const healthy = await raw(server, plain('/healthz'));
  t.match(healthy, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok\n$/, 'and the next request is served');
});

t.test('an upgrade whose WebSocket headers are broken is refused before any check', async (t) => {
  const { server, rejected } = await serve(t);
  const exec = '/exec/shop/web/app?command=sh&output=1';
  t.match(await raw(server, upgrade(exec, 'Sec-WebSocket-Version: 13\r\n')), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*Sec-WebSocket-Key/, 'no key');
  t.match(await raw(server, upgrade(exec, HANDSHAKE.replace('13', '7'))), /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*Sec-WebSocket-Version: 13, 8\r\n/, 'an old version');
  t.match(await raw(server, upgrade(exec).replace('Upgrade: websocket', 'Upgrade: h2c')), /^HTTP\/1\.1 400 [\s\S]*WebSockets only/, 'h2c');
  t.match(await raw(server, upgrade(exec).replace('GET', 'POST')), /^HTTP\/1\.1 405 [\s\S]*Allow: GET/, 'POST');
  t.match(await raw(server, upgrade(exec).replace('Host: kubelet\r\n', '')), /^HTTP\/1\.1 400 [\s\S]*missing required Host header/, 'no Host');
  t.same(rejected, ['malformed-header', 'malformed-header', 'unsupported-upgrade', 'method-not-allowed', 'malformed-header']);
  t.equal(server.activeStreams(), 0);
});

t.test('a TLS handshake that is not one, and a connection cut mid-request, cost nothing', async (t) => {
  const { server, rejected } = await serve(t);
  const { createConnection } = await import('node:net');
  await new Promise<void>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: server.port }, () => socket.end('GET / HTTP/1.1\r\n\r\n'));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
  await new Promise<void>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, rejectUnauthorized: false }, () => {
      socket.write('GET /pods HTTP/1.1\r\nHost: k\r\nAuthorization: Bea');
      socket.destroy();
      resolve();
    });
  });
  t.match(await raw(server, plain('/healthz')), /^HTTP\/1\.1 200 /);
  t.same(rejected, ['tls-handshake'], 'the handshake counted; a client that left is not a refusal');
});
