/**
 * A host connection for tests that need one built but never called (servers whose reviewers are
 * not asked): a ClusterClient towards a port nothing listens on, stopped when the test ends.
 */
import type { Test } from 'tap';
import { ClusterClient } from '../../src/adapters/kubernetes/clusterClient.js';

const UNUSED_HOST = { kind: 'string' as const, yaml: 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n' };

export function unusedHost(t: Test): ClusterClient {
  const client = new ClusterClient(UNUSED_HOST);
  t.teardown(() => client.stop());
  return client;
}
