/**
 * A real kubelet API (HTTPS on port 0) whose certificate files are rotated under it, laid out as a
 * Secret volume (`..data` swapped in one rename): new connections get the new serving certificate
 * and the new client CA after the next check; connections open before keep theirs; a broken file
 * keeps what is in use; the self-signed certificate is renewed when the clock passes its point.
 * Time is a ManualClock: the periodic check and the renewal run when the test advances it.
 */
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import t, { type Test } from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import { watchCertificateFiles, type WatchedCertificateFiles } from '../../src/kubelet/certificateSource.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/kubeletServer.js';
import { renewalTime } from '../../src/kubelet/selfSignedRenewal.js';
import { FakeAccessReviewer } from '../support/fakeAccessReviewer.js';
import { ManualClock } from '../support/manualClock.js';
import { certificateKit, CheckOutcomes, fingerprint, SecretVolume, type CertificateKit, type Pem } from '../support/rotatingCertificates.js';
import { waitFor } from '../harness/waitFor.js';

const provider = { listPods: async () => [], getPod: async () => undefined };
const noWatch = () => ({ close: () => undefined });

interface Answer {
  readonly status: number;
  /** SHA-256 fingerprint of the certificate the server presented. */
  readonly served: string;
  readonly socket: TLSSocket;
}

/** GET /healthz: with alice's token unless a client certificate is given; a new connection unless `agent`. */
function healthz(server: KubeletServer, options: { client?: Pem; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: server.port, path: '/healthz', rejectUnauthorized: false, agent: options.agent ?? false,
      ...(options.client ? { cert: options.client.cert, key: options.client.key } : { headers: { authorization: 'Bearer good' } }),
    }, (res) => {
      // Read before the end: a kept-alive socket is taken off the response once it goes back to the agent.
      const socket = res.socket as TLSSocket;
      const served = socket.getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, served, socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw TLS 1.2 handshake with a client certificate, resuming `session` if given; the status of GET /healthz. */
function tls12(server: KubeletServer, client: Pem, session?: Buffer): Promise<{ status: number; reused: boolean; session: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    const options: ConnectionOptions = { host: '127.0.0.1', port: server.port, rejectUnauthorized: false, cert: client.cert, key: client.key, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) };
    const socket = connect(options, () => socket.end('GET /healthz HTTP/1.1\r\nHost: vk-1\r\nConnection: close\r\n\r\n'));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0), reused: socket.isSessionReused(), session: socket.getSession() }));
    socket.on('error', reject);
  });
}

interface Setup {
  readonly kit: CertificateKit;
  readonly volume: SecretVolume;
  readonly clock: ManualClock;
  readonly outcomes: CheckOutcomes;
  readonly source: WatchedCertificateFiles;
  readonly server: KubeletServer;
  readonly errors: string[];
}

let kitOnce: Promise<CertificateKit> | undefined;

async function setup(t: Test): Promise<Setup> {
  const dir = t.testdir(); // emptied on each call: called once
  kitOnce ??= certificateKit(join(dir, 'kit'));
  const kit = await kitOnce;
  const volume = new SecretVolume(join(dir, 'volume'));
  await volume.write({ 'tls.crt': kit.servingA.cert, 'tls.key': kit.servingA.key, 'ca.crt': kit.caA });
  const clock = new ManualClock();
  const outcomes = new CheckOutcomes();
  const errors: string[] = [];
  const logger = jsonLogger('error', (line) => errors.push((JSON.parse(line) as { msg: string }).msg));
  const files = { certFile: volume.path('tls.crt'), keyFile: volume.path('tls.key'), clientCAFile: volume.path('ca.crt') };
  const source = await watchCertificateFiles(files, { clock, logger, onCheck: outcomes.onCheck, watchDirectory: noWatch });
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, tls: { source, clock }, logger });
  t.teardown(async () => {
    await server.stop();
    await source.stop();
  });
  return { kit, volume, clock, outcomes, source, server, errors };
}

/** Advances past one periodic check and answers its outcome. */
async function nextCheck(s: Setup): Promise<string> {
  s.clock.advance(60_000);
  return (await s.outcomes.next()).kind;
}

void t.test('a rotated certificate and key are served to new connections after the next check; a connection opened before keeps its own', async (t) => {
  const s = await setup(t);
  const kept = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => kept.destroy());
  const before = await healthz(s.server, { agent: kept });
  t.equal(before.served, fingerprint(s.kit.servingA.cert));

  await s.volume.write({ 'tls.crt': s.kit.servingB.cert, 'tls.key': s.kit.servingB.key, 'ca.crt': s.kit.caA });
  t.equal((await healthz(s.server)).served, fingerprint(s.kit.servingA.cert), 'nothing changes before the check');
  t.equal(await nextCheck(s), 'reloaded');

  const after = await healthz(s.server);
  t.equal(after.status, 200);
  t.equal(after.served, fingerprint(s.kit.servingB.cert), 'a new connection gets the new certificate');
  t.equal(fingerprint(s.server.certificate), fingerprint(s.kit.servingB.cert), 'and the server says so');
  const again = await healthz(s.server, { agent: kept });
  t.equal(again.socket, before.socket, 'the connection opened before is the same');
  t.equal(again.status, 200, 'and still serves');
  t.equal(again.served, fingerprint(s.kit.servingA.cert), 'with the certificate it was opened with');
  t.equal(await nextCheck(s), 'unchanged', 'the same contents are not reloaded twice');
});

void t.test('after a client CA rotation a client certificate of the new CA is accepted and one of the old CA is not, nor resumes its session', async (t) => {
  const s = await setup(t);
  t.equal((await healthz(s.server, { client: s.kit.aliceA })).status, 200, 'old CA, before');
  t.equal((await healthz(s.server, { client: s.kit.aliceB })).status, 401, 'new CA, before');
  const old = await tls12(s.server, s.kit.aliceA);
  t.equal(old.status, 200);
  t.ok((await tls12(s.server, s.kit.aliceA, old.session)).reused, 'a TLS 1.2 session resumes while the CA is the same');

  await s.volume.write({ 'tls.crt': s.kit.servingA.cert, 'tls.key': s.kit.servingA.key, 'ca.crt': s.kit.caB });
  t.equal(await nextCheck(s), 'reloaded');

  t.equal((await healthz(s.server, { client: s.kit.aliceB })).status, 200, 'new CA, after');
  t.equal((await healthz(s.server, { client: s.kit.aliceA })).status, 401, 'old CA, after');
  const resumed = await tls12(s.server, s.kit.aliceA, old.session);
  t.equal(resumed.reused, false, 'the session from before the rotation is not resumed');
  t.equal(resumed.status, 401, 'and its certificate is judged by the new CA');
});

void t.test('a broken rotation keeps the certificates in use, logs the file and the problem once, and the next good write is served', async (t) => {
  const s = await setup(t);
  const { servingA, servingB, caA } = s.kit;
  const broken: ReadonlyArray<{ what: string; files: Record<string, string>; problem: RegExp }> = [
    { what: 'a certificate written in part', files: { 'tls.crt': servingB.cert.slice(0, servingB.cert.length / 2), 'tls.key': servingB.key, 'ca.crt': caA }, problem: /certFile\/keyFile .*tls\.crt.*ends inside a PEM block/ },
    { what: 'the new certificate with the old key', files: { 'tls.crt': servingB.cert, 'tls.key': servingA.key, 'ca.crt': caA }, problem: /the key in .*tls\.key is not the key of the certificate in .*tls\.crt/ },
    { what: 'a certificate that is not PEM', files: { 'tls.crt': 'not a certificate\n', 'tls.key': servingB.key, 'ca.crt': caA }, problem: /tls\.crt holds no PEM certificate/ },
    { what: 'a key that is not PEM', files: { 'tls.crt': servingB.cert, 'tls.key': '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n', 'ca.crt': caA }, problem: /tls\.key is not a PEM private key/ },
    { what: 'a key file gone', files: { 'tls.crt': servingB.cert, 'ca.crt': caA }, problem: /tls\.key cannot be read \(ENOENT/ },
    { what: 'a client CA that is not PEM', files: { 'tls.crt': servingB.cert, 'tls.key': servingB.key, 'ca.crt': 'garbage' }, problem: /clientCAFile .*ca\.crt cannot be used: .*ca\.crt holds no PEM certificate/ },
  ];
  for (const [i, step] of broken.entries()) {
    await s.volume.write(step.files);
    t.equal(await nextCheck(s), 'refused', step.what);
    t.equal(s.errors.length, i + 1, `${step.what}: one error logged`);
    t.match(s.errors.at(-1), step.problem, `${step.what}: the log names the file and the problem`);
    const answer = await healthz(s.server);
    t.equal(answer.status, 200, `${step.what}: still serving`);
    t.equal(answer.served, fingerprint(servingA.cert), `${step.what}: with the certificate in use`);
    t.equal((await healthz(s.server, { client: s.kit.aliceA })).status, 200, `${step.what}: and the client CA in use`);
  }
  t.equal(await nextCheck(s), 'unchanged', 'the same broken contents are checked once');
  t.equal(s.errors.length, broken.length, 'and logged once');

  await s.volume.write({ 'tls.crt': servingB.cert, 'tls.key': servingB.key, 'ca.crt': caA });
  t.equal(await nextCheck(s), 'reloaded');
  t.equal((await healthz(s.server)).served, fingerprint(servingB.cert), 'the next good write is served');
});

void t.test('the self-signed certificate is renewed when the clock passes two thirds of its lifetime', async (t) => {
  const clock = new ManualClock();
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, tls: { clock } });
  t.teardown(() => server.stop());
  const first = server.certificate;
  t.equal((await healthz(server)).served, fingerprint(first));
  const due = renewalTime(first);
  t.ok(due - clock.now() > 240 * 86_400_000 && due - clock.now() < 245 * 86_400_000, 'about 243 days after start');

  clock.advance(due - clock.now());
  await waitFor('renewed', () => server.certificate !== first, { timeoutMs: 10_000, intervalMs: 10 });
  const answer = await healthz(server);
  t.equal(answer.status, 200);
  t.equal(answer.served, fingerprint(server.certificate), 'a new connection gets the renewed certificate');
  t.not(answer.served, fingerprint(first));
});

void t.test('stopping the server stops its renewal and a failed listen leaves no timer behind', async (t) => {
  const clock = new ManualClock();
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, tls: { clock } });
  t.equal(clock.pendingTimers, 1, 'the renewal waits');
  const taken = startKubeletServer({ nodeName: 'vk-2', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: server.port, tls: { clock } });
  await t.rejects(taken, /EADDRINUSE/);
  t.equal(clock.pendingTimers, 1, 'the server that could not listen let its renewal go');
  await server.stop();
  t.equal(clock.pendingTimers, 0, 'the stopped server let its renewal go');
});
