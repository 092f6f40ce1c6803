/**
 * The simulated node runs its containers' commands on a real control plane (issue 25): a Job
 * whose container runs `sh -c "echo done"` completes and `kubectl logs` shows `done`; an
 * OnFailure pod whose command exits 1 loops in CrashLoopBackOff with a growing restartCount; a
 * Job that fails twice then succeeds (a counter in an emptyDir file) completes after 2 restarts;
 * a failing readiness probe keeps the pod out of its Service's ready endpoints and a passing one
 * puts it in; a liveness failure bumps restartCount, with the kubelet's Unhealthy and Killing
 * Events; a preStop exec hook runs before the container ends; what the simulated shell cannot run
 * (a here-document) fails to start as on a real runtime (StartError, RunContainerError) while a
 * command not found stays an Error exit (127).
 */
import t from 'tap';
import { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { createConfigObjectReader } from '../../src/adapters/kubernetes/configObjects.js';
import { reportLogsOnFailure, testNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, podManifest, type KubeObject } from '../support/kubectlJson.js';
import { startKubeletNode } from '../support/kubeletNode.js';
import { PodEventForwarder } from '../../src/app/podEventForwarder.js';

interface ContainerStatusJson {
  restartCount?: number;
  ready?: boolean;
  state?: { waiting?: { reason?: string; message?: string }; running?: unknown; terminated?: { exitCode?: number; reason?: string; message?: string } };
  lastState?: { terminated?: { exitCode?: number; reason?: string; message?: string } };
}

type PodJson = KubeObject & { status?: { containerStatuses?: ContainerStatusJson[] } };

interface SliceJson {
  items?: Array<{ endpoints?: Array<{ conditions?: { ready?: boolean }; targetRef?: { name?: string } }> }>;
}

interface EventJson {
  items?: Array<{ reason?: string; note?: string; message?: string; type?: string; regarding?: { name?: string; fieldPath?: string }; reportingController?: string }>;
}

const support = await networkNamespaceSupport();

t.test('the simulated node runs the containers\' commands', { skip: support.available ? false : support.reason }, async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  // Commands see the pods' ConfigMaps (kube-root-ca.crt in every service-account volume), as on a node.
  // The provider's pod Events (its probes' Unhealthy and Killing) go to the node's host recorder, as under `tether run`.
  const podEvents = new PodEventForwarder();
  const provider = new SimulatedProvider({ startLatencyMs: 200, stopLatencyMs: 100, configSource: createConfigObjectReader(host.kubeConfig()), podEvents: podEvents.record });
  // With the kubelet API, so that kubectl logs reaches the node.
  const { nodeName } = await startKubeletNode(t, host, { prefix: 'vn-run', provider, podEvents });
  const ns = await testNamespace(t, host, 'simrun');
  const containerOf = async (name: string): Promise<ContainerStatusJson | undefined> =>
    (await getJson<PodJson>(host, ['pod', '-n', ns, name]))?.status?.containerStatuses?.[0];
  /** A pod manifest with more metadata (labels, finalizers) beside podManifest's. */
  const podWith = (name: string, metadata: Record<string, unknown>, spec: Record<string, unknown>): string => {
    const manifest = JSON.parse(podManifest(name, ns, nodeName, spec)) as { metadata: Record<string, unknown> };
    return JSON.stringify({ ...manifest, metadata: { ...manifest.metadata, ...metadata } });
  };
  const emptyDir = { volumes: [{ name: 'data', emptyDir: {} }] };
  const mounted = { volumeMounts: [{ name: 'data', mountPath: '/data' }] };

  await t.test('a Job running sh -c "echo done" completes, and its log shows done', async (t) => {
    const template = JSON.parse(podManifest('done', ns, nodeName, { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'echo done'] }] })) as { metadata: unknown; spec: unknown };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'done', namespace: ns }, spec: { backoffLimit: 0, template: { spec: template.spec } } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(job) });
    await waitFor('the Job Complete', async () => condition(await getJson<KubeObject>(host, ['job', '-n', ns, 'done']), 'Complete')?.status === 'True', { timeoutMs: 60_000 });
    t.equal(await host.kubectl(['logs', '-n', ns, 'job/done']), 'done\n');
  });

  await t.test('an OnFailure pod whose command exits 1 shows CrashLoopBackOff, its back-off grows (10 s, then 20 s) and so does its restartCount', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('crash', ns, nodeName, { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'echo crashing; exit 1'] }] }) });
    const status = async (): Promise<ContainerStatusJson | undefined> =>
      (await getJson<KubeObject & { status?: { containerStatuses?: ContainerStatusJson[] } }>(host, ['pod', '-n', ns, 'crash']))?.status?.containerStatuses?.[0];
    const looping = await waitFor('CrashLoopBackOff', async () => {
      const s = await status();
      return s?.state?.waiting?.reason === 'CrashLoopBackOff' ? s : undefined;
    }, { timeoutMs: 60_000 });
    t.match(looping.state?.waiting?.message, /^back-off 10s restarting failed container=app pod=crash_/);
    t.match(looping.lastState?.terminated, { exitCode: 1, reason: 'Error' });
    const first = looping.restartCount ?? 0;
    t.ok(first >= 1);
    const later = await waitFor('a restart after the back-off', async () => {
      const s = await status();
      return (s?.restartCount ?? 0) > first ? s : undefined;
    }, { timeoutMs: 60_000 });
    t.ok((later.restartCount ?? 0) > first, 'restartCount grows');
    // The next crash comes at once after that restart: the back-off has doubled.
    const doubled = await waitFor('a back-off of 20 s', async () => {
      const s = await status();
      return /^back-off 20s /.test(s?.state?.waiting?.message ?? '') ? s : undefined;
    }, { timeoutMs: 60_000 });
    t.match(doubled.state?.waiting, { reason: 'CrashLoopBackOff', message: /^back-off 20s restarting failed container=app pod=crash_/ }, 'the back-off grows');
    t.equal(await host.kubectl(['logs', '-n', ns, 'crash', '--previous']), 'crashing\n');
    const get = await host.kubectl(['get', 'pod', '-n', ns, 'crash', '--no-headers']);
    t.match(get, /CrashLoopBackOff|Error|Running/);
  });

  await t.test('a Job whose command fails twice then succeeds (a counter in an emptyDir file) completes after 2 restarts', async (t) => {
    const script = 'n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; echo attempt $n; test $n -ge 3';
    const template = JSON.parse(podManifest('retry', ns, nodeName, { restartPolicy: 'OnFailure', ...emptyDir, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', script], ...mounted }] })) as { spec: unknown };
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'retry', namespace: ns }, spec: { backoffLimit: 6, template: { spec: template.spec } } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(job) });
    await waitFor('the Job Complete', async () => condition(await getJson<KubeObject>(host, ['job', '-n', ns, 'retry']), 'Complete')?.status === 'True', { timeoutMs: 120_000 });
    const pods = await getJson<{ items: PodJson[] }>(host, ['pods', '-n', ns, '-l', 'job-name=retry']);
    t.equal(pods?.items.length, 1, 'OnFailure retries in the same pod');
    t.equal(pods?.items[0]?.status?.containerStatuses?.[0]?.restartCount, 2, 'two failed runs, then the one that succeeded');
    t.equal(await host.kubectl(['logs', '-n', ns, 'job/retry']), 'attempt 3\n');
  });

  await t.test('a failing readiness probe keeps the pod out of its Service\'s ready endpoints; once it passes the pod is in', async (t) => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'probed', namespace: ns }, spec: { selector: { group: 'probed' }, ports: [{ port: 80 }] } };
    await host.kubectl(['apply', '-f', '-'], { input: JSON.stringify(service) });
    const readiness = { exec: { command: ['cat', '/data/ready'] }, periodSeconds: 1, failureThreshold: 1 };
    await host.kubectl(['apply', '-f', '-'], { input: podWith('gated', { labels: { app: 'gated', group: 'probed' } }, { ...emptyDir, containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }], readinessProbe: readiness, ...mounted }] }) });
    const endpointReady = async (): Promise<boolean | undefined> => {
      const slices = await getJson<SliceJson>(host, ['endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=probed']);
      const endpoint = (slices?.items ?? []).flatMap((slice) => slice.endpoints ?? []).find((e) => e.targetRef?.name === 'gated');
      return endpoint?.conditions?.ready;
    };
    await waitFor('the pod in the EndpointSlice, not ready', async () => (await endpointReady()) === false, { timeoutMs: 60_000 });
    const pod = await getJson<PodJson>(host, ['pod', '-n', ns, 'gated']);
    t.match(condition(pod, 'Ready'), { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
    t.match(pod?.status?.containerStatuses?.[0], { ready: false, state: { running: {} } });
    const events = await waitFor('an Unhealthy Event from the kubelet', async () => {
      const list = await getJson<EventJson>(host, ['events.v1.events.k8s.io', '-n', ns, '--field-selector', 'regarding.name=gated']);
      return (list?.items ?? []).find((e) => e.reason === 'Unhealthy');
    }, { timeoutMs: 30_000 });
    t.match(events, { type: 'Warning', note: /^Readiness probe failed: /, regarding: { fieldPath: 'spec.containers{app}' }, reportingController: 'kubelet' });
    await host.kubectl(['exec', '-n', ns, 'gated', '--', 'sh', '-c', 'echo ok > /data/ready']);
    await waitFor('the pod ready in the EndpointSlice', async () => (await endpointReady()) === true, { timeoutMs: 60_000 });
    t.match(condition(await getJson<PodJson>(host, ['pod', '-n', ns, 'gated']), 'Ready'), { status: 'True' });
  });

  await t.test('a liveness failure restarts the container: restartCount bumps, with the kubelet\'s Killing Event', async (t) => {
    const liveness = { exec: { command: ['sh', '-c', 'echo sick; exit 1'] }, periodSeconds: 1, failureThreshold: 2 };
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('sick', ns, nodeName, { containers: [{ name: 'app', image: 'nginx:1.27', livenessProbe: liveness }] }) });
    const restarted = await waitFor('a restart', async () => {
      const c = await containerOf('sick');
      return (c?.restartCount ?? 0) >= 1 ? c : undefined;
    }, { timeoutMs: 60_000 });
    t.match(restarted.lastState?.terminated, { exitCode: 0, reason: 'Completed' }, 'stopped with TERM first, as a server (nginx) ends on it');
    const killing = await waitFor('a Killing Event', async () => {
      const list = await getJson<EventJson>(host, ['events.v1.events.k8s.io', '-n', ns, '--field-selector', 'regarding.name=sick']);
      return (list?.items ?? []).find((e) => e.reason === 'Killing');
    }, { timeoutMs: 30_000 });
    t.match(killing, { type: 'Normal', note: 'Container app failed liveness probe, will be restarted', regarding: { fieldPath: 'spec.containers{app}' } });
  });

  await t.test('a preStop exec hook runs before the container ends', async (t) => {
    // The hook writes into the pod's emptyDir; the container's TERM trap copies it into its
    // termination message, and a finalizer keeps the ended pod readable.
    const hold = 'test.tether.dev/hold';
    const main = 'trap "cat /data/hook > /dev/termination-log; exit 0" TERM; while true; do sleep 1; done';
    await host.kubectl(['apply', '-f', '-'], { input: podWith('hooked', { labels: { app: 'hooked' }, finalizers: [hold] }, { ...emptyDir, containers: [{
      name: 'app', image: 'busybox:1.36', command: ['sh', '-c', main], ...mounted,
      lifecycle: { preStop: { exec: { command: ['sh', '-c', 'echo pre-stop ran > /data/hook'] } } },
    }] }) });
    t.teardown(() => host.kubectl(['patch', 'pod', '-n', ns, 'hooked', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']).then(() => undefined, () => undefined));
    await waitFor('the container running', async () => (await containerOf('hooked'))?.state?.running !== undefined, { timeoutMs: 60_000 });
    await host.kubectl(['delete', 'pod', '-n', ns, 'hooked', '--wait=false']);
    const ended = await waitFor('the container ended', async () => {
      const c = await containerOf('hooked');
      return c?.state?.terminated !== undefined ? c : undefined;
    }, { timeoutMs: 60_000 });
    t.match(ended.state?.terminated, { exitCode: 0, message: 'pre-stop ran\n' }, 'the hook had written its file when TERM came');
  });

  await t.test('what the simulated shell cannot run fails to start (StartError, RunContainerError); a command not found is an Error exit', async (t) => {
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('heredoc', ns, nodeName, { restartPolicy: 'OnFailure', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'cat <<EOF\nhello\nEOF'] }] }) });
    await host.kubectl(['apply', '-f', '-'], { input: podManifest('missing', ns, nodeName, { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'nosuchcmd'] }] }) });
    const failed = await waitFor('a start failure', async () => {
      const c = await containerOf('heredoc');
      return c?.lastState?.terminated?.reason === 'StartError' ? c : undefined;
    }, { timeoutMs: 60_000 });
    t.match(failed.lastState?.terminated, { exitCode: 128, message: /^the simulated node cannot run this command: here-documents \(<<\) are not supported/ });
    t.match(failed.state?.waiting?.reason, /^(RunContainerError|CrashLoopBackOff)$/);
    t.match(await host.kubectl(['logs', '-n', ns, 'heredoc']), /^the simulated node cannot run this command: here-documents/);
    const event = await waitFor('a Failed Event', async () => {
      const list = await getJson<EventJson>(host, ['events.v1.events.k8s.io', '-n', ns, '--field-selector', 'regarding.name=heredoc']);
      return (list?.items ?? []).find((e) => e.reason === 'Failed');
    }, { timeoutMs: 30_000 });
    t.match(event, { type: 'Warning', note: /^Error: the simulated node cannot run this command: /, regarding: { fieldPath: 'spec.containers{app}' } });
    const missing = await waitFor('the Never pod ended', async () => {
      const c = await containerOf('missing');
      return c?.state?.terminated !== undefined ? c : undefined;
    }, { timeoutMs: 60_000 });
    t.match(missing.state?.terminated, { exitCode: 127, reason: 'Error' });
    t.match(await host.kubectl(['logs', '-n', ns, 'missing']), /nosuchcmd: not found/);
  });
});
