/**
 * `tether run` refuses broken configs with exit 2 and the problems listed, run as `main()` in this
 * process. (The same refusal from the real program, its exit code: test/e2e/cliProcess.test.ts; a
 * valid config against a real API server and SIGTERM: test/e2e/cliRun.test.ts.)
 */
import t from 'tap';
import { runMain } from './cli.js';

for (const fixture of ['negative-interval', 'unknown-fields', 'wrong-types', 'bad-provider', 'cross-field', 'missing-fields', 'empty', 'bad-yaml']) {
  t.test(`run refuses ${fixture}.yaml with exit 2`, async (t) => {
    const r = await runMain(['run', '--config', `test/config/fixtures/${fixture}.yaml`]);
    t.equal(r.code, 2);
    t.match(r.stderr, `test/config/fixtures/${fixture}.yaml`);
    t.match(r.stderr, /tether run: refusing to start: \d+ problems? in /);
    t.equal(r.stdout, '');
  });
}

t.test('run refuses a bad override and an unusable kubeconfig with exit 2', async (t) => {
  const bad = await runMain(['run', '--config', 'test/config/fixtures/valid-simulated.yaml', '--kubeconfig', '/nonexistent'], { TETHER_METRICS_PORT: 'x' });
  t.equal(bad.code, 2);
  t.match(bad.stderr, 'TETHER_METRICS_PORT: ports.metrics.port: expected a port number');
  const noKube = await runMain(['run', '--config', 'test/config/fixtures/valid-simulated.yaml', '--kubeconfig', '/nonexistent']);
  t.equal(noKube.code, 2);
  t.match(noKube.stderr, 'tether run: refusing to start: kubeconfig /nonexistent: cannot read file (ENOENT)');
});

t.test('run takes its config file from TETHER_CONFIG when --config is not given', async (t) => {
  const r = await runMain(['run'], { TETHER_CONFIG: 'test/config/fixtures/wrong-types.yaml' });
  t.equal(r.code, 2);
  t.match(r.stderr, /tether run: refusing to start: 6 problems in test\/config\/fixtures\/wrong-types\.yaml/);
});

t.test('run without a config file, or with an unknown option, is a usage error', async (t) => {
  const none = await runMain(['run']);
  t.equal(none.code, 2);
  t.match(none.stderr, "tether run: a config file is required: --config FILE or TETHER_CONFIG\nRun 'tether run --help' for usage.");
  const unknown = await runMain(['run', '--config', 'x.yaml', '--frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /tether run: .*frobnicate/);
});
