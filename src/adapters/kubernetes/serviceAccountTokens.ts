/**
 * The host calls behind ServiceAccount access for offloaded pods (docs/security.md): a
 * TokenRequest for the pod's ServiceAccount bound to the pod itself (the token stops working
 * when that pod is deleted, as the kubelet's projected tokens do), and the namespace's API server
 * CA bundle (`kube-root-ca.crt`, what the kubelet projects as `ca.crt`). Both go through the
 * cluster's ClusterClient: its rate limiter, deadlines and write fence (a TokenRequest is a
 * create, so a standby replica never asks for one). Rejections are the client's `KubeApiError`s.
 */
import type { ClusterClient } from './clusterClient.js';
import { operation } from './operation.js';

export interface BoundTokenRequest {
  readonly namespace: string;
  readonly serviceAccount: string;
  /** The pod the token is bound to: deleted, or replaced by a namesake, and the token is refused. */
  readonly pod: { readonly name: string; readonly uid: string };
  readonly expirationSeconds: number;
}

export interface BoundToken {
  readonly token: string;
  /** Epoch ms, as the API server set it (it may shorten the asked lifetime). */
  readonly expiresAt: number;
}

/** A token for `serviceAccount`, with the API server's default audience, bound to the pod. */
export async function requestBoundToken(cluster: ClusterClient, request: BoundTokenRequest, fallbackNow: () => number): Promise<BoundToken> {
  const { namespace, serviceAccount, pod, expirationSeconds } = request;
  const answer = await cluster.call('other', operation('create', `token of serviceaccount ${namespace}/${serviceAccount} for pod ${pod.name}`), (core, options) =>
    core.createNamespacedServiceAccountToken({
      namespace, name: serviceAccount,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid } } },
    }, options));
  const stamp = answer.status?.expirationTimestamp;
  const expiresAt = stamp === undefined ? fallbackNow() + expirationSeconds * 1000 : new Date(stamp).getTime();
  return { token: answer.status?.token ?? '', expiresAt };
}

/** The API server's CA bundle as the namespace publishes it (`kube-root-ca.crt`, key `ca.crt`); undefined when absent. */
export async function readRootCa(cluster: ClusterClient, namespace: string): Promise<string | undefined> {
  const config = await cluster.call('other', operation('get', `configmap ${namespace}/kube-root-ca.crt`), (core, options) =>
    core.readNamespacedConfigMap({ namespace, name: 'kube-root-ca.crt' }, options));
  return config.data?.['ca.crt'];
}
