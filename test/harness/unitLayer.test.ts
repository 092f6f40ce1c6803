/**
 * The fast layer stays fast: no test outside test/e2e/ starts or attaches to a cluster (so
 * `npm run test:unit` needs none), and in the unit run a test that asks for one anyway fails at
 * once, saying where it belongs, instead of quietly starting a pair of clusters of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { NO_CLUSTERS_ENV, REPO_ROOT, refuseClustersInUnitRun } from './sharedClusters.js';

/** The calls that start or attach a cluster (test/harness/sharedClusters.ts, src/harness, src/sandbox). */
const CLUSTER_CALL = /\b(useSharedClusters|startDedicatedCluster|startCluster|attachCluster|startSandbox)\s*\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(REPO_ROOT, path)] : [];
  });
}

t.test('no test outside test/e2e starts or attaches to a cluster', async (t) => {
  const self = relative(REPO_ROOT, fileURLToPath(import.meta.url));
  const files = testFiles(join(REPO_ROOT, 'test')).filter((f) => !f.startsWith(join('test', 'e2e')) && f !== self);
  t.ok(files.length > 100, `every test file is looked at (${files.length})`);
  const offenders = files.filter((f) => CLUSTER_CALL.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
  t.same(offenders, [], 'these belong in test/e2e/');
});

t.test('the check finds a cluster asked for in any of its forms', async (t) => {
  for (const call of ['await useSharedClusters(t)', 'startDedicatedCluster(t, { name })', 'await startCluster({ name: "x" })', 'attachCluster (state)']) {
    t.ok(CLUSTER_CALL.test(call), call);
  }
  t.notOk(CLUSTER_CALL.test("import { uniqueNamespace } from './sharedClusters.js'"), 'importing the pure helpers is fine');
});

t.test('in the unit run, asking for a cluster fails at once and says where the test belongs', async (t) => {
  t.throws(() => refuseClustersInUnitRun({ [NO_CLUSTERS_ENV]: '1' }), /belongs in test\/e2e\//);
  t.doesNotThrow(() => refuseClustersInUnitRun({}), 'npm test (the whole suite) is not refused');
});
