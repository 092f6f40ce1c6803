import t from 'tap';
import { until } from '../../support/until.js';
import type { Test } from 'tap';
import { ManualClock } from '../../support/manualClock.js';
import { createKubeClients } from '../../../src/adapters/kubernetes/kubeClients.js';
import type { KubeLog } from '../../../src/adapters/kubernetes/log.js';
import type { EventSubject } from '../../../src/adapters/kubernetes/eventRecorder.js';
import {MockApiServer, status} from './mockApiServer.js';

const subject: EventSubject = { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'p', uid: 'u1' };
const eventsPath = '/apis/events.k8s.io/v1/namespaces/ns/events';

async function setup(t: Test, failCreate = false) {
  const server = await MockApiServer.start();
  server.route((r) => {
    if (r.method === 'POST' && r.url.pathname === eventsPath) {
      if (failCreate) return { status: 403, body: status(403, 'Forbidden', 'events is forbidden') };
      const body = JSON.parse(r.body) as Record<string, unknown>;
      // As the API server does: the Event is stored under the name it was created with.
      return { status: 201, body };
    }
    if (r.method === 'PATCH' && r.url.pathname.startsWith(`${eventsPath}/`)) return { body: {} };
    return undefined;
  });
  const clock = new ManualClock();
  const warnings: string[] = [];
  const log: KubeLog = { debug: () => undefined, warn: (m) => warnings.push(m) };
  // Deadlines run on the manual clock too: long ones, so advancing it through the series window does not time requests out.
  const clients = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1', clock, log, events: { seriesFlushMs: 10_000 }, deadlines: { other: 3_600_000 } });
  t.teardown(async () => {
    await clients.stop();
    await server.close();
  });
  return { server, clock, clients, warnings };
}

t.test('the first occurrence creates an events.k8s.io/v1 Event', async (t) => {
  const { server, clients } = await setup(t);
  clients.events.record(subject, 'Warning', 'ProviderCreateFailed', 'quota exceeded', 'Create');
  await until('the event', () => server.matching('POST', eventsPath).length === 1);
  const body = JSON.parse(server.matching('POST', eventsPath)[0]?.body ?? '{}') as Record<string, unknown>;
  t.match(body, {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: /^p\.[0-9a-f]+$/, namespace: 'ns' },
    reportingController: 'tether.dev/virtual-kubelet',
    reportingInstance: 'vk-1',
    type: 'Warning',
    reason: 'ProviderCreateFailed',
    action: 'Create',
    note: 'quota exceeded',
    regarding: { kind: 'Pod', apiVersion: 'v1', namespace: 'ns', name: 'p', uid: 'u1' },
  });
  t.match(String(body.eventTime), /\.\d{6}Z$/, 'eventTime is a MicroTime');
});

t.test('an Event recorded for the kubelet names it as its reporter, on the node, and the container it is about', async (t) => {
  const { server, clients } = await setup(t);
  clients.events.record({ ...subject, fieldPath: 'spec.containers{app}', reporter: { component: 'kubelet', host: 'vnode-7' } }, 'Normal', 'Started', 'Container started', 'Start');
  await until('the event', () => server.matching('POST', eventsPath).length === 1);
  const body = JSON.parse(server.matching('POST', eventsPath)[0]?.body ?? '{}') as Record<string, unknown>;
  t.match(body, {
    reason: 'Started',
    reportingController: 'kubelet',
    reportingInstance: 'vnode-7',
    regarding: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{app}' },
  });
});

t.test('repeats within the window become one series update, not a flood', async (t) => {
  const { server, clock, clients } = await setup(t);
  clients.events.record(subject, 'Warning', 'BackOff', 'restarting', 'Start');
  await until('the event', () => server.matching('POST', eventsPath).length === 1);
  for (let i = 0; i < 20; i++) clients.events.record(subject, 'Warning', 'BackOff', 'restarting', 'Start');
  clients.events.record(subject, 'Warning', 'BackOff', 'a different note', 'Start');
  clock.advance(10_000);
  await until('the series patch', () => server.requests.some((r) => r.method === 'PATCH'));
  const patches = server.requests.filter((r) => r.method === 'PATCH');
  t.equal(patches.length, 1);
  const created = JSON.parse(server.matching('POST', eventsPath)[0]?.body ?? '{}') as { metadata: { name: string } };
  t.equal(patches[0]?.url.pathname, `${eventsPath}/${created.metadata.name}`);
  t.equal(patches[0]?.headers['content-type'], 'application/merge-patch+json');
  t.match(JSON.parse(patches[0]?.body ?? '{}'), { series: { count: 21, lastObservedTime: /\.\d{6}Z$/ } });
  await until('the different event', () => server.matching('POST', eventsPath).length === 2);
  clock.advance(7 * 60_000);
  clients.events.record(subject, 'Warning', 'BackOff', 'restarting', 'Start');
  await until('a new Event after the window', () => server.matching('POST', eventsPath).length === 3);
});

t.test("a created Event's answer is not read: its series is patched under the name it was created with", async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  // An answer that is not an Event at all: a recorder that read it would lose the name.
  server.route((r) => (r.method === 'POST' ? { status: 201, body: { metadata: { name: 'not-this-one' }, unexpected: [1, 2] } } : r.method === 'PATCH' ? { body: {} } : undefined));
  const clock = new ManualClock();
  const clients = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1', clock, events: { seriesFlushMs: 10_000 }, deadlines: { other: 3_600_000 } });
  t.teardown(() => clients.stop());
  clients.events.record(subject, 'Warning', 'BackOff', 'restarting', 'Start');
  await until('the event', () => server.matching('POST', eventsPath).length === 1);
  clients.events.record(subject, 'Warning', 'BackOff', 'restarting', 'Start');
  clock.advance(10_000);
  await until('the series patch', () => server.requests.some((r) => r.method === 'PATCH'));
  const created = JSON.parse(server.matching('POST', eventsPath)[0]?.body ?? '{}') as { metadata: { name: string } };
  t.equal(server.requests.find((r) => r.method === 'PATCH')?.url.pathname, `${eventsPath}/${created.metadata.name}`);
});

t.test('failures are logged, never thrown', async (t) => {
  const { server, clients, warnings } = await setup(t, true);
  t.doesNotThrow(() => clients.events.record(subject, 'Normal', 'Started', 'ok', 'Start'));
  await until('the warning', () => warnings.length === 1);
  t.match(warnings[0], /could not record event/);
  t.equal(server.matching('POST', eventsPath).length, 1);
});

t.test('Events dropped past their queue bound are dropped at once, unsent, a debug line each, not a warning: the metric counts them', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  server.route((r) => (r.method === 'POST' ? { status: 201, body: { metadata: { name: 'e', namespace: 'ns' } } } : undefined));
  const clock = new ManualClock();
  const warnings: string[] = [];
  const debug: string[] = [];
  const log: KubeLog = { debug: (m) => debug.push(m), warn: (m) => warnings.push(m) };
  const clients = createKubeClients(server.kubeConfig(), { nodeName: 'vk-1', clock, log, eventRateLimit: { qps: 1, burst: 1 } });
  // The queued Events are dropped at the end (the clock never refills their budget), so stopping does not wait on them.
  t.teardown(() => (clients.fenceWrites('the test is over'), clients.stop()));
  for (let i = 0; i < 1_003; i++) clients.events.record({ ...subject, name: `p${i}`, uid: `u${i}` }, 'Normal', 'Pulled', 'remote', 'Reflect');
  // Synchronously: refused before a body or a request is built for them (issue 28).
  t.equal(debug.filter((m) => /event dropped: too many queued/.test(m)).length, 2, 'the two dropped Events logged');
  t.same(warnings, []);
  t.equal(clients.rateLimiterStats().event.dropped, 2);
  // The budget's one token went to the first; the clock never refills it, so nothing else is sent.
  await until('the first Event sent', () => server.matching('POST', eventsPath).length === 1);
  t.equal(server.matching('POST', eventsPath).length, 1, 'the dropped ones were never sent');
});
