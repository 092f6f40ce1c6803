/**
 * Least privilege, proved on the real host API server (issue 8): the chart's ClusterRole and Roles
 * are created, a ServiceAccount is bound only to them, and Tether runs in-process with a token of
 * that ServiceAccount (simulated provider, leader election on): the node registers and goes Ready,
 * its heartbeat lease and its node lock renew, a pod runs and is deleted. Then each rule in turn
 * is taken away and the API server's refusal shows up where that rule is used.
 *
 * Not exercised here: tokenreviews/subjectaccessreviews (the kubelet API; test/e2e/kubectlLogs.test.ts)
 * configmaps/secrets (the Kubernetes provider's reflection; test/e2e/offloading.test.ts) and
 * services/endpointslices (its Service reflection; test/e2e/serviceReflector.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { jsonLogger } from '../../src/adapters/logger.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { renderChart } from '../support/chart.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }
interface RbacObject { kind: string; metadata: { name: string; namespace?: string }; rules?: Rule[] }

/** A running agent under the ServiceAccount, with its log lines captured. */
interface Run {
  readonly agent: TetherAgent;
  readonly provider: SimulatedProvider;
  readonly nodeName: string;
  readonly lines: string[];
  logged(pattern: RegExp): boolean;
}

t.test('Tether under the least-privilege RBAC of the chart', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const ns = await testNamespace(t, host, 'rbac');
  const release = `tether-rbac-${randomBytes(3).toString('hex')}`;
  // One node name per case, known before rendering: the chart narrows the Node, Lease and lock
  // rules to the names in config.nodes.
  const labels = ['all', 'patch-pods-sta', 'create-nodes', 'patch-nodes-st', 'list-pods', 'leases-in-kube', 'the-node-lock-',
    'names-nodes', 'names-status', 'names-lease', 'list-leases'];
  const nodeNames = new Map(labels.map((l) => [l, uniqueNamespace(`vn-rbac-${l}`)]));
  const rendered = await renderChart(ns, ['--set-json', `config.nodes=${JSON.stringify([...nodeNames.values()].map((name) => ({ name, provider: { type: 'simulated' } })))}`,
    '--show-only', 'templates/serviceaccount.yaml', '--show-only', 'templates/clusterrole.yaml', '--show-only', 'templates/roles.yaml'], release);
  const objects = parseAllDocuments(rendered).map((d) => d.toJS() as RbacObject).filter(Boolean);
  const clusterRole = objects.find((o) => o.kind === 'ClusterRole')!;
  const nodeLeaseRole = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'kube-node-lease')!;
  const lockRole = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === ns)!;
  const apply = (items: readonly RbacObject[]): Promise<string> =>
    host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  await apply(objects);
  t.teardown(() => host.kubectl(['delete', 'clusterrole,clusterrolebinding', release, '--ignore-not-found']).catch(() => undefined));
  t.teardown(() => host.kubectl(['delete', 'role,rolebinding', `${release}-node-leases`, '-n', 'kube-node-lease', '--ignore-not-found']).catch(() => undefined));

  const token = (await host.kubectl(['create', 'token', release, '-n', ns, '--duration=1h'])).trim();
  const dir = mkdtempSync(join(tmpdir(), 'tether-rbac-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = await host.writeKubeconfig(join(dir, 'sa.kubeconfig'), { token });
  t.match(await host.kubectl(['auth', 'can-i', 'create', 'nodes', `--as=system:serviceaccount:${ns}:${release}`]), /yes/);
  await t.rejects(host.kubectl(['auth', 'can-i', 'create', 'pods', `--as=system:serviceaccount:${ns}:${release}`]), 'no pod creation');

  const nodesToDelete: string[] = [];
  t.teardown(() => host.kubectl(['delete', 'node', ...nodesToDelete, '--ignore-not-found', '--wait=false']).catch(() => undefined));
  const start = (label: string): Run => {
    const nodeName = nodeNames.get(label);
    if (nodeName === undefined) throw new Error(`no node name rendered into the chart for case ${label}`);
    nodesToDelete.push(nodeName);
    const lines: string[] = [];
    const provider = new SimulatedProvider({ startLatencyMs: 100, stopLatencyMs: 100 });
    const agent = TetherAgent.start({
      host: { kind: 'file', path: kubeconfig },
      logger: jsonLogger('debug', (line) => lines.push(line)),
      leaderElection: { namespace: ns, identity: `rbac-${label}`, leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 },
      nodes: [{
        name: nodeName,
        internalIP: '127.0.0.1',
        provider,
        ping: { intervalMs: 500, timeoutMs: 1_000, failureThreshold: 2, successThreshold: 1 },
        lease: { durationSeconds: 10, renewIntervalMs: 1_000 },
        statusIntervalMs: 1_000,
        pod: { retry: { minMs: 300, maxMs: 1_000, factor: 2, jitter: 0.2 } },
      }],
    });
    return { agent, provider, nodeName, lines, logged: (pattern) => lines.some((l) => pattern.test(l)) };
  };
  const stop = async (run: Run): Promise<void> => {
    void run.provider.stop();
    await run.agent.stop({ deadlineMs: 1_500 });
  };

  await t.test('with every rule: node Ready, heartbeat lease and node lock renewing, a pod runs and goes', async (t) => {
    const run = start('all');
    t.teardown(() => stop(run));
    await waitFor('the node is Ready', async () => condition(await getJson<KubeObject>(host, ['node', run.nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
    await renews(host, ['lease', run.nodeName, '-n', 'kube-node-lease'], 'the heartbeat lease');
    await renews(host, ['lease', `tether-node-${run.nodeName}`, '-n', ns], 'the node lock');
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('web', ns, run.nodeName) });
    await waitFor('the pod Running', async () => (await getJson<KubeObject>(host, ['pod', 'web', '-n', ns]))?.status?.phase === 'Running', { timeoutMs: 60_000 });
    await host.kubectl(['delete', 'pod', 'web', '-n', ns, '--wait=false']);
    await waitFor('the pod gone from the host', async () => (await getJson<KubeObject>(host, ['pod', 'web', '-n', ns])) === undefined, { timeoutMs: 60_000 });
    t.equal(await run.provider.getPod(ns, 'web'), undefined, 'and from the provider');
    t.notOk(run.logged(/forbidden/i), 'no request was refused');
  });

  /** Takes one rule away (restored at the end), runs a fresh agent, and waits for the refusal. */
  const without = (
    { name, label }: { readonly name: string; readonly label: string },
    change: { role: RbacObject; rules: (rules: readonly Rule[]) => Rule[] },
    refusal: RegExp,
    check: (run: Run) => Promise<void> = async () => undefined,
    act: (run: Run) => Promise<unknown> = async () => undefined,
  ): Promise<void> =>
    t.test(`without ${name}`, async (t) => {
      await apply([{ ...change.role, rules: change.rules(change.role.rules ?? []) }]);
      t.teardown(() => apply([change.role]));
      const run = start(label);
      t.teardown(() => stop(run));
      t.teardown(() => {
        if (!t.passing()) console.error(run.lines.filter((l) => /forbidden|failed/i.test(l)).slice(-10).join('\n'));
      });
      await act(run);
      await waitFor(`the API server refuses: ${refusal}`, async () => run.logged(refusal), { timeoutMs: 30_000 });
      await check(run);
      t.pass(`refused: ${run.lines.find((l) => refusal.test(l))?.slice(0, 300) ?? ''}`);
    }).then(() => undefined);
  const dropVerb = (resource: string, verb: string) => (rules: readonly Rule[]): Rule[] =>
    rules.map((r) => (r.resources.includes(resource) ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r)).filter((r) => r.verbs.length > 0);
  // A narrowed rule with another name in place of this node's: the name is what grants the right.
  const otherName = (resource: string) => (rules: readonly Rule[]): Rule[] =>
    rules.map((r) => (r.resources.includes(resource) && r.resourceNames ? { ...r, resourceNames: ['someone-else'] } : r));

  await without({ name: 'patch pods/status', label: 'patch-pods-sta' }, { role: clusterRole, rules: dropVerb('pods/status', 'patch') }, /cannot patch resource \\?"pods\/status\\?"/, async (run) => {
    await waitFor('the pod Running at the provider', async () => (await run.provider.getPod(ns, 'blocked'))?.status?.phase === 'Running', { timeoutMs: 30_000 });
    await waitFor('a refused status write for it', async () => run.logged(/pod status write failed.*blocked|blocked.*pod status write failed/), { timeoutMs: 30_000 });
    t.not((await getJson<KubeObject>(host, ['pod', 'blocked', '-n', ns]))?.status?.phase, 'Running', 'the host never shows it Running');
    await host.kubectl(['delete', 'pod', 'blocked', '-n', ns, '--grace-period=0', '--force']).catch(() => undefined);
  }, (run) => host.kubectl(['apply', '-f', '-'], { input: podManifest('blocked', ns, run.nodeName) }));
  await without({ name: 'create nodes', label: 'create-nodes' }, { role: clusterRole, rules: dropVerb('nodes', 'create') }, /cannot create resource \\?"nodes\\?"/, async (run) => {
    t.equal(await getJson(host, ['node', run.nodeName]), undefined, 'no Node');
  });
  await without({ name: 'patch nodes/status', label: 'patch-nodes-st' }, { role: clusterRole, rules: dropVerb('nodes/status', 'patch') }, /cannot patch resource \\?"nodes\/status\\?"/);
  await without({ name: 'list pods', label: 'list-pods' }, { role: clusterRole, rules: dropVerb('pods', 'list') }, /cannot list resource \\?"pods\\?"/);
  await without({ name: 'leases in kube-node-lease', label: 'leases-in-kube' }, { role: nodeLeaseRole, rules: () => [] }, /cannot (get|create) resource \\?"leases\\?".*kube-node-lease/, async (run) => {
    t.equal(await getJson(host, ['lease', run.nodeName, '-n', 'kube-node-lease']), undefined, 'no heartbeat lease');
  });
  await without({ name: 'the node-lock Role', label: 'the-node-lock-' }, { role: lockRole, rules: () => [] }, /cannot (get|create) resource \\?"leases\\?"/, async (run) => {
    t.equal(await getJson(host, ['node', run.nodeName]), undefined, 'without its lock the node is never started');
  });
  await without({ name: 'this node\'s name in the nodes rule', label: 'names-nodes' }, { role: clusterRole, rules: otherName('nodes') }, /cannot (get|list|watch|patch) resource \\?"nodes\\?"/);
  await without({ name: 'this node\'s name in the nodes/status rule', label: 'names-status' }, { role: clusterRole, rules: otherName('nodes/status') }, /cannot patch resource \\?"nodes\/status\\?"/);
  await without({ name: 'this node\'s name in the heartbeat-lease rule', label: 'names-lease' }, { role: nodeLeaseRole, rules: otherName('leases') }, /cannot (get|update) resource \\?"leases\\?".*kube-node-lease/);
  await without({ name: 'list on the leases of Tether\'s namespace', label: 'list-leases' }, { role: lockRole, rules: dropVerb('leases', 'list') }, /cannot list resource \\?"leases\\?"/, async (run) => {
    // Membership is not in a node's path: the replica still drives its node, it only sees no peers to give nodes to.
    await waitFor('the node is Ready all the same', async () => condition(await getJson<KubeObject>(host, ['node', run.nodeName]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
    t.same(run.agent.nodeHolders()?.replicas, [`rbac-list-leases`], 'no peer seen');
  });
});

/** Waits until the Lease's renewTime moves on. */
async function renews(host: ClusterAccess, args: readonly string[], what: string): Promise<void> {
  const renewTime = async (): Promise<string | undefined> => (await getJson<{ spec?: { renewTime?: string } }>(host, args))?.spec?.renewTime;
  const first = await waitFor(`${what} exists`, renewTime, { timeoutMs: 30_000 });
  await waitFor(`${what} renewed`, async () => (await renewTime()) !== first, { timeoutMs: 30_000 });
}
