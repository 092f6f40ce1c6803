/**
 * What only the real program shows: `main()`'s return value becomes the process's exit code and
 * its lines reach stdout and stderr (the `tether` entry point, src/cli/main.ts). No cluster; here
 * because a process from source takes seconds to start. What each command prints and returns:
 * test/cli/run.test.ts and validate.test.ts, in process; signals: test/e2e/cliRun.test.ts.
 */
import t from 'tap';
import { runCli } from '../cli/cli.js';

t.test('the program exits 2 and lists the problems on stderr when run refuses a config', async (t) => {
  const r = await runCli(['run', '--config', 'test/config/fixtures/wrong-types.yaml']);
  t.equal(r.code, 2);
  t.equal(r.signal, null);
  t.match(r.stderr, 'test/config/fixtures/wrong-types.yaml: logLevel: expected one of debug, info, warn, error, silent, got "verbose"');
  t.match(r.stderr, /tether run: refusing to start: 6 problems in test\/config\/fixtures\/wrong-types\.yaml\n$/);
  t.equal(r.stdout, '');
});

t.test('the program exits 0 and writes its answer on stdout', async (t) => {
  const r = await runCli(['version', '--json']);
  t.equal(r.code, 0, r.stderr);
  t.match(JSON.parse(r.stdout), { tether: '0.1.0', kubeletVersion: /^v1\.36\.3\+tether/ });
  t.equal(r.stderr, '');
});
