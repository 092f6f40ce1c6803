/**
 * exec over every `channel.k8s.io` protocol the kubelet speaks, end to end on a real HTTPS server
 * with a `ws` client and the simulated provider: v5 and v4 (JSON Status on the error channel),
 * v1 `channel.k8s.io` and no subprotocol at all (the error as plain text, nothing on success),
 * and the base64 variants (text messages, a channel digit, then base64).
 */
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import type { KubeletServer } from '../../src/kubelet/kubeletServer.js';
import { startSimulatedKubelet } from '../support/simulatedKubelet.js';

const pod = { metadata: { name: 'web', namespace: 'shop', uid: 'u1' }, spec: { containers: [{ name: 'app', image: 'x' }] } };

async function setup(t: Test): Promise<KubeletServer> {
  return startSimulatedKubelet(t, new SimulatedProvider({ startLatencyMs: 0, logIntervalMs: 20 }), pod);
}

interface Ended {
  readonly protocol: string;
  readonly code: number;
  /** What each channel carried, decoded, in order. */
  readonly channels: ReadonlyMap<number, string>;
  /** Whether every server message was a text message (base64) or binary. */
  readonly kinds: ReadonlySet<'text' | 'binary'>;
}

/** An exec session under `protocols` (undefined: no subprotocol header), `input` sent once open. */
function execWith(server: KubeletServer, protocols: string[] | undefined, command: string[], input?: (socket: WebSocket) => void): Promise<Ended> {
  const query = [...command.map((c) => `command=${encodeURIComponent(c)}`), 'output=1', 'error=1', ...(input ? ['input=1'] : [])].join('&');
  const url = `wss://127.0.0.1:${server.port}/exec/shop/web/app?${query}`;
  const options = { rejectUnauthorized: false, headers: { authorization: 'Bearer good' } };
  const socket = protocols === undefined ? new WebSocket(url, options) : new WebSocket(url, protocols, options);
  const channels = new Map<number, string>();
  const kinds = new Set<'text' | 'binary'>();
  const base64 = (protocols ?? []).some((p) => p.includes('base64')) && !(protocols ?? []).includes('v5.channel.k8s.io');
  socket.on('message', (data: Buffer, isBinary) => {
    kinds.add(isBinary ? 'binary' : 'text');
    const channel = base64 ? (data[0] as number) - 48 : (data[0] as number);
    const body = base64 ? Buffer.from(data.subarray(1).toString('ascii'), 'base64') : data.subarray(1);
    channels.set(channel, (channels.get(channel) ?? '') + body.toString('utf8'));
  });
  socket.on('open', () => input?.(socket));
  return new Promise((resolve, reject) => {
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode ?? 0}`)));
    socket.once('error', reject);
    socket.once('close', (code) => resolve({ protocol: socket.protocol, code, channels, kinds }));
  });
}

t.test('a client offering only channel.k8s.io gets v1: output, then the error as plain text', async (t) => {
  const server = await setup(t);
  const failed = await execWith(server, ['channel.k8s.io'], ['sh', '-c', 'echo hi; exit 3']);
  t.equal(failed.protocol, 'channel.k8s.io');
  t.equal(failed.channels.get(1), 'hi\n');
  t.equal(failed.channels.get(3), 'command terminated with non-zero exit code: error executing command, exit code 3', 'text, not a JSON Status');
  t.equal(failed.code, 1000);
  t.same([...failed.kinds], ['binary']);
  const ok = await execWith(server, ['channel.k8s.io'], ['hostname']);
  t.equal(ok.channels.get(1), 'web\n');
  t.notOk(ok.channels.has(3), 'success writes nothing on the error channel, as the kubelet\'s v1 does');
});

t.test('no subprotocol at all is v1 binary, as the kubelet\'s "" protocol', async (t) => {
  const server = await setup(t);
  const ended = await execWith(server, undefined, ['sh', '-c', 'echo hi; exit 2']);
  t.equal(ended.protocol, '', 'no subprotocol answered');
  t.equal(ended.channels.get(1), 'hi\n');
  t.match(ended.channels.get(3), /^command terminated with non-zero exit code: .*exit code 2$/);
});

t.test('base64.channel.k8s.io and v4.base64.channel.k8s.io: text messages, stdin decoded, the error channel v1 text or v4 JSON', async (t) => {
  const server = await setup(t);
  for (const protocol of ['base64.channel.k8s.io', 'v4.base64.channel.k8s.io']) {
    // No half-close before v5: the script's own `exit` ends the shell reading stdin.
    const ended = await execWith(server, [protocol], ['sh'], (socket) => socket.send(`0${Buffer.from('echo got ping\nexit 4\n').toString('base64')}`));
    t.equal(ended.protocol, protocol);
    t.same([...ended.kinds], ['text'], `${protocol}: every message is text`);
    t.equal(ended.channels.get(1), 'got ping\n', `${protocol}: stdin decoded, stdout encoded`);
    const error = ended.channels.get(3) ?? '';
    if (protocol.startsWith('v4.')) t.match(JSON.parse(error), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ message: '4' }] } });
    else t.match(error, /exit code 4$/);
  }
});

t.test('v4.channel.k8s.io has the JSON Status; v5 wins wherever a client lists it, as the kubelet', async (t) => {
  const server = await setup(t);
  const v4 = await execWith(server, ['channel.k8s.io', 'v4.channel.k8s.io'], ['sh', '-c', 'exit 0']);
  t.equal(v4.protocol, 'channel.k8s.io', 'otherwise the client\'s order');
  const only4 = await execWith(server, ['v4.channel.k8s.io'], ['hostname']);
  t.equal(only4.protocol, 'v4.channel.k8s.io');
  t.same(JSON.parse(only4.channels.get(3) ?? ''), { metadata: {}, status: 'Success' });
  const v5 = await execWith(server, ['channel.k8s.io', 'base64.channel.k8s.io', 'v5.channel.k8s.io'], ['hostname']);
  t.equal(v5.protocol, 'v5.channel.k8s.io');
});

t.test('a list with nothing Tether speaks is still a 400 naming what it speaks', async (t) => {
  const server = await setup(t);
  await t.rejects(execWith(server, ['v3.channel.k8s.io', 'v5.base64.channel.k8s.io'], ['hostname']), /HTTP 400/);
});

t.test('attach speaks them too: the container\'s output under base64.channel.k8s.io', async (t) => {
  const server = await setup(t);
  const socket = new WebSocket(`wss://127.0.0.1:${server.port}/attach/shop/web/app?output=1`, ['base64.channel.k8s.io'], {
    rejectUnauthorized: false, headers: { authorization: 'Bearer good' },
  });
  const line = await new Promise<string>((resolve, reject) => {
    socket.on('message', (data: Buffer, isBinary) => {
      const text = data.toString('latin1');
      if (!isBinary && text.startsWith('1') && text.length > 1) resolve(Buffer.from(text.slice(1), 'base64').toString('utf8'));
    });
    socket.once('error', reject);
  });
  t.match(line, /^web\/app line \d+\n/);
  socket.close();
  await new Promise((resolve) => socket.once('close', resolve));
});
