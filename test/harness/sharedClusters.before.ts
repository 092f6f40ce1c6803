/**
 * tap `before` script (.taprc): starts the shared "host" and "remote" clusters once per run,
 * releases their processes so they outlive this script, records them in .tether/test-clusters.json,
 * and leaves a watchdog that stops them if tap dies without running the `after` script.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../../src/harness/controlPlane.js';
import { SHARED_CLUSTER_NAMES, SHARED_CLUSTERS_DIR, STATE_FILE, type SharedClustersState } from './sharedClusters.js';

const started = Date.now();
await mkdir(SHARED_CLUSTERS_DIR, { recursive: true });
const results = await Promise.allSettled(
  SHARED_CLUSTER_NAMES.map((name) => startCluster({ name, dir: join(SHARED_CLUSTERS_DIR, name) })),
);
const clusters = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
if (failures.length > 0) {
  await Promise.all(clusters.map((c) => c.stop({ keepDir: true })));
  for (const failure of failures) console.error(failure instanceof Error ? failure.message : failure);
  process.exit(1);
}
const [host, remote] = clusters as [Cluster, Cluster];
const startupMs = Date.now() - started;
const pgids = clusters.flatMap((c) => Object.values(c.describe().pids));
const state: SharedClustersState = {
  ownerPid: process.ppid,
  watchdogPid: startWatchdog(process.ppid, pgids),
  startedAt: new Date(started).toISOString(),
  startupMs,
  clusters: { host: host.release(), remote: remote.release() },
};
await writeFile(STATE_FILE, JSON.stringify(state, null, 2) + '\n');
console.error(`# shared clusters host (${host.server}) and remote (${remote.server}) ready in ${startupMs} ms`);

/** A detached shell that kills the clusters' process groups once the tap process is gone. */
function startWatchdog(ownerPid: number, groups: readonly number[]): number {
  const kill = (signal: string): string => groups.map((g) => `kill -${signal} -- -${g} 2>/dev/null`).join('; ');
  const script = `while kill -0 ${ownerPid} 2>/dev/null; do sleep 1; done; ${kill('TERM')}; sleep 5; ${kill('KILL')}`;
  const watchdog = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog.pid ?? 0;
}
