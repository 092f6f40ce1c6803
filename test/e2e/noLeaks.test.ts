/**
 * Nothing secret leaves Tether (issue 14, proof): a whole agent as `tether run` starts it
 * (startAgentFromConfig, debug logs captured) runs a pod carrying a Secret value, an env value and
 * a Secret-backed volume, under a config whose host kubeconfig carries a token and a planted
 * credential; a caller tries the kubelet API with a made-up bearer token, and an authorized one
 * (the admin) reads every endpoint it serves. Then every endpoint's output (the page, /actors as
 * JSON and NDJSON, /metrics and the probes on both ports, the kubelet API's refusals, and what it
 * serves an authorized caller: /pods, /runningpods/, /stats/summary, /metrics/resource, /healthz,
 * the container's log) and every log line are searched for each planted value, in clear and in
 * base64: none is there. One exception, as the kubelet has it: the authorized /pods is the pod as
 * the API server holds it, so a literal the pod's own spec carries (an env value, an argument)
 * is there; what the spec only references (the Secret's value) never is.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { jsonLogger } from '../../src/adapters/logger.js';
import { startAgentFromConfig } from '../../src/app/agentFromConfig.js';
import type { TetherConfig } from '../../src/config/index.js';
import { freePorts } from '../../src/harness/ports.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

function kubeletGet(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('no Secret value, env value, bearer token or kubeconfig content in any endpoint or log line', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const ns = await testNamespace(t, host, 'leaks');
  const tag = randomBytes(4).toString('hex');
  const planted = {
    secret: `planted-SECRET-${tag}`,
    env: `planted-ENV-${tag}`,
    arg: `planted-ARG-${tag}`,
    bearer: `planted-BEARER-${tag}`,
    kubeconfigToken: `planted-KUBECONFIG-${tag}`,
  };
  const dir = mkdtempSync(join(tmpdir(), 'tether-leaks-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // The host kubeconfig: the real admin credentials, plus an unused user carrying a planted token.
  const kubeconfigPath = await host.writeKubeconfig(join(dir, 'host.kubeconfig'));
  const withPlanted = join(dir, 'host-planted.kubeconfig');
  const doc = parse(readFileSync(kubeconfigPath, 'utf8')) as { users: Array<{ name: string; user: Record<string, string> }> };
  doc.users.push({ name: 'unused', user: { token: planted.kubeconfigToken } });
  writeFileSync(withPlanted, stringify(doc));

  const nodeName = uniqueNamespace('vn-leaks');
  const [introPort, metricsPort, kubeletPort] = await freePorts(3);
  const config = {
    logLevel: 'debug',
    host: { kubeconfig: withPlanted },
    ports: { introspection: { port: introPort, address: '127.0.0.1' }, metrics: { port: metricsPort, address: '127.0.0.1' } },
    kubeletApi: { address: '127.0.0.1' },
    nodes: [{ name: nodeName, internalIP: '127.0.0.1', kubeletPort, provider: { type: 'simulated', startLatencyMs: 100, logIntervalMs: 200 } }],
  } as unknown as TetherConfig;
  const lines: string[] = [];
  const running = await startAgentFromConfig(config, { env: {}, logger: jsonLogger('debug', (line) => lines.push(line)) });
  t.teardown(async () => {
    await running.stop();
    await host.kubectl(['delete', 'node', nodeName, '--ignore-not-found', '--wait=false']).catch(() => undefined);
  });
  await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });

  await host.kubectl(['create', 'secret', 'generic', 'creds', '-n', ns, `--from-literal=password=${planted.secret}`]);
  await host.kubectl(['apply', '-f', '-'], { input: podManifest('carrier', ns, nodeName, {
    containers: [{
      name: 'app', image: 'registry.invalid/app:1',
      env: [{ name: 'PLAIN', value: planted.env }, { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }],
      envFrom: [{ secretRef: { name: 'creds' } }],
      args: ['--password', planted.arg],
    }],
    volumes: [{ name: 'creds', secret: { secretName: 'creds' } }],
  }) });
  await waitFor('carrier Running', async () => (await getJson<KubeObject>(host, ['pod', 'carrier', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });

  const intro = `http://127.0.0.1:${introPort}`;
  const metrics = `http://127.0.0.1:${metricsPort}`;
  const kubelet = `https://127.0.0.1:${kubeletPort}`;
  const outputs: Array<[string, string]> = [];
  const fetchText = async (url: string): Promise<void> => {
    outputs.push([url, await (await fetch(url)).text()]);
  };
  for (const path of ['/', '/actors', `/actors?format=ndjson&namespace=${ns}`, '/actors?depth=10', '/metrics', '/healthz?verbose', '/readyz?verbose']) await fetchText(`${intro}${path}`);
  for (const path of ['/metrics', '/healthz?verbose', '/readyz?verbose', '/actors']) await fetchText(`${metrics}${path}`);
  t.match(outputs.find(([u]) => u === `${intro}/actors`)?.[1], /carrier/, 'the pod is in the tree');
  const readPaths = ['/pods', '/runningpods/', '/stats/summary', '/metrics/resource', '/healthz', `/containerLogs/${ns}/carrier/app?tailLines=50`];
  for (const path of [...readPaths, `/exec/${ns}/carrier/app?command=${planted.env}`]) {
    const res = await kubeletGet(`${kubelet}${path}`, planted.bearer);
    t.equal(res.status, 401, `${path}: a made-up token is refused`);
    outputs.push([`${kubelet}${path}`, res.body]);
  }
  const adminToken = host.describe().adminToken;
  // What the kubelet API serves a caller allowed everything: searched like the rest, /pods apart.
  let authorizedPods = '';
  for (const path of readPaths) {
    // The log has lines once the pod has run a moment (one every 200 ms).
    const res = await waitFor(`${path}: served to an authorized caller, with a body to search`, async () => {
      const answer = await kubeletGet(`${kubelet}${path}`, adminToken);
      return answer.status === 200 && answer.body.length > 0 ? answer : undefined;
    }, { timeoutMs: 30_000 });
    if (path === '/pods') authorizedPods = res.body;
    else outputs.push([`${kubelet}${path} (authorized)`, res.body]);
  }
  const carrier = (JSON.parse(authorizedPods) as { items: KubeObject[] }).items.find((p) => p.metadata.name === 'carrier');
  t.ok(carrier, 'the authorized /pods lists the carrier');
  t.match(JSON.stringify(carrier), /"secretKeyRef":\{"name":"creds","key":"password"\}/, 'with its reference to the Secret, which is what is searched for the value');
  t.match(outputs.find(([u]) => u.startsWith(`${kubelet}/runningpods/`) && u.endsWith('(authorized)'))?.[1], /carrier/, 'the authorized /runningpods/ lists it too');

  const inSpec = new Set<string>([planted.env, planted.arg]);
  const forbidden = [...Object.entries(planted), ['admin token', adminToken] as const];
  for (const [what, value] of forbidden) {
    const base64 = Buffer.from(value).toString('base64');
    for (const [url, body] of outputs) {
      t.notOk(body.includes(value) || body.includes(base64), `${what} not in ${url}`);
    }
    if (!inSpec.has(value)) t.notOk(authorizedPods.includes(value) || authorizedPods.includes(base64), `${what} not in the authorized /pods`);
    t.notOk(lines.some((l) => l.includes(value) || l.includes(base64)), `${what} not in any of ${lines.length} log lines`);
  }
  for (const [url, body] of [...outputs, ['/pods (authorized)', authorizedPods] as const]) {
    t.notMatch(body, /BEGIN (EC |RSA )?(PRIVATE KEY|CERTIFICATE)|client-key-data|certificate-authority-data/, `no kubeconfig contents in ${url}`);
  }
  t.notOk(lines.some((l) => /BEGIN (EC |RSA )?PRIVATE KEY|client-key-data/.test(l)), 'no key material in the logs');
});
