/**
 * The hostile clients of issue 22 against a real `tether run` (dist/src/cli/main.js, in a process
 * of its own) on two real control planes (`npm run bench:hostile`): the same environment and the
 * same attacks as test/e2e/hostileClient.test.ts (test/support/hostileSetup.ts and
 * hostileScenarios.ts), with the figures printed instead of judged. After a scenario that ended
 * the process or left another user's checks failing, Tether is started afresh, so one attack's
 * damage is not charged to the next.
 *
 * Per scenario: the Tether process's RSS (VmRSS) just before, its peak during the attack (the
 * kernel's high-water mark, reset at the start), and after another user's checks; its CPU
 * (utime + stime) over the attack and the checks; the longest time either node's Lease went
 * unrenewed (renew interval 2 s); whether the process survived; what the attacker saw; and how
 * many of another user's exec / port-forward / top failed during and after. Root and network
 * namespaces are needed (the kubelet APIs listen on a namespace's host-side address).
 *
 *   npm run bench:hostile                   # every scenario
 *   npm run bench:hostile -- --only stdin   # one (malformed, abandoned, tokens, frame, stdin, ping)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from '../src/harness/controlPlane.js';
import { startMetricsServer } from '../src/harness/metricsServer.js';
import { metricsServerBinary } from '../src/harness/metricsServerBinary.js';
import { networkNamespaceSupport } from '../src/harness/networkNamespace.js';
import { exchange, getStatus } from '../test/support/hostileClients.js';
import {
  abandonUpgrades, framePerByte, junkTokens, measured, pingFlood, stdinFlood, type Measure,
} from '../test/support/hostileScenarios.js';
import { setUpHostileEnvironment, type HostileEnvironment } from '../test/support/hostileSetup.js';
import { malformedRequests } from '../test/support/malformedRequests.js';
import { benchLog, repositoryRoot, runBench } from './clusterBench.js';
import { fmt } from './measure.js';

const SCENARIOS = ['malformed', 'abandoned', 'tokens', 'frame', 'stdin', 'ping'] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values: flags } = parseArgs({ options: { only: { type: 'string' } } });
const chosen: readonly Scenario[] = flags.only ? flags.only.split(',').map((s) => {
  if (!(SCENARIOS as readonly string[]).includes(s)) throw new Error(`--only takes ${SCENARIOS.join(', ')}; got ${s}`);
  return s as Scenario;
}) : SCENARIOS;

const log = benchLog('bench:hostile');

interface Row {
  readonly scenario: string;
  readonly measure: Measure;
  /** What the attacker saw, in a few words. */
  readonly seen: string;
}

/** The corpus of malformed requests, each followed by a /healthz: how many were answered as expected, and how many ended the process. */
async function malformed(env: HostileEnvironment): Promise<string> {
  let expected = 0;
  let ended = 0;
  const requests = malformedRequests(env.bait);
  for (const request of requests) {
    if (!env.tether.running()) await env.ensureTether();
    const answer = await exchange(env.simulated.kubelet, await request.bytes(), {
      ...(request.plain ? { plain: true } : {}), ...(request.endAfterWrite ? { endAfterWrite: true } : {}),
      ...(request.authorized ? { identity: env.attacker } : {}),
    });
    const ok = 'statuses' in request.expect ? request.expect.statuses.includes(answer.status ?? 0) : answer.status === undefined && answer.ended === 'closed';
    if (ok) expected++;
    if ((await getStatus(env.simulated.kubelet, '/healthz', env.attacker)) !== 200) {
      ended++;
      await env.tether.stop();
    }
  }
  if (!env.tether.running()) await env.ensureTether();
  return `${expected}/${requests.length} answered as a kubelet answers; ${ended} ended the process`;
}

async function run(env: HostileEnvironment, scenario: Scenario, top: boolean): Promise<Row> {
  const mib = (bytes: number): string => `${fmt(bytes / 1024 / 1024, 0)} MiB`;
  switch (scenario) {
    case 'malformed': {
      const { result, measure } = await measured(env, { top }, () => malformed(env));
      return { scenario: 'malformed requests (the corpus, 30 shapes)', measure, seen: result };
    }
    case 'abandoned': {
      const { result, measure } = await measured(env, { top }, () => abandonUpgrades(env, 100));
      return { scenario: '100 exec upgrades reset during the checks', measure, seen: `${result} written and reset` };
    }
    case 'tokens': {
      await getStatus(env.simulated.kubelet, '/metrics/resource', env.scraper);
      const { result, measure } = await measured(env, { top }, () => junkTokens(env, 40, 10_000));
      const refused = result.scrapes.filter((s) => s !== 200).length;
      return { scenario: '40 made-up tokens/s for 10 s', measure, seen: `junk ${JSON.stringify(result.junk)}; ${refused}/${result.scrapes.length} valid scrapes refused` };
    }
    case 'frame': {
      const { result, measure } = await measured(env, { top }, () => framePerByte(env, 1024 * 1024, 25_000));
      return { scenario: '1 MiB SPDY frame, a byte per message (25 s)', measure, seen: `${fmt(result.frameBytesSent / 1024, 0)} KiB of the frame sent${result.closedByServer ? ', then closed by Tether' : ''}` };
    }
    case 'stdin': {
      const { result, measure } = await measured(env, { top, probe: [env.victim, env.offloaded] }, () => stdinFlood(env, 512 * 1024 * 1024, { budgetMs: 20_000, stallMs: 5_000 }));
      return { scenario: '512 MiB into kubectl exec -i … sleep (offloaded)', measure, seen: `the pipe took ${mib(result.acceptedBytes)}${result.stalled ? ', then stalled' : ''}` };
    }
    case 'ping': {
      const { result, measure } = await measured(env, { top }, () => pingFlood(env, 1_000_000, 30_000));
      return { scenario: 'SPDY PING flood, nothing read (1,000,000)', measure, seen: `${fmt(result.pingsSent, 0)} PINGs written; ${result.closedByServer ? 'closed by Tether' : 'never closed'}` };
    }
  }
}

function table(rows: readonly Row[]): string {
  const failed = (m: Measure): string => {
    const bad = [...m.during, ...m.after].filter((c) => !c.ok);
    return bad.length === 0 ? 'none' : bad.map((c) => `${c.check} ${c.pod}`).join(', ');
  };
  return [
    '| scenario | RSS before MiB | RSS peak MiB | RSS after MiB | CPU s | longest Lease gap s | same process | another user\'s failures | the attacker saw |',
    '|---|---:|---:|---:|---:|---:|---|---|---|',
    ...rows.map(({ scenario, measure: m, seen }) => `| ${scenario} | ${fmt(m.rssBeforeMiB, 0)} | ${fmt(m.rssPeakMiB, 0)} | ${fmt(m.rssAfterMiB, 0)} | ${fmt(m.cpuSeconds)} | ${fmt(Math.max(m.renewalLagMs.simulated, m.renewalLagMs.offloading) / 1000)} | ${m.sameProcess ? 'yes' : 'no'} | ${failed(m)} | ${seen} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const support = await networkNamespaceSupport();
  if (!support.available) throw new Error(`the hostile-client bench needs network namespaces: ${support.reason}`);
  const binary = await metricsServerBinary({ cachedOnly: true });
  const cleanups: Array<() => unknown> = [];
  const clusters: Cluster[] = [];
  try {
    log('starting a host and a remote cluster');
    const [host, remote] = await Promise.all([startCluster({ name: 'bench-hostile-host' }), startCluster({ name: 'bench-hostile-remote' })]);
    clusters.push(host, remote);
    const env = await setUpHostileEnvironment({
      host, remote, dir: mkdtempSync(join(tmpdir(), 'tether-bench-hostile-')),
      cli: (args) => ({ command: process.execPath, args: [join(repositoryRoot, 'dist', 'src', 'cli', 'main.js'), ...args] }),
      cleanup: (fn) => void cleanups.push(fn), log,
    });
    const top = binary.available;
    if (binary.available) {
      const metrics = await startMetricsServer(host, { address: env.address, binary: binary.path });
      cleanups.push(() => metrics.stop());
    } else log(`kubectl top not checked: ${binary.reason}`);
    const rows: Row[] = [];
    for (const scenario of chosen) {
      const last = rows.at(-1)?.measure;
      await env.ensureTether(last !== undefined && (!last.sameProcess || [...last.during, ...last.after].some((c) => !c.ok)));
      log(`${scenario}: tether run pid ${env.tether.pid}, ${fmt(env.tether.rssMiB(), 0)} MiB`);
      const row = await run(env, scenario, top);
      log(`${scenario}: ${row.seen}`);
      rows.push(row);
    }
    process.stdout.write(`${table(rows)}\n`);
  } finally {
    for (const fn of cleanups.reverse()) await Promise.resolve().then(fn).catch(() => undefined);
    await Promise.all(clusters.map((c) => c.stop()));
  }
}

runBench('bench:hostile', main);
