import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ClusterAccess, KubectlError, type ClusterDescription } from '../../src/harness/clusterAccess.js';

/** A cluster whose "kubectl" is a stand-in command: only the process handling is under test. */
const withKubectl = (kubectlPath: string): ClusterAccess => new ClusterAccess({
  name: 'stand-in', dir: '/nonexistent', server: 'https://127.0.0.1:1', kubeconfigPath: '/nonexistent/kubeconfig',
  caCertPath: '/nonexistent/ca.crt', adminToken: '', tokens: [],
  pids: { etcd: 0, 'kube-apiserver': 0, 'kube-controller-manager': 0, 'kube-scheduler': 0 }, kubectlPath,
} satisfies ClusterDescription);

void t.test('a kubectl that exits before reading its input fails that call, not the test process', async (t) => {
  // `false` never reads stdin: writing several MiB to it ends in EPIPE, which used to be thrown
  // as an uncaught error in whichever test was running (remoteOutage's "write EPIPE").
  const kubectl = withKubectl('/bin/false');
  const input = 'x'.repeat(8 << 20);
  for (let i = 0; i < 5; i++) {
    await t.rejects(kubectl.kubectl(['apply', '-f', '-'], { input }), KubectlError);
  }
});

void t.test('a kubectl reads its input from stdin, and an empty stdin when given none', async (t) => {
  const echo = join(mkdtempSync(join(tmpdir(), 'tether-kubectl-')), 'kubectl');
  writeFileSync(echo, '#!/bin/sh\ncat\n');
  chmodSync(echo, 0o755);
  const kubectl = withKubectl(echo);
  t.equal(await kubectl.kubectl(['apply', '-f', '-'], { input: 'a manifest' }), 'a manifest');
  t.equal(await kubectl.kubectl(['get', 'pods']), '', 'end of input at once: nothing waits on a stdin never closed');
});
