/**
 * A host and a remote mock API server for a Kubernetes provider under test, closed at teardown.
 * The remote starts idle: its watches hang open and its pod list is empty; a test adds its own
 * routes, which take precedence.
 */
import type { Test } from 'tap';
import { MockApiServer } from '../../adapters/kubernetes/mockApiServer.js';

export async function mockClusters(t: Test): Promise<{ host: MockApiServer; remote: MockApiServer }> {
  const host = await MockApiServer.start();
  const remote = await MockApiServer.start();
  t.teardown(() => Promise.all([host.close(), remote.close()]));
  remote.route((r) => {
    if (r.url.searchParams.get('watch') === 'true') return 'hang';
    if (r.method === 'GET' && r.url.pathname === '/api/v1/pods') return { body: { metadata: { resourceVersion: '1' }, items: [] } };
    return undefined;
  });
  return { host, remote };
}
