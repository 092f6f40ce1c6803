/**
 * tap `after` script (.taprc): stops the shared clusters recorded by the `before` script (their
 * logs stay in .tether/test-clusters/ for inspection) and retires the watchdog.
 */
import { rm } from 'node:fs/promises';
import { stopDescribedCluster } from '../../src/harness/controlPlane.js';
import { readState, SHARED_CLUSTER_NAMES, STATE_FILE } from './sharedClusters.js';

const state = readState();
if (state) {
  try {
    if (state.watchdogPid > 0) process.kill(-state.watchdogPid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await Promise.all(SHARED_CLUSTER_NAMES.map((name) => stopDescribedCluster(state.clusters[name])));
  await rm(STATE_FILE, { force: true });
}
