/**
 * `tether run` replicas under leader election, as the HA e2e tests start them: one config file
 * shared by every replica (no servers, so replicas on one machine contend for no port), each
 * process with its own identity and the lock timings in the environment, as the chart sets them.
 * A replica still running when the test ends gets SIGTERM; a failed test prints each one's output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { startCli, type CliProcess } from '../cli/cli.js';

export interface LockTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface Replicas {
  /** Starts (or starts again) the replica `identity`. */
  start(identity: string): CliProcess;
  /** The replica's latest process. */
  get(identity: string): CliProcess | undefined;
  readonly all: ReadonlyMap<string, CliProcess>;
}

/** Writes the config (the common head, then `nodeLines`) and returns the replica starter, in namespace `ns`. */
export function replicaProcesses(t: Test, o: { readonly hostKubeconfig: string; readonly ns: string; readonly timings: LockTimings; readonly logLevel?: string; readonly nodeLines: readonly string[] }): Replicas {
  const dir = mkdtempSync(join(tmpdir(), 'tether-replicas-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'tether.yaml');
  writeFileSync(configPath, [
    `logLevel: ${o.logLevel ?? 'info'}`,
    `host: { kubeconfig: ${JSON.stringify(o.hostKubeconfig)} }`,
    'shutdown: { timeoutMs: 5000 }',
    'ports: { introspection: { port: 0 } }',
    'kubeletApi: { enabled: false }',
    'nodes:',
    ...o.nodeLines,
    '',
  ].join('\n'));
  const all = new Map<string, CliProcess>();
  t.teardown(() => {
    if (!t.passing()) for (const [id, cli] of all) console.error(`--- ${id} ---\n${(cli.output().stderr + cli.output().stdout).split('\n').slice(-40).join('\n')}`);
  });
  return {
    all,
    get: (identity) => all.get(identity),
    start: (identity) => {
      const cli = startCli(['run', '--config', configPath], {
        TETHER_LEADER_ELECTION_NAMESPACE: o.ns,
        TETHER_LEADER_ELECTION_IDENTITY: identity,
        TETHER_LEADER_ELECTION_LEASE_DURATION_MS: String(o.timings.leaseDurationMs),
        TETHER_LEADER_ELECTION_RENEW_DEADLINE_MS: String(o.timings.renewDeadlineMs),
        TETHER_LEADER_ELECTION_RETRY_PERIOD_MS: String(o.timings.retryPeriodMs),
      });
      all.set(identity, cli);
      t.teardown(async () => {
        if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
        await cli.done;
      });
      return cli;
    },
  };
}
