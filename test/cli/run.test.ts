/**
 * `tether run` refuses broken configs with exit 2 and the problems listed. (A valid config against
 * a real API server: test/e2e/cliRun.test.ts.)
 */
import t from 'tap';
import { runCli } from './cli.js';

for (const fixture of ['negative-interval', 'unknown-fields', 'wrong-types', 'bad-provider', 'cross-field', 'missing-fields', 'empty', 'bad-yaml']) {
  t.test(`run refuses ${fixture}.yaml with exit 2`, async (t) => {
    const r = await runCli(['run', '--config', `test/config/fixtures/${fixture}.yaml`]);
    t.equal(r.code, 2);
    t.match(r.stderr, `test/config/fixtures/${fixture}.yaml`);
    t.match(r.stderr, /tether run: refusing to start: \d+ problems? in /);
  });
}

t.test('run refuses a bad override and an unusable kubeconfig with exit 2', async (t) => {
  const bad = await runCli(['run', '--config', 'test/config/fixtures/valid-simulated.yaml', '--kubeconfig', '/nonexistent'], { TETHER_METRICS_PORT: 'x' });
  t.equal(bad.code, 2);
  t.match(bad.stderr, 'TETHER_METRICS_PORT: ports.metrics.port: expected a port number');
  const noKube = await runCli(['run', '--config', 'test/config/fixtures/valid-simulated.yaml', '--kubeconfig', '/nonexistent']);
  t.equal(noKube.code, 2);
  t.match(noKube.stderr, 'tether run: refusing to start: kubeconfig /nonexistent: cannot read file (ENOENT)');
});
