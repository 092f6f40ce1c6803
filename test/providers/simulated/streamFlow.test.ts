/**
 * The simulated provider's stream paths read their input only as fast as what runs there
 * consumes it (issue 22): a command or main process that does not read stdin leaves it unread,
 * as a real process does, so the host side pauses its client instead of draining it into memory;
 * `cat` reads stdin as fast as its output is taken; the port responder takes forwarded bytes
 * only as fast as it answers them.
 */
import t, { type Test } from 'tap';
import type { PortConnection } from '../../../src/providers/provider.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../../harness/waitFor.js';
import { countedSource } from '../../support/streamFlow.js';
import { drain, until } from '../../support/until.js';

async function running(t: Test): Promise<SimulatedProvider> {
  const provider = new SimulatedProvider({ startLatencyMs: 0, logIntervalMs: 60_000 });
  provider.notifyPods(() => undefined);
  await provider.createPod({
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { containers: [{ name: 'app', image: 'x', ports: [{ containerPort: 8080 }] }] },
  });
  await waitFor('running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  t.teardown(() => provider.stop());
  return provider;
}

const target = { namespace: 'shop', pod: 'web', container: 'app' };

t.test('attach leaves stdin unread: the main process does not read it', async (t) => {
  const provider = await running(t);
  const stdin = countedSource(Buffer.alloc(64 * 1024, 'i'));
  const abort = new AbortController();
  const attached = provider.attachToContainer(target, { tty: false, stdin: stdin.input, stdout: async () => undefined }, abort.signal);
  await drain(200);
  t.equal(stdin.pulled(), 0, 'nothing pulled from stdin');
  abort.abort();
  t.equal(await attached, undefined);
});

t.test('exec of a command that does not read stdin (sleep) leaves it unread', async (t) => {
  const provider = await running(t);
  const stdin = countedSource(Buffer.alloc(64 * 1024, 'i'));
  const abort = new AbortController();
  const running_ = provider.runInContainer(target, ['sleep', '3600'], { tty: false, stdin: stdin.input }, abort.signal).catch((e: unknown) => e);
  await drain(200);
  t.equal(stdin.pulled(), 0, 'nothing pulled from stdin');
  abort.abort();
  await running_;
});

t.test('cat reads stdin only as fast as its output is taken', async (t) => {
  const provider = await running(t);
  const stdin = countedSource(Buffer.alloc(1024, 'c'));
  const releases: Array<() => void> = [];
  const stdout = (): Promise<void> => new Promise((resolve) => releases.push(resolve));
  const abort = new AbortController();
  const cat = provider.runInContainer(target, ['cat'], { tty: false, stdin: stdin.input, stdout }, abort.signal).catch((e: unknown) => e);
  await until('cat writes its first chunk', () => releases.length === 1);
  await drain(100);
  t.equal(stdin.pulled(), 1024, 'one chunk pulled while its output waits');
  releases.shift()?.();
  await until('cat writes the next', () => releases.length === 1);
  await drain(100);
  t.equal(stdin.pulled(), 2048, 'the next only once the first was taken');
  abort.abort();
  for (const release of releases.splice(0)) release();
  await cat;
});

t.test('a forwarded connection whose answers are not read stops taking the client\'s bytes', async (t) => {
  const provider = await running(t);
  // Pipelined requests, endlessly: each gets an answer, which the client never takes.
  const requests = countedSource(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(64)));
  let writes = 0;
  const connection: PortConnection = {
    input: requests.input,
    write: () => {
      writes += 1;
      return new Promise<void>(() => undefined);
    },
  };
  const abort = new AbortController();
  const serving = provider.portForward('shop', 'web', 8080, connection, abort.signal);
  await until('the first answer is written', () => writes === 1);
  await drain(100);
  const stalledAt = requests.pulled();
  await drain(200);
  t.equal(requests.pulled(), stalledAt, 'no more requests are taken while the answers wait');
  t.ok(stalledAt < 1024 * 1024, `a bounded amount was taken (${stalledAt} bytes)`);
  abort.abort();
  await serving;
});
