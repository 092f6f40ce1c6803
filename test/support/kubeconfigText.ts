/** A kubeconfig text whose one user is `user` (a YAML flow mapping), for the credential policy's tests. */
export const kubeconfigForUser = (user: string): string => `apiVersion: v1
kind: Config
clusters: [{ name: r, cluster: { server: "https://127.0.0.1:1" } }]
contexts: [{ name: r, context: { cluster: r, user: u } }]
current-context: r
users:
  - name: u
    user: ${user}
`;

/** A user that runs a program to get its credentials. */
export const EXEC_USER = '{ exec: { apiVersion: client.authentication.k8s.io/v1, command: /bin/true } }';
