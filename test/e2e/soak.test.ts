/**
 * Long churn (issue 13's fault matrix), behind a flag because it runs for minutes:
 *   TETHER_SOAK=1 [TETHER_SOAK_MINUTES=10] [TETHER_SOAK_BATCH=50] npx tap test/e2e/soak.test.ts
 * An in-process Tether with the simulated provider on the shared host cluster; pods are created
 * and deleted in batches for the whole period. Sampled after every cycle: RSS, heap, pod actors,
 * registry entries and live timers. Once the last pods are gone, nothing of them may be left:
 * no pod actor, no registry entry beyond the node's own, no more timers than before the first pod.
 * The figures are printed as TAP comments; docs/reliability.md records a run.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface List<T> {
  items: T[];
}

const enabled = process.env['TETHER_SOAK'] === '1';
const minutes = Number(process.env['TETHER_SOAK_MINUTES'] ?? 10);
const batch = Number(process.env['TETHER_SOAK_BATCH'] ?? 50);

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

t.test(`long churn: ${minutes} min of ${batch}-pod batches created and deleted leave nothing behind`, { skip: enabled ? false : 'set TETHER_SOAK=1 to run the long churn' }, async (t) => {
  const { host } = await useSharedClusters(t);
  const nodeName = uniqueNamespace('soak');
  const ns = await testNamespace(t, host, 'soak');
  const provider = new SimulatedProvider({ startLatencyMs: 50, stopLatencyMs: 50 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', provider, statusIntervalMs: 10_000 }],
  });
  t.teardown(async () => {
    await agent.stop({ deleteNodes: true });
    void provider.stop();
  });
  await waitFor('the virtual node Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  const podActors = (): number => agent.system.snapshot().filter((a) => a.kind === 'pod').length;
  const hostPods = async (): Promise<KubeObject[]> => (await getJson<List<KubeObject>>(host, ['pods', '-n', ns]))?.items ?? [];
  global.gc?.();
  const baseline = { registry: agent.system.registry.size, timers: timers(), rss: process.memoryUsage().rss };
  t.comment(`baseline: registry ${baseline.registry}, timers ${baseline.timers}, rss ${mb(baseline.rss)} MiB`);

  const started = Date.now();
  let cycle = 0;
  t.comment('cycle  minutes  rss MiB  heap MiB  pod actors  registry  timers');
  while (Date.now() - started < minutes * 60_000) {
    cycle++;
    const manifests = Array.from({ length: batch }, (_, i) => JSON.parse(podManifest(`c${cycle}-p${i}`, ns, nodeName, { terminationGracePeriodSeconds: 1 })) as unknown);
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }), timeoutMs: 120_000 });
    await waitFor(`cycle ${cycle}: ${batch} pods Running`, async () => (await hostPods()).filter((p) => p.status?.phase === 'Running').length === batch, { timeoutMs: 180_000, intervalMs: 1_000 });
    const busy = { actors: podActors(), registry: agent.system.registry.size };
    await host.kubectl(['delete', 'pods', '--all', '-n', ns, '--wait=false']);
    await waitFor(`cycle ${cycle}: every pod gone`, async () => (await hostPods()).length === 0, { timeoutMs: 180_000, intervalMs: 1_000 });
    const memory = process.memoryUsage();
    t.comment(`${String(cycle).padStart(5)}  ${((Date.now() - started) / 60_000).toFixed(1).padStart(7)}  ${String(mb(memory.rss)).padStart(7)}  ${String(mb(memory.heapUsed)).padStart(8)}  ${String(busy.actors).padStart(10)}  ${String(busy.registry).padStart(8)}  ${String(timers()).padStart(6)}`);
  }

  const settled = await waitFor('no pod actor left', () => (podActors() === 0 ? true : undefined), { timeoutMs: 60_000 });
  t.ok(settled);
  global.gc?.();
  const end = { registry: agent.system.registry.size, timers: timers(), rss: process.memoryUsage().rss };
  t.comment(`after ${cycle} cycles (${cycle * batch} pods): registry ${end.registry}, timers ${end.timers}, rss ${mb(end.rss)} MiB`);
  t.equal(end.registry, baseline.registry, 'no registry entry outlives its pod');
  t.ok(end.timers <= baseline.timers + 2, `no timers left by pods (${end.timers} now, ${baseline.timers} before)`);
});
