/**
 * tap `before` script (.taprc): starts the shared "host" and "remote" clusters once per run,
 * releases their processes so they outlive this script, records them in .tether/test-clusters.json,
 * and leaves a watchdog that stops them if tap dies without running the `after` script.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../../src/harness/controlPlane.js';
import { runDir, SHARED_CLUSTER_NAMES, SHARED_CLUSTERS_ROOT, stateFile, type SharedClustersState } from './sharedClusters.js';

const tapPid = process.ppid;
const started = Date.now();
await pruneFinishedRuns();
const dir = runDir(tapPid);
await mkdir(dir, { recursive: true });
const results = await Promise.allSettled(
  SHARED_CLUSTER_NAMES.map((name) => startCluster({ name, dir: join(dir, name) })),
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
  ownerPid: tapPid,
  watchdogPid: startWatchdog(tapPid, pgids),
  startedAt: new Date(started).toISOString(),
  startupMs,
  clusters: { host: host.release(), remote: remote.release() },
};
await writeFile(stateFile(tapPid), JSON.stringify(state, null, 2) + '\n');
console.error(`# shared clusters host (${host.server}) and remote (${remote.server}) ready in ${startupMs} ms`);

/** Removes the directories (kept logs) of earlier runs whose tap process is gone. */
async function pruneFinishedRuns(): Promise<void> {
  const entries = await readdir(SHARED_CLUSTERS_ROOT).catch(() => [] as string[]);
  await Promise.all(entries.map(async (entry) => {
    const pid = Number(/^run-(\d+)$/.exec(entry)?.[1] ?? NaN);
    if (Number.isInteger(pid) && !alive(pid)) await rm(join(SHARED_CLUSTERS_ROOT, entry), { recursive: true, force: true });
  }));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A detached shell that kills the clusters' process groups once the tap process is gone. */
function startWatchdog(ownerPid: number, groups: readonly number[]): number {
  const kill = (signal: string): string => groups.map((g) => `kill -${signal} -- -${g} 2>/dev/null`).join('; ');
  const script = `while kill -0 ${ownerPid} 2>/dev/null; do sleep 1; done; ${kill('TERM')}; sleep 5; ${kill('KILL')}`;
  const watchdog = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
  return watchdog.pid ?? 0;
}
