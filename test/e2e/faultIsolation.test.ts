/**
 * Faults that must stay small (issue 13's fault matrix), on the shared host cluster with an
 * in-process Tether: a provider that hangs (no answer at all, not an error) on one pod's create
 * and then on every ping, and a poison pod whose actor crashes on every message. Each is bounded
 * (a deadline turns the silence into a visible, retried failure; the node goes NotReady and marks
 * its pods), isolated (the other pods keep running) and the process stays up.
 */
import t from 'tap';
import { silentLogger } from '../../src/adapters/logger.js';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { actorFailedAnnotation, createErrorAnnotation } from '../../src/actors/pod/annotations.js';
import { TetherAgent } from '../../src/app/tetherAgent.js';
import type { Provider } from '../../src/providers/provider.js';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { podRestartPolicy } from '../../src/supervisors/restartPolicy.js';
import { reportLogsOnFailure, testNamespace, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';

interface List<T> {
  items: T[];
}

/** Never settles, whatever the caller's signal says: the worst a provider can do. */
const silence = (): Promise<never> => new Promise<never>(() => undefined);

/** The simulated provider, except that chosen calls never answer and the poison pod's calls throw. */
function misbehaving(inner: SimulatedProvider): { provider: Provider; hangPings: (on: boolean) => void } {
  let pingsHang = false;
  const isHung = (pod: Pod): boolean => pod.metadata?.name?.startsWith('hang') ?? false;
  const poisoned = (name: string | undefined): void => {
    // Unclassified: a bug in the provider, which crashes the pod's actor every time.
    if (name === 'poison') throw new Error('simulated provider bug: poison pod');
  };
  const provider: Provider = {
    name: inner.name,
    ping: (signal) => (pingsHang ? silence() : inner.ping(signal)),
    capacity: () => inner.capacity(),
    nodeInfo: () => inner.nodeInfo(),
    notifyPods: (callback) => inner.notifyPods(callback),
    createPod: async (pod, signal) => {
      poisoned(pod.metadata?.name);
      return isHung(pod) ? silence() : inner.createPod(pod, signal);
    },
    updatePod: async (pod, signal) => (poisoned(pod.metadata?.name), inner.updatePod(pod, signal)),
    deletePod: async (pod, signal) => (poisoned(pod.metadata?.name), inner.deletePod(pod, signal)),
    getPod: async (namespace, name, signal) => (poisoned(name), inner.getPod(namespace, name, signal)),
    getPodStatus: async (namespace, name, signal) => (poisoned(name), inner.getPodStatus(namespace, name, signal)),
    listPods: (signal) => inner.listPods(signal),
  };
  return { provider, hangPings: (on) => (pingsHang = on) };
}

t.test('a hanging provider and a poison pod: bounded, isolated, process up', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('faults');
  const ns = await testNamespace(t, host, 'faults');
  const inner = new SimulatedProvider({ startLatencyMs: 100, stopLatencyMs: 100 });
  const { provider, hangPings } = misbehaving(inner);
  const agent = TetherAgent.start({
    host: { kind: 'file', path: host.kubeconfigPath },
    logger: silentLogger,
    nodes: [{
      name: nodeName,
      internalIP: '127.0.0.1',
      provider,
      ping: { intervalMs: 500, timeoutMs: 400, failureThreshold: 2, successThreshold: 1 },
      statusIntervalMs: 2_000,
      pod: { retry: { minMs: 300, maxMs: 2_000, factor: 2, jitter: 0.2 }, createDeadlineMs: 1_500, graceMarginMs: 1_000 },
      // The real policy's budget, with short restarts so the poison pod is given up quickly.
      podPolicy: { ...podRestartPolicy, backoff: { ...podRestartPolicy.backoff, minMs: 50, maxMs: 200 } },
    }],
  });
  t.teardown(async () => {
    hangPings(false);
    await agent.stop({ deleteNodes: true });
    void inner.stop();
  });
  const pod = (name: string): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['pod', name, '-n', ns]);
  const nodeReady = async (): Promise<string | undefined> => condition(await getJson<KubeObject>(host, ['node', nodeName]), 'Ready')?.status;
  await waitFor('the virtual node Ready', async () => (await nodeReady()) === 'True', { timeoutMs: 60_000 });

  const manifests = ['ok-1', 'ok-2', 'hang', 'poison'].map((name) => JSON.parse(podManifest(name, ns, nodeName, { terminationGracePeriodSeconds: 1 })) as unknown);
  await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }) });

  await t.test('a create that never answers becomes a visible, retried failure; its pod can still be deleted', async (t) => {
    const hung = await waitFor('the create deadline on the hung pod', async () => {
      const p = await pod('hang');
      return p?.metadata.annotations?.[createErrorAnnotation] ? p : undefined;
    }, { timeoutMs: 60_000 });
    t.match(hung.metadata.annotations?.[createErrorAnnotation], /did not answer the create/);
    t.equal(hung.status?.phase, 'Pending', 'the status is not faked');
    await host.kubectl(['delete', 'pod', 'hang', '-n', ns, '--wait=false']);
    await waitFor('the hung pod deleted: the provider says it has no such pod', async () => (await pod('hang')) === undefined, { timeoutMs: 60_000 });
  });

  await t.test('a poison pod is given up alone; its siblings run; the process is up', async (t) => {
    const given = await waitFor('the poison pod annotated as given up', async () => {
      const p = await pod('poison');
      return p?.metadata.annotations?.[actorFailedAnnotation] ? p : undefined;
    }, { timeoutMs: 120_000 });
    t.match(given.metadata.annotations?.[actorFailedAnnotation], /poison pod/);
    await waitFor('the other pods Running and Ready', async () => {
      const [a, b] = await Promise.all([pod('ok-1'), pod('ok-2')]);
      return [a, b].every((p) => p?.status?.phase === 'Running' && condition(p, 'Ready')?.status === 'True');
    }, { timeoutMs: 60_000 });
    t.equal(await nodeReady(), 'True', 'the node stays Ready');
    const actors = agent.system.snapshot();
    t.ok(actors.some((a) => a.kind === 'virtual-node' && a.status === 'running'), 'the node subtree is up');
  });

  await t.test('pings that never answer: NotReady, pods marked; answered again: Ready, pods restored', async (t) => {
    hangPings(true);
    await waitFor('the virtual node NotReady', async () => (await nodeReady()) === 'False', { timeoutMs: 60_000 });
    await waitFor('the running pods Ready=False (VirtualNodeNotReady)', async () => {
      const [a, b] = await Promise.all([pod('ok-1'), pod('ok-2')]);
      return [a, b].every((p) => condition(p, 'Ready')?.status === 'False' && condition(p, 'Ready')?.reason === 'VirtualNodeNotReady');
    }, { timeoutMs: 60_000 });
    hangPings(false);
    await waitFor('Ready again, the pods too', async () => {
      const [a, b] = await Promise.all([pod('ok-1'), pod('ok-2')]);
      return (await nodeReady()) === 'True' && [a, b].every((p) => condition(p, 'Ready')?.status === 'True');
    }, { timeoutMs: 60_000 });
    const pods = (await getJson<List<KubeObject>>(host, ['pods', '-n', ns]))?.items ?? [];
    t.same(pods.map((p) => p.metadata.name).sort(), ['ok-1', 'ok-2', 'poison']);
  });
});
