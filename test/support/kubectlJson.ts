import type { ClusterAccess } from '../../src/harness/clusterAccess.js';

/** `kubectl get … -o json`, parsed; undefined when the object does not exist. */
export async function getJson<T = Record<string, unknown>>(cluster: ClusterAccess, args: readonly string[]): Promise<T | undefined> {
  try {
    return JSON.parse(await cluster.kubectl(['get', ...args, '-o', 'json'])) as T;
  } catch (error) {
    if (String((error as { stderr?: string }).stderr ?? error).includes('NotFound')) return undefined;
    throw error;
  }
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface KubeObject {
  metadata: { name: string; namespace?: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec?: Record<string, unknown> & { taints?: Array<{ key: string; value?: string; effect: string }>; nodeName?: string };
  status?: Record<string, unknown> & { conditions?: Condition[]; phase?: string; podIP?: string; capacity?: Record<string, string>; allocatable?: Record<string, string> };
}

export const condition = (obj: KubeObject | undefined, type: string): Condition | undefined => obj?.status?.conditions?.find((c) => c.type === type);

/** A pod manifest that tolerates Tether's taint and is pinned to one virtual node. */
export function podManifest(name: string, namespace: string, nodeName: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      nodeSelector: { 'kubernetes.io/hostname': nodeName },
      tolerations: [{ key: 'virtual-kubelet.io/provider', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'app', image: 'nginx:1.27' }],
      terminationGracePeriodSeconds: 5,
      ...extra,
    },
  });
}
