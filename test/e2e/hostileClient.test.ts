/**
 * The kubelet port against hostile clients (issue 22), on the real control plane: a real
 * `tether run` in a process of its own (test/support/hostileSetup.ts: a simulated node and an
 * offloading node, kubelet APIs on a harness network namespace's address), attacked straight on
 * its kubelet port by raw TLS / WebSocket / SPDY clients (test/support/hostileClients.ts) while
 * another user (the admin, through the API server) keeps using the node. Each case is judged on:
 * - the Tether process is the same process afterwards (same pid, still running);
 * - its RSS stays within a stated bound above what it was before the case (RSS_BOUND_MIB; the
 *   stdin case STDIN_RSS_BOUND_MIB);
 * - each node's Lease is never left unrenewed for more than twice its renew interval plus one
 *   interval of slack for a shared machine (2 s, so 6 s, under the 10 s lease): a functional bound
 *   on lateness, the node lifecycle controller's view of the node, not a wall-clock bound on the
 *   attack (the quadratic frame reader this catches stalled the event loop for tens of seconds);
 * - another user's `kubectl exec` works during the attack, and `kubectl exec`, `kubectl
 *   port-forward` and `kubectl top` (when metrics-server is built) work after it.
 * A case that ends the process (or leaves the node unusable) is followed by a fresh `tether run`,
 * so each case's evidence is its own. Every attack is bounded by bytes and by time and stops by
 * itself; all traffic goes to the namespace's host-side address or loopback.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { ClusterAccess } from '../../src/harness/clusterAccess.js';
import { startMetricsServer } from '../../src/harness/metricsServer.js';
import { metricsServerBinary } from '../../src/harness/metricsServerBinary.js';
import { networkNamespaceSupport } from '../../src/harness/networkNamespace.js';
import { cliCommand } from '../cli/cli.js';
import { reportLogsOnFailure, startDedicatedCluster, useSharedClusters } from '../harness/sharedClusters.js';
import { waitFor } from '../harness/waitFor.js';
import { exchange, getStatus } from '../support/hostileClients.js';
import { abandonUpgrades, framePerByte, junkTokens, measured, pingFlood, stdinFlood, type Measure } from '../support/hostileScenarios.js';
import { RENEW_INTERVAL_MS, setUpHostileEnvironment, type HostileEnvironment } from '../support/hostileSetup.js';
import { malformedRequests, type MalformedRequest } from '../support/malformedRequests.js';
import { topCheck } from '../support/serviceChecks.js';

const support = await networkNamespaceSupport();
const binary = support.available ? await metricsServerBinary({ cachedOnly: true }) : undefined;

/** RSS growth allowed during a case, over the RSS just before it. */
const RSS_BOUND_MIB = 64;
/** The stdin case: the pipe offers 512 MiB; Tether may hold no more than this of it. */
const STDIN_RSS_BOUND_MIB = 64;
/** The longest a node's Lease may go unrenewed: twice its renew interval, plus one of slack (the fixed frame reader once showed 3.8 s on the loaded 2-core VM). */
const LAG_BOUND_MS = 3 * RENEW_INTERVAL_MS;

const mib = (n: number): string => (Number.isNaN(n) ? 'n/a' : n.toFixed(0));

/** The judgement every case shares (see the file's comment). */
/** One row of the figures table per case (TETHER_HOSTILE_FIGURES=1 prints it; docs/benchmarks.md quotes it). */
const figures: string[] = [];

function judge(t: Test, env: HostileEnvironment, m: Measure, label: string, rssBoundMiB = RSS_BOUND_MIB): void {
  const lagS = (Math.max(m.renewalLagMs.simulated, m.renewalLagMs.offloading) / 1000).toFixed(1);
  figures.push(`| ${label} | ${mib(m.rssBeforeMiB)} | ${mib(m.rssPeakMiB)} | ${mib(m.rssAfterMiB)} | ${m.cpuSeconds.toFixed(1)} | ${lagS} |`);
  const exit = env.tether.exitStatus();
  t.ok(m.sameProcess, m.sameProcess ? `the same Tether process (pid ${m.pidBefore})`
    : `the same Tether process: pid ${m.pidBefore} ${exit ? `exited ${JSON.stringify(exit)}` : `is now ${m.pidAfter ?? 'none'}`}; its log ends:\n${env.tether.logTail(15)}`);
  const growth = m.rssPeakMiB - m.rssBeforeMiB;
  t.ok(growth <= rssBoundMiB, `RSS ${mib(m.rssBeforeMiB)} MiB before, peak ${mib(m.rssPeakMiB)} MiB (+${mib(growth)}, bound +${rssBoundMiB}), ${mib(m.rssAfterMiB)} MiB after; CPU ${m.cpuSeconds.toFixed(1)} s`);
  for (const [node, lag] of Object.entries(m.renewalLagMs)) {
    t.ok(lag <= LAG_BOUND_MS, `the ${node} node's Lease: longest gap between renewals ${(lag / 1000).toFixed(1)} s (bound ${LAG_BOUND_MS / 1000} s: twice the renew interval, plus one)`);
  }
  const failedDuring = m.during.filter((c) => !c.ok);
  t.same(failedDuring.map((c) => `${c.check} ${c.pod}: ${c.detail}`), [], `another user's kubectl exec during the attack (${m.during.length} tries)`);
  for (const c of m.after) t.ok(c.ok, `another user's kubectl ${c.check} in ${c.pod} afterwards: ${c.detail}`);
}

t.test('the kubelet port holds against hostile clients', { skip: support.available ? false : support.reason }, async (t) => {
  const shared = await useSharedClusters(t);
  const top = binary?.available === true;
  if (!top) t.comment(`kubectl top not checked: ${binary?.available === false ? binary.reason : 'no metrics-server'}`);
  // metrics-server's APIService changes the whole cluster's discovery: a host cluster of its own then.
  const dedicated = top ? await startDedicatedCluster(t, { name: 'hostile' }) : undefined;
  const host: ClusterAccess = dedicated ?? shared.host;
  reportLogsOnFailure(t, [host]);
  const cleanups: Array<() => unknown> = [];
  t.teardown(async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve().then(fn).catch(() => undefined);
  });
  const env = await setUpHostileEnvironment({
    host, remote: shared.remote, dir: mkdtempSync(join(tmpdir(), 'tether-hostile-')), cli: cliCommand,
    cleanup: (fn) => void cleanups.push(fn), log: (line) => t.comment(line),
  });
  t.teardown(() => {
    if (!t.passing()) console.error(`--- tether run (${env.tether.starts} started) ---\n${env.tether.logTail(80)}`);
  });
  if (dedicated) {
    const metrics = await startMetricsServer(dedicated, { address: env.address });
    cleanups.push(() => metrics.stop());
    await waitFor('kubectl top pod victim', async () => (await topCheck(host, env.victim)).ok, { timeoutMs: 90_000, intervalMs: 2_000 });
  }
  /** Set by a case that failed: the next one starts with a fresh process. */
  let broken = false;
  const fresh = async (t: Test): Promise<void> => {
    const how = await env.ensureTether(broken);
    if (how === 'restarted') t.comment(`tether run started again (pid ${env.tether.pid}) after the previous case`);
    broken = true;
    t.teardown(() => void (broken = !t.passing()));
  };

  /** One request of the corpus, then whether the process that read it still answers. */
  const oneMalformed = async (t: Test, request: MalformedRequest): Promise<void> => {
    await env.ensureTether();
    const pid = env.tether.pid;
    const answer = await exchange(env.simulated.kubelet, await request.bytes(), {
      ...(request.plain ? { plain: true } : {}), ...(request.endAfterWrite ? { endAfterWrite: true } : {}),
      ...(request.authorized ? { identity: env.attacker } : {}),
    });
    const seen = answer.status !== undefined ? `HTTP ${answer.status} (${answer.head.split('\r\n')[0] ?? ''})` : `no HTTP answer, connection ${answer.ended}${answer.error ? ` (${answer.error})` : ''}`;
    if ('statuses' in request.expect) t.ok(request.expect.statuses.includes(answer.status ?? 0), `${request.name}: ${seen}; expected ${request.expect.statuses.join(' or ')}`);
    else t.ok(answer.status === undefined && answer.ended === 'closed', `${request.name}: ${seen}; expected the connection closed`);
    // It answers after the request: it lives on. It does not: wait for its exit to say how it ended.
    const healthz = await getStatus(env.simulated.kubelet, '/healthz', env.attacker);
    if (healthz !== 200) await waitFor('the process to exit', () => !env.tether.running(), { timeoutMs: 10_000 }).catch(() => undefined);
    const alive = healthz === 200 && env.tether.running() && env.tether.pid === pid;
    t.ok(alive, alive ? `${request.name}: the process lives on` : `${request.name}: the process ended ${JSON.stringify(env.tether.exitStatus() ?? 'no')}:\n${env.tether.logTail(12)}`);
  };

  await t.test('malformed requests are answered as a kubelet answers them (or closed below HTTP) and end nothing', async (t) => {
    const corpus = malformedRequests(env.bait);
    const { measure } = await measured(env, { top }, async () => {
      for (const request of corpus) await oneMalformed(t, request);
    });
    judge(t, env, measure, `${corpus.length} malformed requests, one after another`);
  });

  // Known limit: on e9691a5 (slots leaked when the client left during the checks) this case did
  // not fail either, with a TCP reset, a FIN at 0 ms or FINs spread over 0-11 ms: from outside, the
  // client's leaving rarely lands inside the checks' window. The leak itself is shown at the unit
  // level (test/kubelet); this case guards the end-to-end path and the cap against regressions.
  await t.test('100 authorized exec upgrades abandoned before the checks finish leave no slot taken: another user\'s exec is not refused', async (t) => {
    await fresh(t);
    const { result, measure } = await measured(env, { top }, () => abandonUpgrades(env, 100));
    t.equal(result, 100, 'all 100 requests were written before their connections were destroyed');
    judge(t, env, measure, '100 abandoned exec upgrades');
    t.notOk([...measure.during, ...measure.after].some((c) => /429|too many concurrent streams/i.test(c.detail)), 'no 429 for another user');
  });

  await t.test('40 made-up bearer tokens a second do not stop a scraper with a valid token, nor kubectl top', async (t) => {
    await fresh(t);
    await waitFor('the scraper\'s token accepted once (as metrics-server\'s is, before any flood)', async () =>
      (await getStatus(env.simulated.kubelet, '/metrics/resource', env.scraper)) === 200, { timeoutMs: 20_000 });
    const { result, measure } = await measured(env, { top }, () => junkTokens(env, 40, 10_000));
    const junkTotal = Object.values(result.junk).reduce((a, b) => a + b, 0);
    t.equal(junkTotal, 400, `400 made-up-token requests answered: ${JSON.stringify(result.junk)}`);
    t.ok(Object.keys(result.junk).every((s) => s === '401' || s === '429'), 'each refused with 401 or 429, nothing else');
    t.ok(result.scrapes.length > 0, `${result.scrapes.length} scrapes during the flood`);
    t.same(result.scrapes.filter((s) => s !== 200), [], `every scrape with the valid token answered 200 (statuses: ${JSON.stringify(Object.entries(result.scrapes.reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {})))})`);
    judge(t, env, measure, '40 junk tokens/s for 10 s, scraper');
  });

  await t.test('a 1 MiB SPDY frame sent one byte per WebSocket message leaves the Leases renewed on time', async (t) => {
    await fresh(t);
    const { result, measure } = await measured(env, { top }, () => framePerByte(env, 1024 * 1024, 25_000));
    t.comment(`${result.frameBytesSent.toLocaleString('en-US')} of ${(1024 * 1024 + 8).toLocaleString('en-US')} frame bytes sent in ${(result.elapsedMs / 1000).toFixed(1)} s${result.closedByServer ? ', then Tether closed the connection' : ''}`);
    judge(t, env, measure, '1 MiB SPDY frame, a byte per message');
  });

  await t.test('512 MiB piped into kubectl exec -i … -- sleep 3600 on the Kubernetes-provider node: Tether\'s memory stays flat', async (t) => {
    await fresh(t);
    const { result, measure } = await measured(env, { top, probe: [env.victim, env.offloaded] }, () => stdinFlood(env, 512 * 1024 * 1024, { budgetMs: 20_000, stallMs: 5_000 }));
    t.comment(`the pipe took ${(result.acceptedBytes / 1024 / 1024).toFixed(0)} of ${result.offeredBytes / 1024 / 1024} MiB${result.stalled ? ', then stopped taking more (backpressure reached kubectl)' : ''}`);
    t.equal(result.kubectlEnded, undefined, 'the exec session lasted until the client stopped it');
    judge(t, env, measure, '512 MiB into kubectl exec -i (offloading)', STDIN_RSS_BOUND_MIB);
  });

  // Behind a peer that does not read, at most 16 PING echoes wait (src/adapters/spdy/outboundQueue.ts);
  // later PINGs are read and dropped, so the flood costs its bytes on the wire, not Tether's memory.
  await t.test('a port-forward tunnel flooding PINGs without reading costs Tether no memory and no Lease renewal', async (t) => {
    await fresh(t);
    const { result, measure } = await measured(env, { top }, () => pingFlood(env, 1_000_000, 30_000));
    t.comment(`${result.pingsSent.toLocaleString('en-US')} PINGs written in ${(result.elapsedMs / 1000).toFixed(1)} s, none read${result.closedByServer ? '; Tether closed the connection' : ''}`);
    judge(t, env, measure, 'PING flood, peer not reading');
  });

  if (process.env['TETHER_HOSTILE_FIGURES'] === '1') {
    t.comment(['RSS of the Tether process (MiB) and the longest gap between Lease renewals of either node, per case:', '',
      '| case | RSS before | RSS peak | RSS after | CPU s | max lease gap s |', '|---|---:|---:|---:|---:|---:|', ...figures].join('\n'));
  }
});
