/**
 * Which kubeconfig reaches the host cluster, from the config file's `host:` section: an explicit
 * file; in-cluster when asked, or when running in a pod (KUBERNETES_SERVICE_HOST and a mounted
 * service account token); otherwise the usual search ($KUBECONFIG, then ~/.kube/config).
 */
import { existsSync } from 'node:fs';
import type { KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { TetherConfig } from './index.js';

const SA_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function hostKubeconfigSource(
  host: TetherConfig['host'],
  env: NodeJS.ProcessEnv = process.env,
  inPod: () => boolean = () => env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(SA_TOKEN),
): KubeconfigSource {
  const context = host?.context !== undefined ? { context: host.context } : {};
  if (host?.kubeconfig !== undefined) return { kind: 'file', path: host.kubeconfig, ...context };
  if (host?.inCluster === true || (host?.inCluster !== false && inPod())) return { kind: 'inCluster', env };
  return { kind: 'default', env, ...context };
}
