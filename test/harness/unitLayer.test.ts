/**
 * The fast layer stays fast: no test outside test/e2e/ starts or attaches to a cluster (so
 * `npm run test:unit` needs none) or starts a Node process from source (each takes seconds to load
 * its TypeScript: the CLI's commands run as `main()` in process, `runMain`), and in the unit run a
 * test that asks for a cluster anyway fails at once, saying where it belongs, instead of quietly
 * starting a pair of clusters of its own.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { unitTestFiles as allUnitTestFiles } from '../support/unitTestFiles.js';
import { NO_CLUSTERS_ENV, REPO_ROOT, refuseClustersInUnitRun } from './sharedClusters.js';

/** The calls that start or attach a cluster (test/harness/sharedClusters.ts, src/harness, src/sandbox). */
const CLUSTER_CALL = /\b(useSharedClusters|startDedicatedCluster|startCluster|attachCluster|startSandbox)\s*\(/;

/** Starting a Node process: the CLI from source (test/cli/cli.ts), or this process's own loaders. */
const NODE_PROCESS = /\b(runCli|startCli|cliCommand)\s*\(|\b(spawn|fork|execFile|execFileSync|spawnSync)\s*\(\s*process\.execPath\b/;

/** Every test file of the unit layer (the ones test/allUnits.ts runs) but this one. */
function unitTestFiles(): string[] {
  const self = relative(REPO_ROOT, fileURLToPath(import.meta.url));
  return allUnitTestFiles().filter((f) => f !== self);
}

t.test('no test outside test/e2e starts or attaches to a cluster', async (t) => {
  const files = unitTestFiles();
  t.ok(files.length > 100, `every test file is looked at (${files.length})`);
  const offenders = files.filter((f) => CLUSTER_CALL.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
  t.same(offenders, [], 'these belong in test/e2e/');
});

t.test('no test outside test/e2e starts a Node process from source', async (t) => {
  const files = unitTestFiles();
  const offenders = files.filter((f) => NODE_PROCESS.test(readFileSync(join(REPO_ROOT, f), 'utf8')));
  t.same(offenders, [], 'these belong in test/e2e/ (or run main() in process: runMain in test/cli/cli.ts)');
});

t.test('the check finds a Node process started in any of its forms', async (t) => {
  for (const call of ["await runCli(['validate'])", "startCli(['run', '--config', c])", 'cliCommand(args)', 'spawn(process.execPath, [fixture])', 'execFileSync(process.execPath, args)']) {
    t.ok(NODE_PROCESS.test(call), call);
  }
  for (const call of ["await runMain(['validate'])", "execFile('openssl', ['x509'])", "spawn(system, 'child')"]) {
    t.notOk(NODE_PROCESS.test(call), `${call} is fine`);
  }
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
