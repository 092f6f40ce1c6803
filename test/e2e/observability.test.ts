/**
 * The operator's view of a running Tether against a real control plane (issue 7): /metrics
 * scraped while pods are created, fail and are deleted; nothing secret ever reaches /actors,
 * /metrics or the page; and the live page in a real browser (Debian's chromium, headless, driven
 * by playwright-core), with a screenshot of a few dozen pods, one crash-looping, in .tether/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import { startIntrospectionServer } from '../../src/observability/introspectionServer.js';
import { TetherMetrics } from '../../src/observability/metrics.js';
import { withProviderMetrics } from '../../src/observability/providerMetrics.js';
import type { ActorSnapshot } from '../../src/runtime/actorRegistry.js';
import { REPO_ROOT, reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function metric(body: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const [series, value] = line.split(/\s+/, 2) as [string, string];
    if (wanted.every((w) => series.includes(w))) return Number(value);
  }
  return 0;
}

t.test('operating a running Tether', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('vn-obs');
  const metrics = new TetherMetrics();
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100 });
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    onStatusLatency: (node, seconds) => metrics.recordStatusLatency(node, seconds),
    nodes: [{
      name: nodeName, internalIP: '127.0.0.1', provider: withProviderMetrics(provider, metrics, nodeName),
      ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 1 },
      pod: { retry: { minMs: 200, maxMs: 1_000, factor: 2, jitter: 0.2 } },
    }],
  });
  metrics.observe(agent);
  const server = await startIntrospectionServer({ agent, metrics, port: 0 });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
    await agent.stop({ deleteNodes: true });
  });
  const scrape = async (): Promise<string> => (await fetch(`${server.url}/metrics`)).text();
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  await waitFor('/readyz says ready', async () => (await fetch(`${server.url}/readyz`)).status === 200, { timeoutMs: 30_000 });
  t.equal((await fetch(`${server.url}/healthz`)).status, 200);
  const ns = await testNamespace(t, host, 'obs');

  await t.test('/metrics moves as pods are created, fail and are deleted', async (t) => {
    const manifests = Array.from({ length: 5 }, (_, i) => JSON.parse(podManifest(`m-${i}`, ns, nodeName)) as object);
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }) });
    let body = await waitFor('5 pods Running in /metrics', async () => {
      const b = await scrape();
      return metric(b, 'tether_pods', { node: nodeName, phase: 'Running' }) === 5 ? b : undefined;
    }, { timeoutMs: 60_000, intervalMs: 1_200 });
    t.ok(metric(body, 'tether_provider_calls_total', { node: nodeName, method: 'createPod', outcome: 'ok' }) >= 5, 'createPod calls counted');
    t.ok(metric(body, 'tether_provider_call_duration_seconds_count', { node: nodeName, method: 'createPod', outcome: 'ok' }) >= 5, 'and timed');
    t.equal(metric(body, 'tether_actors', { kind: 'pod', status: 'running' }), 5);
    t.equal(metric(body, 'tether_node_ready', { node: nodeName }), 1);
    t.ok(metric(body, 'tether_api_rate_limiter_started_total', { node: nodeName, priority: 'lease' }) >= 1, 'lease requests went through the limiter');
    t.match(body, new RegExp(`tether_lease_renew_lag_seconds\\{node="${nodeName}"\\}`));
    t.ok(metric(body, 'tether_api_requests_total', { node: nodeName, verb: 'patch', code: '2xx' }) >= 5, 'host API requests counted by verb and code');
    t.match(body, /tether_supervision_events_total\{outcome="escalation"\} 0/);
    t.ok(metric(body, 'tether_pod_status_write_latency_seconds_count', { node: nodeName }) >= 5, 'status write latency observed');
    t.match(body, /tether_process_cpu_seconds_total/);

    provider.losePod(ns, 'm-0');
    body = await waitFor('a Failed pod in /metrics', async () => {
      const b = await scrape();
      return metric(b, 'tether_pods', { node: nodeName, phase: 'Failed' }) === 1 ? b : undefined;
    }, { timeoutMs: 30_000, intervalMs: 1_200 });
    t.equal(metric(body, 'tether_pods', { node: nodeName, phase: 'Running' }), 4);

    await host.kubectl(['delete', 'pods', '-n', ns, 'm-1', 'm-2', 'm-3', 'm-4', '--wait=false']);
    body = await waitFor('deleted pods leave /metrics', async () => {
      const b = await scrape();
      return metric(b, 'tether_pods', { node: nodeName, phase: 'Running' }) === 0 ? b : undefined;
    }, { timeoutMs: 60_000, intervalMs: 1_200 });
    t.ok(metric(body, 'tether_provider_calls_total', { node: nodeName, method: 'deletePod', outcome: 'ok' }) >= 4, 'deletePod calls counted');
    await host.kubectl(['delete', 'pod', '-n', ns, 'm-0', '--wait=false']);
  });

  await t.test('nothing secret reaches /actors, /metrics or the page', async (t) => {
    const secretValue = 'pa55-S3CRET-value-9f1c';
    const envValue = 'env-VALUE-do-not-show-77ab';
    await host.kubectl(['create', 'secret', 'generic', 'creds', '-n', ns, `--from-literal=password=${secretValue}`]);
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('with-secrets', ns, nodeName, {
      containers: [{
        name: 'app', image: 'nginx:1.27',
        env: [{ name: 'PLAIN', value: envValue }, { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }],
        envFrom: [{ secretRef: { name: 'creds' } }],
      }],
      volumes: [{ name: 'creds', secret: { secretName: 'creds' } }],
    }) });
    await waitFor('with-secrets Running', async () => (await getJson<KubeObject>(host, ['pod', 'with-secrets', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    const actors = await (await fetch(`${server.url}/actors`)).text();
    t.match(actors, /with-secrets/, 'the pod is in the tree');
    const served = [actors, await (await fetch(`${server.url}/actors?format=ndjson&namespace=${ns}`)).text(), await scrape(), await (await fetch(`${server.url}/`)).text()];
    const adminToken = host.describe().adminToken;
    for (const body of served) {
      t.notOk(body.includes(secretValue), 'no Secret data');
      t.notOk(body.includes(Buffer.from(secretValue).toString('base64')), 'not even base64');
      t.notOk(body.includes(envValue), 'no env values');
      t.notOk(body.includes(adminToken), 'no token');
      t.notMatch(body, /BEGIN (EC |RSA )?(PRIVATE KEY|CERTIFICATE)|client-key-data|certificate-authority-data/, 'no kubeconfig contents');
    }
  });

  const chromiumMissing = existsSync(CHROMIUM) ? false : `Debian's chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)`;
  await t.test('the live page in a real browser: the node, its pods, the crash-looping pod red with its error and crashes', { skip: chromiumMissing }, async (t) => {
    const manifests = Array.from({ length: 30 }, (_, i) => JSON.parse(podManifest(`web-${String(i).padStart(2, '0')}`, ns, nodeName)) as object);
    manifests.push(JSON.parse(podManifest('crashy', ns, nodeName)) as object);
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }) });
    await waitFor('31 pods Running', async () => {
      const pods = await getJson<{ items: KubeObject[] }>(host, ['pods', '-n', ns]);
      return (pods?.items ?? []).filter((p) => p.metadata.name !== 'with-secrets' && p.status?.phase === 'Running').length >= 31;
    }, { timeoutMs: 90_000, intervalMs: 1_000 });
    // The pod actor of `crashy` crashes on every provider call, and each annotation makes it
    // call the provider (updatePod): it restarts again and again.
    const crash = setInterval(() => provider.faults.crashOnce(`${ns}/crashy`), 50);
    t.teardown(() => clearInterval(crash));
    let touches = 0;
    const crashy = await waitFor('crashy\'s actor has restarted with an error', async () => {
      await host.kubectl(['annotate', 'pod', 'crashy', '-n', ns, `example.com/touch=${++touches}`, '--overwrite']);
      const res = await fetch(`${server.url}/actors?format=ndjson&pod=${ns}/crashy`);
      const [actor] = (await res.text()).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ActorSnapshot);
      return actor && actor.restarts >= 2 && actor.lastError ? actor : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    t.match(crashy.lastError?.message, /simulated crash/);

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    t.teardown(() => browser.close());
    // The probes below are strings playwright evaluates, which the page's CSP (no eval) forbids.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    await page.goto(server.url);
    const nodeGroup = page.locator(`.g.node[data-node="${nodeName}"]`);
    await nodeGroup.waitFor({ timeout: 30_000 });
    const podGroup = page.locator(`.g.role[data-node="${nodeName}"][data-role="pod"]`);
    await page.waitForFunction(`Number(document.querySelector('.g.role[data-node="${nodeName}"][data-role="pod"] .n')?.textContent) >= 32`, undefined, { timeout: 30_000 });
    t.match(await nodeGroup.innerText(), new RegExp(nodeName), 'the node is shown by name');
    const roles = await page.evaluate(`[...document.querySelectorAll('.g.role[data-node="${nodeName}"]')].map((e) => e.dataset.role)`) as string[];
    const style = (selector: string, property: 'color' | 'backgroundColor'): Promise<unknown> =>
      page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`);
    for (const own of ['lease', 'node', 'pod-controller']) t.ok(roles.includes(own), `with its own ${own} actor`);
    t.ok(roles.includes('pod'), 'and its pods');
    await page.waitForFunction('document.querySelectorAll(".row").length >= 20', undefined, { timeout: 30_000 });
    t.match(await page.locator('#listTitle').innerText(), new RegExp(`${nodeName} › pod`), 'the node\'s pods are listed');
    const running = page.locator(`.g.state[data-node="${nodeName}"][data-role="pod"][data-state="running"]`);
    t.ok(Number(await running.locator('.n').innerText()) >= 30, 'the healthy pods are counted as running');
    t.equal(await style(`.g.state[data-node="${nodeName}"][data-role="pod"][data-state="running"] .dot`, 'backgroundColor'), 'rgb(31, 157, 85)', 'and green');
    t.ok((await page.locator('.row[data-state="running"] .dot.t-ok').count()) >= 20, 'their rows are green');
    const restarts = podGroup.locator('.r');
    t.match(await restarts.innerText(), /↻\d+/, 'the pods\' restarts are counted on their group');
    t.equal(await style(`.g.role[data-node="${nodeName}"][data-role="pod"] .r`, 'color'), 'rgb(220, 38, 38)', 'in red');

    // Needs attention: the restarted filter leaves the crash-looping pod, red with its error.
    await page.check('#restarted');
    const crashyRow = page.locator('.row', { has: page.locator('.name', { hasText: new RegExp(`^${ns}/crashy$`) }) });
    await page.waitForFunction(`(() => { const rows = [...document.querySelectorAll('.row')]; return rows.length > 0 && rows.every((r) => r.querySelector('.meta').textContent.includes('↻')); })()`, undefined, { timeout: 30_000 });
    await crashyRow.waitFor({ timeout: 30_000 });
    t.match(await crashyRow.locator('.meta').innerText(), /↻\d+/, 'the crash-looping pod is listed as restarted');
    t.match(await crashyRow.locator('.err').innerText(), /simulated crash/, 'with its last error');
    t.equal(await style('.row .err', 'color'), 'rgb(220, 38, 38)', 'in red as a person sees it');
    t.equal(await page.locator('.row').count(), 1, 'and only it');
    await crashyRow.click();
    const detail = page.locator('#detail');
    await page.waitForSelector('#detail #timeline li[data-type="crashed"]', { timeout: 30_000 });
    t.match(await detail.locator('h2').innerText(), new RegExp(`${ns}/crashy`), 'a click shows the actor in depth');
    t.match(await detail.locator('dl').innerText(), /restarts\s+\d+[\s\S]*last error\s+.*simulated crash/, 'its restarts and last error');
    t.match(await detail.locator('#timeline li[data-type="crashed"]').first().innerText(), /crashed: .*simulated crash/, 'its crashes in the supervision timeline');
    await page.uncheck('#restarted');
    await page.waitForFunction('document.querySelectorAll(".row").length >= 20', undefined, { timeout: 30_000 });
    // Every run leaves its screenshot in .tether/ (ignored by git); the docs' screenshots come
    // from `npm run bench:page`, at 10,000 pods.
    const path = join(REPO_ROOT, '.tether', 'actor-tree.png');
    await page.screenshot({ path, fullPage: true });
    t.ok(existsSync(path), `screenshot saved to ${path}`);
  });
});
