/**
 * The attacks of issue 22 on a hostile environment (hostileSetup.ts), each bounded by bytes and by
 * time and stopping by itself, each returning what the attacker saw. `measured` runs one while
 * another user keeps using the node and reports what a case is judged on: the same process
 * before and after, its RSS before / peak / after, its CPU, the longest gap between Lease renewals
 * of each node, and the other user's exec / port-forward / top during and after. The e2e test
 * asserts on these; `npm run bench:hostile` prints them.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { encodeData, encodePing } from '../../src/adapters/spdy/frames.js';
import { PORT_FORWARD_TUNNEL_PROTOCOL } from '../../src/adapters/spdy/tunnelProtocol.js';
import { RssPeak } from '../../bench/measure.js';
import {
  abandonedUpgrades, clientFrame, flood, getStatus, oneBytePerMessage, openWebSocket, type FloodResult,
} from './hostileClients.js';
import { waitFor } from '../../src/harness/poll.js';
import { POD_PORT, RENEW_INTERVAL_MS, type HostileEnvironment } from './hostileSetup.js';
import { execCheck, portForwardCheck, probeWhile, topCheck, type CheckResult, type PodRef } from './serviceChecks.js';

export interface Measure {
  readonly pidBefore: number;
  /** The pid of the Tether process at the end, if one runs. */
  readonly pidAfter: number | undefined;
  readonly sameProcess: boolean;
  readonly rssBeforeMiB: number;
  readonly rssPeakMiB: number;
  readonly rssAfterMiB: number;
  readonly cpuSeconds: number;
  /** The longest time without a Lease renewal during the case, per node. */
  readonly renewalLagMs: { readonly simulated: number; readonly offloading: number };
  readonly during: readonly CheckResult[];
  readonly after: readonly CheckResult[];
  readonly elapsedMs: number;
}

export interface MeasureOptions {
  /** Pods another user execs in while the attack runs (default: victim). */
  readonly probe?: readonly PodRef[];
  /** Whether `kubectl top` is checked after (metrics-server runs). */
  readonly top: boolean;
}

const safe = (read: () => number): number => {
  try {
    return read();
  } catch {
    return Number.NaN;
  }
};

/** Another user's exec, port-forward and top on victim, and exec on the offloaded pod. */
export async function serviceChecks(env: HostileEnvironment, top: boolean): Promise<CheckResult[]> {
  const results = [await execCheck(env.host, env.victim), await portForwardCheck(env.host, env.victim, POD_PORT), await execCheck(env.host, env.offloaded)];
  if (top) results.push(await topSoon(env));
  return results;
}

/**
 * `kubectl top` within a minute: metrics-server scrapes every 15 s and drops a pod whose scrape
 * failed (or whose node's process was started again), so "top works afterwards" is "it works
 * again within a few of its scrapes", not "the very next call".
 */
async function topSoon(env: HostileEnvironment): Promise<CheckResult> {
  const seen: CheckResult[] = [];
  await waitFor('kubectl top pod victim', async () => {
    const result = await topCheck(env.host, env.victim);
    seen.push(result);
    return result.ok;
  }, { timeoutMs: 60_000, intervalMs: 3_000 }).catch(() => undefined);
  const last = seen.at(-1) as CheckResult;
  return seen.length > 1 ? { ...last, detail: `${last.detail} (try ${seen.length})` } : last;
}

export async function measured<T>(env: HostileEnvironment, options: MeasureOptions, attack: () => Promise<T>): Promise<{ result: T; measure: Measure }> {
  const { tether } = env;
  const pidBefore = tether.pid;
  const rssBeforeMiB = tether.rssMiB();
  const cpuBefore = tether.cpuSeconds();
  const exactPeak = tether.resetPeak();
  const sampler = new RssPeak(pidBefore, 100);
  const started = Date.now();
  const running = attack();
  const probes = options.probe ?? [env.victim];
  let turn = 0;
  const during = probeWhile(running, () => execCheck(env.host, probes[turn++ % probes.length] as PodRef));
  let result: T;
  try {
    result = await running;
  } finally {
    await during.catch(() => undefined);
  }
  const ended = Date.now();
  const leases = [env.simulated.leases, env.offloading.leases];
  await Promise.all(leases.map((l) => l.renewalAfter(ended, 3 * RENEW_INTERVAL_MS)));
  const now = Date.now();
  const [simulated, offloading] = leases.map((l) => l.lag(started, ended, now)) as [number, number];
  const after = await serviceChecks(env, options.top);
  const alive = tether.running() && tether.pid === pidBefore;
  const rssPeakMiB = Math.max(sampler.peakMiB(), exactPeak && alive ? safe(() => tether.peakMiB()) : 0);
  sampler.stop();
  return {
    result,
    measure: {
      pidBefore, pidAfter: tether.running() ? tether.pid : undefined, sameProcess: alive,
      rssBeforeMiB, rssPeakMiB, rssAfterMiB: alive ? safe(() => tether.rssMiB()) : Number.NaN,
      cpuSeconds: alive ? safe(() => tether.cpuSeconds()) - cpuBefore : Number.NaN,
      renewalLagMs: { simulated, offloading }, during: await during, after, elapsedMs: ended - started,
    },
  };
}

/** `count` exec upgrades of the bait pod as the attacker, each abandoned before the server's checks finish. */
export function abandonUpgrades(env: HostileEnvironment, count: number, identity: 'token' | 'certificate' = 'token', afterMs = 0): Promise<number> {
  const path = `/exec/${env.bait.namespace}/${env.bait.pod}/app?command=echo&command=hi&output=1`;
  return abandonedUpgrades(env.simulated.kubelet, path, identity === 'token' ? env.attackerToken : env.attacker, count, afterMs);
}

function* repeat(buffer: Buffer, times: number): Generator<Buffer> {
  for (let i = 0; i < times; i++) yield buffer;
}

const PINGS_PER_MESSAGE = 1024;

export interface PingFloodResult extends FloodResult {
  readonly pingsSent: number;
}

/** A port-forward tunnel to bait that sends up to `pings` SPDY PINGs (1,024 per message) and reads nothing. */
export async function pingFlood(env: HostileEnvironment, pings: number, budgetMs: number): Promise<PingFloodResult> {
  const tunnel = await openWebSocket(env.simulated.kubelet, `/portForward/${env.bait.namespace}/${env.bait.pod}`, PORT_FORWARD_TUNNEL_PROTOCOL, env.attacker);
  // Odd ids: the client's, which the server echoes.
  const message = clientFrame(Buffer.concat(Array.from({ length: PINGS_PER_MESSAGE }, () => encodePing(1))));
  const result = await flood(tunnel, repeat(message, Math.ceil(pings / PINGS_PER_MESSAGE)), budgetMs);
  return { ...result, pingsSent: Math.floor(result.bytesWritten / message.length) * PINGS_PER_MESSAGE };
}

/** A port-forward tunnel to bait that sends one SPDY DATA frame of `frameBytes`, a byte per WebSocket message. */
export async function framePerByte(env: HostileEnvironment, frameBytes: number, budgetMs: number): Promise<FloodResult & { readonly frameBytesSent: number }> {
  const tunnel = await openWebSocket(env.simulated.kubelet, `/portForward/${env.bait.namespace}/${env.bait.pod}`, PORT_FORWARD_TUNNEL_PROTOCOL, env.attacker);
  const result = await flood(tunnel, oneBytePerMessage(encodeData(1, Buffer.alloc(frameBytes))), budgetMs);
  return { ...result, frameBytesSent: Math.floor(result.bytesWritten / 7) };
}

export interface JunkTokenResult {
  /** Status of each made-up-token request, counted. */
  readonly junk: Readonly<Record<string, number>>;
  /** Status of each scrape with the scraper's (valid) token, in order. */
  readonly scrapes: readonly number[];
}

const tally = (statuses: readonly number[]): Record<string, number> =>
  statuses.reduce<Record<string, number>>((acc, s) => ({ ...acc, [String(s)]: (acc[String(s)] ?? 0) + 1 }), {});

/**
 * `perSecond` requests a second with made-up bearer tokens (from 127.0.0.1, another source than
 * everyone else's) for `durationMs`, while the scraper reads /metrics/resource twice a second with
 * its valid token, as metrics-server does in a cluster. The scraper's token was used once before.
 */
export async function junkTokens(env: HostileEnvironment, perSecond: number, durationMs: number): Promise<JunkTokenResult> {
  const target = env.simulated.kubelet;
  const total = Math.round((perSecond * durationMs) / 1000);
  const started = Date.now();
  const junk: Promise<number>[] = [];
  const sent = (async () => {
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / perSecond;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
      junk.push(getStatus(target, '/pods', { token: randomBytes(24).toString('hex') }, '127.0.0.1'));
    }
  })();
  const scrapes: number[] = [];
  let done = false;
  const mark = (): void => void (done = true);
  sent.then(mark, mark);
  while (!done) {
    const next = Date.now() + 500;
    scrapes.push(await getStatus(target, '/metrics/resource', env.scraper));
    if (next > Date.now()) await new Promise((resolve) => setTimeout(resolve, next - Date.now()));
  }
  await sent;
  return { junk: tally(await Promise.all(junk)), scrapes };
}

export interface StdinFloodResult {
  readonly offeredBytes: number;
  /** What kubectl's stdin took before the pipe stopped taking more (or the offer ran out). */
  readonly acceptedBytes: number;
  /** The pipe stopped taking bytes for `stallMs` (backpressure reached the client). */
  readonly stalled: boolean;
  /** kubectl's stderr, if it ended by itself. */
  readonly kubectlEnded?: string;
}

/**
 * `head -c offeredBytes /dev/zero | kubectl exec -i offloaded -- sleep 3600`, written from here in
 * 1 MiB chunks as fast as the pipe takes them: it stops when the offer is written, when the pipe has
 * not taken a chunk for `stallMs`, or after `budgetMs`; then kubectl is stopped.
 */
export async function stdinFlood(env: HostileEnvironment, offeredBytes: number, options: { budgetMs: number; stallMs: number }): Promise<StdinFloodResult> {
  const { kubectlPath } = env.host.describe();
  const child = spawn(kubectlPath, [`--kubeconfig=${env.host.kubeconfigPath}`, 'exec', '-i', env.offloaded.pod, '-n', env.offloaded.namespace, '--', 'sleep', '3600'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  const chunk = Buffer.alloc(1024 * 1024);
  const deadline = Date.now() + options.budgetMs;
  let acceptedBytes = 0;
  let stalled = false;
  let endedBySelf = false;
  try {
    while (acceptedBytes < offeredBytes && !ended && Date.now() < deadline) {
      acceptedBytes += chunk.length;
      if (child.stdin.write(chunk)) continue;
      const drained = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), Math.min(options.stallMs, Math.max(0, deadline - Date.now())));
        child.stdin.once('drain', () => {
          clearTimeout(timer);
          resolve(true);
        });
        void exited.then(() => resolve(false));
      });
      if (!drained && !ended && Date.now() < deadline) stalled = true;
      if (!drained) break;
    }
    endedBySelf = ended;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return { offeredBytes, acceptedBytes, stalled, ...(endedBySelf ? { kubectlEnded: stderr.trim() } : {}) };
}
