/** A simulated pod's declared ports answer HTTP naming the pod, container and port (the provider side of port-forward). */
import t, { type Test } from 'tap';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../../harness/waitFor.js';

async function running(t: Test): Promise<SimulatedProvider> {
  const provider = new SimulatedProvider({ startLatencyMs: 0 });
  provider.notifyPods(() => undefined);
  await provider.createPod({
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { containers: [{ name: 'side', image: 'x' }, { name: 'app', image: 'x', ports: [{ containerPort: 8080 }] }] },
  });
  await waitFor('running', async () => (await provider.getPodStatus('shop', 'web'))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  t.teardown(() => provider.stop());
  return provider;
}

async function* chunks(...parts: string[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield Buffer.from(p);
}

t.test('an HTTP request through a forwarded connection gets an answer naming the pod, container and port', async (t) => {
  const provider = await running(t);
  let answer = '';
  await provider.portForward('shop', 'web', 8080, {
    input: chunks('GET /hello HTTP/1.1\r\nHost: localhost\r\n', 'Connection: close\r\n\r\n'),
    write: async (c) => void (answer += c.toString()),
  });
  t.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
  t.match(answer, /Hello from pod shop\/web, container app, port 8080 \(Tether simulated provider\): GET \/hello\n$/);
});

t.test('a port nobody declares, or an unknown pod, is refused before any byte', async (t) => {
  const provider = await running(t);
  const conn = { input: chunks(), write: async (): Promise<void> => undefined };
  await t.rejects(provider.portForward('shop', 'web', 9999, conn), /nothing listens on port 9999 of pod shop\/web/);
  await t.rejects(provider.portForward('shop', 'ghost', 8080, conn), /pod shop\/ghost not found/);
});

t.test('an abort ends the connection', async (t) => {
  const provider = await running(t);
  const abort = new AbortController();
  const never = (async function* (): AsyncGenerator<Buffer> {
    yield Buffer.from('GET / HTTP/1.1\r\n');
    await new Promise(() => undefined);
  })();
  const serving = provider.portForward('shop', 'web', 8080, { input: never, write: async () => undefined }, abort.signal);
  abort.abort();
  await serving;
  t.pass('settled');
});
