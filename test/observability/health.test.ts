import t from 'tap';
import { readinessChecks, renderChecks } from '../../src/observability/health.js';
import { FakeTree } from './fakeTree.js';

t.test('readiness with no virtual node: a fault, unless replicas share nodes through locks (a standby)', async (t) => {
  const tree = new FakeTree();
  const agent = tree.agent();
  t.equal(renderChecks(readinessChecks({ ...agent, nodes: [] }), false).code, 503, 'a single replica with no node is not ready');
  t.match(renderChecks(readinessChecks({ ...agent, nodes: [] }), true).body, /\[-\]nodes failed: no virtual node configured/);
  t.equal(renderChecks(readinessChecks({ ...agent, nodes: [], standbyAllowed: true }), false).code, 200, 'a standby replica is ready, so a rollout can proceed');
});
