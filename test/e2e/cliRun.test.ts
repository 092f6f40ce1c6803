/**
 * `tether run` with a valid config: the virtual node goes Ready in the real host cluster, and
 * SIGTERM shuts down within the bound and exits 0 (the node is deleted, as the config asks).
 * (Refusals of broken configs, without a cluster: test/cli/run.test.ts.)
 */
import t from 'tap';
import { reportLogsOnFailure, uniqueNamespace, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { condition, getJson, type KubeObject } from '../support/kubectlJson.js';
import { startCli } from '../cli/cli.js';

t.test('a valid config runs: the node goes Ready; SIGTERM exits 0 within the bound', async (t) => {
  const { host } = await useSharedClusters(t);
  reportLogsOnFailure(t, [host]);
  const nodeName = uniqueNamespace('cli-run');
  const { writeFileSync, mkdtempSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'tether-cli-'));
  const config = join(dir, 'tether.yaml');
  writeFileSync(config, readFileSync('test/config/fixtures/valid-simulated.yaml', 'utf8').replace('vk-fixture', nodeName));
  const cli = startCli(['run', '--config', config, '--kubeconfig', host.kubeconfigPath, '--log-level', 'info']);
  t.teardown(() => {
    cli.child.kill('SIGKILL');
  });
  const node = (): Promise<KubeObject | undefined> => getJson<KubeObject>(host, ['node', nodeName]);
  await waitFor('the node is Ready', async () => {
    if (cli.child.exitCode !== null) throw new Error(`tether run exited early:\n${cli.output().stderr}`);
    return condition(await node(), 'Ready')?.status === 'True';
  }, { timeoutMs: 60_000 });
  const signalledAt = Date.now();
  cli.child.kill('SIGTERM');
  const result = await cli.done;
  const took = Date.now() - signalledAt;
  t.equal(result.code, 0, `exit 0; stderr:\n${result.stderr}`);
  t.ok(took < 8_000 + 2_000, `within the 8 s bound (took ${took} ms)`);
  t.match(result.stderr, '"msg":"shutting down"');
  t.match(result.stderr, '"msg":"stopped"');
  await waitFor('the Node is deleted (deleteNodeOnShutdown)', async () => (await node()) === undefined, { timeoutMs: 30_000 });
});
