import t from 'tap';
import { V1Pod, dumpYaml, loadYaml } from '@kubernetes/client-node';
import type { Pod, PodStatus } from '../../src/adapters/kubernetes/model.js';
import { deepCopy, deepCopyPod, withDeepCopies } from '../../src/providers/deepCopy.js';
import type {
  ContainerLogOptions,
  LogsProvider,
  PodNotification,
  PodProvider,
} from '../../src/providers/provider.js';
import { isLogsProvider } from '../../src/providers/provider.js';

const created = new Date('2026-11-30T03:00:00Z');

function samplePod(): Pod {
  return loadYaml<Pod>(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'ns', uid: 'u1', labels: { app: 'web' }, creationTimestamp: created.toISOString() },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running', startTime: created.toISOString(), containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: created.toISOString() } } }] },
    }),
  );
}

void t.test('deepCopyPod keeps Dates as Dates and class instances as their class', async (t) => {
  const pod = samplePod();
  t.ok(pod instanceof V1Pod, 'fixture is a real client-node object');
  const copy = deepCopyPod(pod);
  t.ok(copy instanceof V1Pod);
  t.ok(copy.metadata?.creationTimestamp instanceof Date);
  t.not(copy.metadata?.creationTimestamp, pod.metadata?.creationTimestamp);
  t.equal(copy.metadata?.creationTimestamp?.getTime(), created.getTime());
  t.ok(copy.status?.containerStatuses?.[0]?.state?.running?.startedAt instanceof Date);
  t.equal(dumpYaml(copy), dumpYaml(pod), 'serializes identically');
});

void t.test('a copy shares nothing mutable with the original', async (t) => {
  const pod = samplePod();
  const copy = deepCopyPod(pod);
  copy.metadata!.labels!['app'] = 'changed';
  copy.spec!.containers[0]!.image = 'evil';
  copy.status!.startTime!.setTime(0);
  copy.status!.containerStatuses!.push({ name: 'x', image: 'x', imageID: '', ready: false, restartCount: 0 });
  t.equal(pod.metadata?.labels?.['app'], 'web');
  t.equal(pod.spec?.containers[0]?.image, 'nginx');
  t.equal(pod.status?.startTime?.getTime(), created.getTime());
  t.equal(pod.status?.containerStatuses?.length, 1);
});

void t.test('deepCopy copies Maps and Sets and keeps primitives', async (t) => {
  const m = new Map([['a', { n: 1 }]]);
  const copy = deepCopy({ m, s: new Set([1]), n: null, u: undefined, x: 3 });
  copy.m.get('a')!.n = 2;
  t.equal(m.get('a')?.n, 1);
  t.not(copy.s, undefined);
  t.same([...copy.s], [1]);
  t.equal(copy.n, null);
  t.equal(copy.x, 3);
});

/** A provider that breaks the ownership rules on purpose: it mutates what it is given and hands out its own state. */
class CarelessProvider implements PodProvider, LogsProvider {
  readonly pods = new Map<string, Pod>();
  callback: ((n: PodNotification) => void) | undefined;
  async createPod(pod: Pod): Promise<void> {
    pod.metadata!.labels = { mutated: 'by-provider' };
    this.pods.set(pod.metadata!.name!, pod);
  }
  async updatePod(pod: Pod): Promise<void> {
    pod.spec!.containers[0]!.image = 'mutated';
    this.pods.set(pod.metadata!.name!, pod);
  }
  async deletePod(pod: Pod): Promise<void> {
    pod.metadata!.name = 'mutated';
  }
  async getPod(_ns: string, name: string): Promise<Pod | undefined> {
    return this.pods.get(name);
  }
  async getPodStatus(_ns: string, name: string): Promise<PodStatus | undefined> {
    return this.pods.get(name)?.status;
  }
  async listPods(): Promise<Pod[]> {
    return [...this.pods.values()];
  }
  notifyPods(callback: (n: PodNotification) => void): void {
    this.callback = callback;
  }
  notify(name: string): void {
    this.callback?.({ type: 'status', pod: this.pods.get(name)! });
  }
  async getContainerLogs(_ns: string, _pod: string, _container: string, _options: ContainerLogOptions): Promise<AsyncIterable<string>> {
    return (async function* () {
      yield 'logs from provider\n';
    })();
  }
}

void t.test('a provider that mutates its argument does not change the caller\'s pod', async (t) => {
  const inner = new CarelessProvider();
  const provider = withDeepCopies(inner);
  const pod = samplePod();
  await provider.createPod(pod);
  t.same(pod.metadata?.labels, { app: 'web' });
  await provider.updatePod(pod);
  t.equal(pod.spec?.containers[0]?.image, 'nginx');
  await provider.deletePod(pod);
  t.equal(pod.metadata?.name, 'web');
  t.equal(inner.pods.get('web')?.spec?.containers[0]?.image, 'mutated', 'the provider did get and change its own copy');
});

void t.test('mutating a returned pod or status does not change the provider\'s state', async (t) => {
  const inner = new CarelessProvider();
  const provider = withDeepCopies(inner);
  await provider.createPod(samplePod());
  const got = await provider.getPod('ns', 'web');
  got!.status!.phase = 'Failed';
  const status = await provider.getPodStatus('ns', 'web');
  status!.podIP = '1.2.3.4';
  const listed = await provider.listPods();
  listed[0]!.metadata!.name = 'renamed';
  const truth = inner.pods.get('web');
  t.equal(truth?.status?.phase, 'Running');
  t.equal(truth?.status?.podIP, undefined);
  t.equal(truth?.metadata?.name, 'web');
  t.equal(await provider.getPod('ns', 'missing'), undefined);
  t.equal(await provider.getPodStatus('ns', 'missing'), undefined);
});

void t.test('mutating a notified pod does not change the provider\'s state', async (t) => {
  const inner = new CarelessProvider();
  const provider = withDeepCopies(inner);
  const seen: PodNotification[] = [];
  provider.notifyPods((n) => seen.push(n));
  await provider.createPod(samplePod());
  inner.notify('web');
  t.equal(seen.length, 1);
  const n = seen[0]!;
  if (n.type !== 'status') throw new Error('expected a status notification');
  n.pod.status!.phase = 'Failed';
  t.equal(inner.pods.get('web')?.status?.phase, 'Running');
  t.equal(n.pod.metadata?.uid, inner.pods.get('web')?.metadata?.uid, 'the metadata crosses (routing)');
  t.equal(n.pod.spec, undefined, 'the spec does not: it is the host\'s, and a copy per notification is heap a storm pays for');
});

void t.test('other methods and capabilities pass through', async (t) => {
  const provider = withDeepCopies(new CarelessProvider());
  t.ok(isLogsProvider(provider));
  if (!isLogsProvider(provider)) return;
  const chunks: string[] = [];
  for await (const chunk of await provider.getContainerLogs('ns', 'web', 'c', {})) chunks.push(chunk);
  t.same(chunks, ['logs from provider\n']);
  t.equal(provider.getPod, provider.getPod, 'wrapped methods are stable');
});

void t.test('a provider wrapped twice (by its author and by Tether) copies once per crossing: the second wrap is the first', async (t) => {
  const once = withDeepCopies(new CarelessProvider());
  t.equal(withDeepCopies(once), once, 'wrapping a wrapped provider returns it unchanged');
  // Through another decorator (the metrics proxy passes symbols through), the wrap is still seen.
  const decorated = new Proxy(once, {});
  t.equal(withDeepCopies(decorated), decorated);
});
