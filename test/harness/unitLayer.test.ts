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
import { shardFiles } from '../support/unitShard.js';
import { NO_CLUSTERS_ENV, REPO_ROOT, refuseClustersInUnitRun } from './sharedClusters.js';

/** The calls that start or attach a cluster (test/harness/sharedClusters.ts, src/harness, src/sandbox). */
const CLUSTER_CALL = /\b(useSharedClusters|startDedicatedCluster|startCluster|attachCluster|startSandbox)\s*\(/;

/** Starting a Node process: the CLI from source (test/cli/cli.ts), or this process's own loaders. */
const NODE_PROCESS = /\b(runCli|startCli|cliCommand)\s*\(|\b(spawn|fork|execFile|execFileSync|spawnSync)\s*\(\s*process\.execPath\b/;

/** Every test file of the unit layer (the ones the unit shards, test/units/, run) but this one. */
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

t.test('the unit shards run every unit file exactly once, in sorted order within each shard', async (t) => {
  const files = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts', 'test/e.test.ts'];
  const size: Record<string, number> = { 'test/a.test.ts': 10, 'test/b.test.ts': 50, 'test/c.test.ts': 30, 'test/d.test.ts': 40, 'test/e.test.ts': 20 };
  const shards = [0, 1].map((i) => shardFiles(files, i, 2, (f) => size[f] ?? 0));
  t.same(shards, [['test/b.test.ts', 'test/c.test.ts', 'test/a.test.ts'].sort(), ['test/d.test.ts', 'test/e.test.ts']], 'dealt largest first, round-robin');
  const real = allUnitTestFiles();
  const dealt = [0, 1].flatMap((i) => shardFiles(real, i, 2, (f) => f.length));
  t.same([...dealt].sort(), real, 'the real files: each in one shard');
});

t.test('npm run test:unit and npm test run the unit shards', async (t) => {
  const shards = ['test/units/shard1.ts', 'test/units/shard2.ts'];
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  for (const shard of shards) t.match(pkg.scripts['test:unit'], shard, `test:unit runs ${shard}`);
  t.match(readFileSync(join(REPO_ROOT, '.taprc'), 'utf8'), /- "test\/units\/\*\.ts"/, "npm test's include has the shards");
});
