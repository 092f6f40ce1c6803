/**
 * metrics-server for one cluster, run as a process on this machine the way its manifests run it in
 * a cluster: as its service account (a client certificate for that identity, signed by the cluster
 * CA), serving the Metrics API on a non-loopback address that the cluster's APIService reaches
 * through a selector-less Service and a hand-made EndpointSlice (metricsServerManifests.ts), and
 * scraping every node's kubelet at its InternalIP and advertised port. Only clusters that need it
 * get it: a test's own cluster, or the sandbox's host cluster.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mintClientCertificate, mintServingCertificate, readPem } from './certificates.js';
import type { Cluster } from './controlPlane.js';
import { metricsServerArgs } from './componentFlags.js';
import { renderKubeconfig } from './kubeconfig.js';
import { metricsServerBinary } from './metricsServerBinary.js';
import {
  METRICS_API_SERVICE, METRICS_SERVER_DNS_NAME, METRICS_SERVER_IDENTITY, METRICS_SERVER_NAME, metricsServerManifest,
} from './metricsServerManifests.js';
import { GiveUp, waitFor } from './poll.js';
import { freePort } from './ports.js';
import { readLogTail, startProcess, type ManagedProcess } from './processes.js';

export interface MetricsServerOptions {
  /** A non-loopback address of this machine, e.g. a harness network namespace's host-side address. */
  readonly address: string;
  /** Default: built by tools/metrics-server/build.sh (or TETHER_METRICS_SERVER_BIN_DIR). */
  readonly binary?: string;
  /** Default 10s, the least metrics-server accepts, so tests and the sandbox see usage soon. */
  readonly metricResolution?: string;
  readonly readyTimeoutMs?: number;
}

export interface MetricsServer {
  readonly address: string;
  readonly port: number;
  readonly logPath: string;
  readonly process: ManagedProcess;
  logs(lines?: number): string;
  /** Removes the APIService (so the cluster's discovery is whole again) and stops the process. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;

/** Starts metrics-server against `cluster` and waits until the API server reports the Metrics API Available. */
export async function startMetricsServer(cluster: Cluster, options: MetricsServerOptions): Promise<MetricsServer> {
  const binary = options.binary ?? (await requireBinary());
  const dir = join(cluster.dir, METRICS_SERVER_NAME);
  await mkdir(dir, { recursive: true });
  const { ca } = cluster.credentials;
  const [client, serving, caPem] = await Promise.all([
    mintClientCertificate(ca, dir, METRICS_SERVER_IDENTITY),
    mintServingCertificate(ca, dir, METRICS_SERVER_NAME, { ips: [options.address], dns: [METRICS_SERVER_DNS_NAME] }),
    readPem(ca.certPath),
  ]);
  const [certPem, keyPem] = await Promise.all([readPem(client.certPath), readPem(client.keyPath)]);
  const kubeconfig = join(dir, 'metrics-server.kubeconfig');
  await writeFile(kubeconfig, renderKubeconfig({ name: cluster.name, server: cluster.server, caPem, user: { kind: 'certificate', certPem, keyPem } }), { mode: 0o600 });
  const port = await freePort(options.address);

  await cluster.kubectl(['apply', '-f', '-'], { input: metricsServerManifest({ address: options.address, port, caPem }) });
  const logPath = join(cluster.dir, 'logs', `${METRICS_SERVER_NAME}.log`);
  const proc = startProcess({
    name: METRICS_SERVER_NAME, command: binary, logPath, cwd: dir,
    args: metricsServerArgs({
      kubeconfig, address: options.address, port, serving,
      metricResolution: options.metricResolution ?? '10s', kubeletRequestTimeout: '5s',
    }),
  });
  const logs = (lines = 40): string => readLogTail(logPath, lines);
  const stop = async (): Promise<void> => {
    await cluster.kubectl(['delete', 'apiservice', METRICS_API_SERVICE, '--ignore-not-found', '--wait=false'], { timeoutMs: 10_000 }).catch(() => undefined);
    await proc.stop(STOP_GRACE_MS);
  };
  try {
    await waitFor(`${cluster.name}: APIService ${METRICS_API_SERVICE} Available`, async () => {
      if (!proc.running) throw new GiveUp(`metrics-server exited (${JSON.stringify(proc.status)}) before serving:\n${logs(30)}`);
      const status = await cluster.kubectl(['get', 'apiservice', METRICS_API_SERVICE, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}']);
      return status.trim() === 'True';
    }, { timeoutMs: options.readyTimeoutMs ?? 60_000, intervalMs: 250 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { address: options.address, port, logPath, process: proc, logs, stop };
}

async function requireBinary(): Promise<string> {
  const found = await metricsServerBinary();
  if (!found.available) throw new Error(found.reason);
  return found.path;
}
