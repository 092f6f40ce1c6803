/**
 * The sandbox's demo, applied to the host cluster: a Deployment whose pods tolerate Tether's taint
 * and select virtual nodes, a Service in front of them, a Job and a CronJob. They land on the
 * virtual node and run in the remote cluster, where the simulated node runs their commands: the
 * Job completes and `kubectl logs job/countdown` shows what its command printed.
 */
import type { ClusterAccess } from '../harness/clusterAccess.js';
import { waitFor } from '../harness/poll.js';

export interface Demo {
  readonly namespace: string;
  readonly deployment: string;
  readonly service: string;
  readonly replicas: number;
  /** A Job whose command counts down and prints `done`, then completes. */
  readonly job: string;
  /** A CronJob that runs a one-line command every minute. */
  readonly cronJob: string;
}

/** Where the demo's ConfigMap is mounted in its pods. */
export const DEMO_CONFIG_DIR = '/etc/hello';
/** The port the demo's container declares (the simulated provider answers HTTP there). */
export const DEMO_PORT = 80;

export const DEMO: Demo = { namespace: 'demo', deployment: 'hello', service: 'hello', replicas: 3, job: 'countdown', cronJob: 'tick' };

/** What the demo Job's container prints, line by line, before it exits 0. */
export const DEMO_JOB_OUTPUT = ['3', '2', '1', 'done'];

/** The scheduling every demo pod needs to land on a virtual node. */
const onVirtualNodes = {
  nodeSelector: { type: 'virtual-kubelet' },
  tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
};

export function demoManifest(demo: Demo = DEMO): string {
  const labels = { app: demo.deployment };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: demo.namespace } },
      // Mounted in every replica: `kubectl exec deploy/hello -- cat /etc/hello/greeting` shows it,
      // through both Tethers, and shows a change after `kubectl edit configmap`.
      {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: `${demo.deployment}-config`, namespace: demo.namespace },
        data: { greeting: 'Hello from the host cluster\n' },
      },
      {
        apiVersion: 'apps/v1', kind: 'Deployment',
        metadata: { name: demo.deployment, namespace: demo.namespace },
        spec: {
          replicas: demo.replicas,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              ...onVirtualNodes,
              terminationGracePeriodSeconds: 5,
              containers: [{
                name: 'web', image: 'nginx:1.27', ports: [{ containerPort: DEMO_PORT }],
                env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: `${demo.deployment}-config`, key: 'greeting' } } }],
                volumeMounts: [{ name: 'config', mountPath: DEMO_CONFIG_DIR }],
              }],
              volumes: [{ name: 'config', configMap: { name: `${demo.deployment}-config` } }],
            },
          },
        },
      },
      {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name: demo.service, namespace: demo.namespace },
        spec: { selector: labels, ports: [{ port: DEMO_PORT, targetPort: DEMO_PORT }] },
      },
      // The simulated node runs the command in its built-in shell (docs/sandbox.md).
      {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: demo.job, namespace: demo.namespace },
        spec: {
          backoffLimit: 2,
          template: {
            spec: {
              ...onVirtualNodes,
              restartPolicy: 'Never',
              containers: [{
                name: 'count', image: 'busybox:1.36',
                command: ['sh', '-c', 'for i in 3 2 1; do echo "$i"; sleep 1; done; echo done'],
              }],
            },
          },
        },
      },
      {
        apiVersion: 'batch/v1', kind: 'CronJob',
        metadata: { name: demo.cronJob, namespace: demo.namespace },
        spec: {
          schedule: '* * * * *',
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 2,
          failedJobsHistoryLimit: 1,
          jobTemplate: {
            spec: {
              backoffLimit: 0,
              template: {
                spec: {
                  ...onVirtualNodes,
                  restartPolicy: 'Never',
                  containers: [{ name: 'tick', image: 'busybox:1.36', command: ['sh', '-c', 'echo "tick at $(date) on $(hostname)"'] }],
                },
              },
            },
          },
        },
      },
    ],
  });
}

interface PodList {
  items: { metadata: { name: string }; spec?: { nodeName?: string }; status?: { phase?: string } }[];
}

/** Applies the demo and waits until every replica is Running on `nodeName`. */
export async function deployDemo(host: ClusterAccess, nodeName: string, demo: Demo = DEMO, timeoutMs = 240_000): Promise<void> {
  // The namespace's default ServiceAccount comes from the controller manager a moment after start.
  await waitFor('the demo applied to the host cluster', async () => {
    await host.kubectl(['apply', '-f', '-'], { input: demoManifest(demo) });
    return true;
  }, { timeoutMs: 60_000, intervalMs: 1_000 });
  await waitFor(`${demo.replicas} demo pods Running on ${nodeName}`, async () => {
    const list = JSON.parse(await host.kubectl(['get', 'pods', '-n', demo.namespace, '-l', `app=${demo.deployment}`, '-o', 'json'])) as PodList;
    const running = list.items.filter((p) => p.status?.phase === 'Running' && p.spec?.nodeName === nodeName);
    return running.length >= demo.replicas;
  }, { timeoutMs, intervalMs: 1_000 });
}
