/**
 * Kubeconfig files, rendered as JSON (a subset of YAML every client reads) with credentials
 * embedded, so a file is self-contained and can be copied next to a log for a failure report.
 */
export type KubeconfigUser =
  | { kind: 'certificate'; certPem: string; keyPem: string }
  | { kind: 'token'; token: string };

export interface KubeconfigSpec {
  /** Names the cluster, user and context entries. */
  name: string;
  server: string;
  caPem: string;
  user: KubeconfigUser;
  namespace?: string;
}

export function renderKubeconfig(spec: KubeconfigSpec): string {
  const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
  const user = renderUser(spec.user, b64);
  const context: Record<string, string> = { cluster: spec.name, user: spec.name };
  if (spec.namespace) context.namespace = spec.namespace;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: spec.name, cluster: { server: spec.server, 'certificate-authority-data': b64(spec.caPem) } }],
    users: [{ name: spec.name, user }],
    contexts: [{ name: spec.name, context }],
    'current-context': spec.name,
    preferences: {},
  };
  return JSON.stringify(config, null, 2) + '\n';
}

function renderUser(user: KubeconfigUser, b64: (pem: string) => string): Record<string, string> {
  switch (user.kind) {
    case 'certificate':
      return { 'client-certificate-data': b64(user.certPem), 'client-key-data': b64(user.keyPem) };
    case 'token':
      return { token: user.token };
  }
}
