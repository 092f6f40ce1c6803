/**
 * The kubelet API's read-only pod listings, in host terms (the namespace, name and UID of the
 * host's pod, `spec.nodeName` = the virtual node), whatever the provider runs them as:
 *   /pods          every pod the provider holds for this node, a PodList (as the kubelet's
 *                  `/pods`, which lists the pods bound to it);
 *   /runningpods/  the running ones only, reduced as the kubelet reduces them (metadata name,
 *                  namespace, uid; spec.containers with name and image; no status).
 */
import type { Pod } from '../adapters/kubernetes/model.js';
import { definedOnly } from '../lib/defaults.js';

export interface PodList {
  readonly kind: 'PodList';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly items: Pod[];
}

function podList(items: Pod[]): PodList {
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items };
}

/** The pod as bound to this node: a provider may report the node it really runs on. */
export function onNode(pod: Pod, nodeName: string): Pod {
  return { apiVersion: 'v1', kind: 'Pod', ...pod, spec: { containers: [], ...pod.spec, nodeName } };
}

export function nodePods(pods: readonly Pod[], nodeName: string): PodList {
  return podList(pods.map((p) => onNode(p, nodeName)));
}

export function runningPods(pods: readonly Pod[]): PodList {
  return podList(pods.filter((p) => p.status?.phase === 'Running').map((p) => ({
    metadata: {
      name: p.metadata?.name ?? '',
      namespace: p.metadata?.namespace ?? 'default',
      ...definedOnly({ uid: p.metadata?.uid || undefined }),
    },
    spec: { containers: (p.spec?.containers ?? []).map((c) => ({ name: c.name, ...definedOnly({ image: c.image || undefined }) })) },
  })));
}
