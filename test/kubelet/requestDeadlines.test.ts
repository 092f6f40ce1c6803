/**
 * The kubelet API's own work has a deadline and follows its client: behind /pods, /runningpods/,
 * /stats/summary, /metrics/resource, a log's opening and a stream's pod check, a provider that
 * never answers costs a 503 at the deadline (its call aborted), and a client that leaves aborts
 * the call at once. Time is a manual clock: the deadline passes when the test says so.
 */
import { request } from 'node:https';
import t, { type Test } from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { startKubeletServer, type KubeletServer } from '../../src/kubelet/kubeletServer.js';
import type { ContainerLogOptions, StatsSummary } from '../../src/providers/provider.js';
import { FakeAccessReviewer } from '../support/fakeAccessReviewer.js';
import { waitFor } from '../harness/waitFor.js';
import { ManualClock } from '../support/manualClock.js';

/** A provider whose calls never settle; it keeps each call's signal. */
class SilentProvider {
  readonly signals: Array<{ method: string; signal: AbortSignal | undefined }> = [];
  private never<T>(method: string, signal: AbortSignal | undefined): Promise<T> {
    this.signals.push({ method, signal });
    return new Promise<T>(() => undefined);
  }

  listPods(signal?: AbortSignal): Promise<Pod[]> {
    return this.never('listPods', signal);
  }

  getPod(_namespace: string, _name: string, signal?: AbortSignal): Promise<Pod | undefined> {
    return this.never('getPod', signal);
  }

  getStatsSummary(signal?: AbortSignal): Promise<StatsSummary> {
    return this.never('getStatsSummary', signal);
  }

  getContainerLogs(_ns: string, _pod: string, _container: string, _options: ContainerLogOptions, signal?: AbortSignal): Promise<AsyncIterable<string>> {
    return this.never('getContainerLogs', signal);
  }

  runInContainer(): Promise<number> {
    return Promise.reject(new Error('not reached: the pod check never answers'));
  }
}

async function setup(t: Test): Promise<{ server: KubeletServer; provider: SilentProvider; clock: ManualClock }> {
  const provider = new SilentProvider();
  const clock = new ManualClock();
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, clock });
  t.teardown(() => server.stop());
  return { server, provider, clock };
}

function get(server: KubeletServer, path: string): { answer: Promise<{ status: number; body: string }>; cut: () => void } {
  let cut = (): void => undefined;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`https://127.0.0.1:${server.port}${path}`, { rejectUnauthorized: false, headers: { authorization: 'Bearer good' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
    cut = () => req.destroy();
  });
  return { answer, cut: () => cut() };
}

const ENDPOINTS: Array<[string, string, RegExp]> = [
  ['/pods', 'listPods', /did not answer \/pods within 10 s/],
  ['/runningpods/', 'listPods', /did not answer \/runningpods\/ within 10 s/],
  ['/stats/summary', 'getStatsSummary', /did not answer \/stats\/summary within 10 s/],
  ['/metrics/resource', 'getStatsSummary', /did not answer \/metrics\/resource within 10 s/],
  ['/containerLogs/shop/web/app?follow=true', 'getContainerLogs', /did not answer the log of shop\/web\/app within 10 s/],
];

t.test('a provider that never answers: 503 at the deadline, naming what it did not answer, and its call aborted', async (t) => {
  const { server, provider, clock } = await setup(t);
  for (const [path, method, message] of ENDPOINTS) {
    const before = provider.signals.length;
    const { answer } = get(server, path);
    await waitFor(`${method} called`, () => provider.signals.length === before + 1, { timeoutMs: 5_000, intervalMs: 5 });
    clock.advance(9_999);
    t.equal(provider.signals.at(-1)?.signal?.aborted, false, `${path}: not before the deadline`);
    clock.advance(1);
    const res = await answer;
    t.equal(res.status, 503, path);
    t.match(res.body, message);
    t.equal(provider.signals.at(-1)?.method, method);
    t.equal(provider.signals.at(-1)?.signal?.aborted, true, `${path}: the provider's call is aborted`);
  }
});

t.test('a client that leaves aborts the provider call behind its request at once', async (t) => {
  const { server, provider } = await setup(t);
  for (const [path, method] of ENDPOINTS) {
    const before = provider.signals.length;
    const { answer, cut } = get(server, path);
    await waitFor(`${method} called`, () => provider.signals.length === before + 1, { timeoutMs: 5_000, intervalMs: 5 });
    cut();
    await answer.catch(() => undefined);
    await waitFor(`${path}: aborted when the client left`, () => provider.signals.at(-1)?.signal?.aborted === true, { timeoutMs: 5_000, intervalMs: 5 });
  }
  t.pass('every call aborted');
});

t.test("a stream's pod check has the same deadline: 503 before any upgrade", async (t) => {
  const { server, provider, clock } = await setup(t);
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(`wss://127.0.0.1:${server.port}/exec/shop/web/app?command=sh&output=1`, ['v5.channel.k8s.io'], { rejectUnauthorized: false, headers: { authorization: 'Bearer good' } });
  socket.on('error', () => undefined);
  const refused = new Promise<{ status: number; body: string }>((resolve) => socket.once('unexpected-response', (_req, res) => {
    let body = '';
    res.on('data', (c: Buffer) => (body += c.toString()));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
  }));
  await waitFor('the pod check', () => provider.signals.some((s) => s.method === 'getPod'), { timeoutMs: 5_000, intervalMs: 5 });
  clock.advance(10_000);
  t.match(await refused, { status: 503, body: /did not answer for pod shop\/web within 10 s/ });
  t.equal(provider.signals.find((s) => s.method === 'getPod')?.signal?.aborted, true);
  await waitFor('no slot held', () => server.activeStreams() === 0, { timeoutMs: 5_000, intervalMs: 5 });
});
