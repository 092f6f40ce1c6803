/**
 * tap `after` script (.taprc): stops the shared clusters recorded by the `before` script and
 * retires the watchdog. Logs stay in .tether/test-clusters/run-<tap pid>/ until a later run prunes
 * them; etcd data goes now.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { stopDescribedCluster } from '../../src/harness/controlPlane.js';
import { readState, SHARED_CLUSTER_NAMES, stateFile } from './sharedClusters.js';

const state = readState(stateFile(process.ppid));
if (state) {
  try {
    if (state.watchdogPid > 0) process.kill(-state.watchdogPid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await Promise.all(SHARED_CLUSTER_NAMES.map(async (name) => {
    await stopDescribedCluster(state.clusters[name]);
    await rm(join(state.clusters[name].dir, 'etcd'), { recursive: true, force: true });
  }));
  await rm(stateFile(process.ppid), { force: true });
}
