/**
 * The process-level policy of `tether run` installed in a real child process
 * (test/cli/fixtures/uncaughtErrors.ts): an unhandled rejection and an uncaught exception are
 * logged, counted and survived; a failed assertion ends the process. No cluster; here because only
 * a process shows it and one from source takes seconds to start. (The decision itself:
 * test/cli/processErrorPolicy.test.ts.)
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { REPO } from '../cli/cli.js';

function runFixture(mode: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import=@isaacs/ts-node-temp-fork-for-pr-2009/import', join('test', 'cli', 'fixtures', 'uncaughtErrors.ts'), mode], {
    cwd: REPO, env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

t.test('installed in a process: an unhandled rejection and an uncaught exception are logged, counted, survived', async (t) => {
  const run = await runFixture('survive');
  t.equal(run.code, 0, run.stderr);
  t.same(JSON.parse(run.stdout), { alive: true, counts: { unhandledRejection: 1, uncaughtException: 1 } });
  t.match(run.stderr, /"msg":"unhandledRejection: logged and counted; Tether runs on.*"name":"TypeError".*"message":"a rejection nobody handled"/);
  t.match(run.stderr, /"msg":"uncaughtException: logged and counted; Tether runs on.*"name":"URIError"/);
});

t.test('installed in a process: a failed assertion takes the invariant path, which ends the process', async (t) => {
  const run = await runFixture('invariant');
  t.equal(run.code, 70, run.stderr);
  t.match(run.stdout, /"alive":true[\s\S]*"invariant":true/);
  t.match(run.stderr, /"msg":"uncaughtException: an invariant failed \(ERR_ASSERTION\): Tether's state cannot be trusted; shutting down"/);
});
