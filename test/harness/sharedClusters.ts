/**
 * Two clusters for the whole test run, "host" (where Tether's nodes register) and "remote" (a
 * provider cluster), started once by tap's `before` script (sharedClusters.before.ts) and stopped by
 * its `after` script. Test files attach to
 * them with `useSharedClusters(t)` and isolate themselves by namespace (`testNamespace`).
 * State and logs live in .tether/test-clusters/run-<tap pid>/ (state.json, host/, remote/).
 * Run outside tap's `before` (e.g. one file under plain node), a test starts its own pair instead.
 * Tests that stop an API server must start a dedicated cluster with `startCluster`.
 * Only files under test/e2e/ may ask for a cluster: `npm run test:unit` runs everything else with
 * no cluster at all, and sets {@link NO_CLUSTERS_ENV} so that a test asking for one fails at once.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attachCluster, type ClusterAccess, type ClusterDescription } from '../../src/harness/clusterAccess.js';
import { startCluster, type Cluster, type StartClusterOptions } from '../../src/harness/controlPlane.js';
import { groupAlive } from '../../src/harness/processes.js';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_CLUSTERS_ROOT = join(REPO_ROOT, '.tether', 'test-clusters');

/**
 * Each tap run gets its own clusters, keyed by the tap process's pid: the `before` script and the
 * test files are all children of that process, and two engineers (or CI and an engineer) may run
 * tap in one checkout at once.
 */
export function runDir(tapPid: number): string {
  return join(SHARED_CLUSTERS_ROOT, `run-${tapPid}`);
}

export function stateFile(tapPid: number): string {
  return join(runDir(tapPid), 'state.json');
}

export const SHARED_CLUSTER_NAMES = ['host', 'remote'] as const;
export type SharedClusterName = (typeof SHARED_CLUSTER_NAMES)[number];
export type SharedClusters = Readonly<Record<SharedClusterName, ClusterAccess>>;

export interface SharedClustersState {
  /** The tap process that ran `before`; the watchdog tears the clusters down when it dies. */
  ownerPid: number;
  watchdogPid: number;
  startedAt: string;
  startupMs: number;
  clusters: Record<SharedClusterName, ClusterDescription>;
}

/** The part of a tap Test this module needs. */
export interface TeardownHost {
  teardown(fn: () => unknown): void;
}

export interface ReportingHost extends TeardownHost {
  passing(): boolean;
}

/**
 * Set to a state file to use standing clusters (started once by `tools/dev/standing-clusters.sh`)
 * instead of the tap run's own, so several checkouts can share one host/remote pair.
 */
export const STANDING_CLUSTERS_ENV = 'TETHER_TEST_CLUSTERS_STATE';

/** The state of this process's tap run: tap is the parent of both `before` and each test file. */
export function readState(path = process.env[STANDING_CLUSTERS_ENV] || stateFile(process.ppid)): SharedClustersState | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as SharedClustersState;
}

/** A state file is usable while every component it names is still running. */
export function isLive(state: SharedClustersState, alive: (pid: number) => boolean = groupAlive): boolean {
  return SHARED_CLUSTER_NAMES.every((name) => Object.values(state.clusters[name].pids).every((pid) => pid > 0 && alive(pid)));
}

/** Set to `1` by `npm run test:unit`, the layer of tests that run without a cluster. */
export const NO_CLUSTERS_ENV = 'TETHER_TEST_NO_CLUSTERS';

/** Throws in the unit run: a test that needs a cluster belongs in test/e2e/. */
export function refuseClustersInUnitRun(env: NodeJS.ProcessEnv = process.env): void {
  if (env[NO_CLUSTERS_ENV] === '1') {
    throw new Error(`this test asks for a cluster, but the unit run (npm run test:unit, ${NO_CLUSTERS_ENV}=1) starts none: a test that needs one belongs in test/e2e/`);
  }
}

export async function useSharedClusters(t: TeardownHost): Promise<SharedClusters> {
  refuseClustersInUnitRun();
  const state = readState();
  if (state && isLive(state)) return { host: attachCluster(state.clusters.host), remote: attachCluster(state.clusters.remote) };
  const [host, remote] = await Promise.all([
    startCluster({ name: `host-${process.pid}` }),
    startCluster({ name: `remote-${process.pid}` }),
  ]);
  t.teardown(() => Promise.all([host.stop(), remote.stop()]));
  return { host, remote };
}

/**
 * A cluster of the test's own, for tests that disturb it (stopping its API server, say): stopped at
 * teardown, after its component logs are printed if the test failed.
 */
export async function startDedicatedCluster(t: ReportingHost, options: StartClusterOptions): Promise<Cluster> {
  refuseClustersInUnitRun();
  const cluster = await startCluster({ ...options, name: `${options.name}-${process.pid}` });
  t.teardown(async () => {
    if (!t.passing()) console.error(cluster.logReport());
    await cluster.stop();
  });
  return cluster;
}

/** Prints the clusters' component logs at teardown if the test failed. */
export function reportLogsOnFailure(t: ReportingHost, clusters: readonly ClusterAccess[]): void {
  t.teardown(() => {
    if (!t.passing()) for (const cluster of clusters) console.error(cluster.logReport());
  });
}

/** A unique namespace name: tests sharing clusters never touch each other's objects. */
export function uniqueNamespace(prefix: string): string {
  const base = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40).replace(/-+$/, '');
  return `${base}-${randomBytes(3).toString('hex')}`;
}

/** Creates a fresh namespace in `cluster` and deletes it (without waiting) at teardown. */
export async function testNamespace(t: TeardownHost, cluster: ClusterAccess, prefix: string): Promise<string> {
  const name = uniqueNamespace(prefix);
  await cluster.kubectl(['create', 'namespace', name]);
  t.teardown(() => cluster.kubectl(['delete', 'namespace', name, '--wait=false']).catch(() => undefined));
  // Pods are refused (403, serviceaccount "default" not found) until the controller manager has
  // made the namespace's default ServiceAccount: wait for it, so no test races it.
  await cluster.kubectl(['wait', '--for=create', 'serviceaccount/default', '-n', name, '--timeout=60s']);
  return name;
}
