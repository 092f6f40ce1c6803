/**
 * The sandbox's demo, applied to the host cluster: a Deployment whose pods tolerate Tether's taint
 * and select virtual nodes, and a Service in front of them. They land on the virtual node and run
 * in the remote cluster.
 */
import type { ClusterAccess } from '../harness/clusterAccess.js';
import { waitFor } from '../harness/poll.js';

export interface Demo {
  readonly namespace: string;
  readonly deployment: string;
  readonly service: string;
  readonly replicas: number;
}

/** Where the demo's ConfigMap is mounted in its pods. */
export const DEMO_CONFIG_DIR = '/etc/hello';
/** The port the demo's container declares (the simulated provider answers HTTP there). */
export const DEMO_PORT = 80;

export const DEMO: Demo = { namespace: 'demo', deployment: 'hello', service: 'hello', replicas: 3 };

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
              nodeSelector: { type: 'virtual-kubelet' },
              tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
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
