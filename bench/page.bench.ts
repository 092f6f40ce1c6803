/**
 * The live page at 10,000 pods (`npm run bench:page`): Debian's chromium (playwright-core)
 * against an introspection server over a real actor system with 10,000 simulated pods
 * (bench/pageTree.ts). Measured: first meaningful paint (the groups and the first rows of pods
 * drawn), each filter action until the list shows its result, the DOM's size, the largest answer
 * the page received, and how long a crash injected into one pod actor takes to appear in its
 * timeline (waited on as a condition; the time is reported, the bound checked is a second).
 * Screenshots of the grouped view and of one actor go to docs/images/.
 *
 * Exits non-zero when a bound is broken: DOM over 3,000 nodes, an answer of 100 KiB or more, the
 * crash not in the timeline within a second.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startIntrospectionServer } from '../src/observability/introspectionServer.js';
import { pageTree } from './pageTree.js';

const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const PODS = Number(process.env['PODS'] ?? 10_000);
const DOM_MAX = 3_000;
const ANSWER_MAX = 100 * 1024;

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`chromium is not installed at ${CHROMIUM}`);
  const tree = pageTree(PODS);
  // A few restarted pods beforehand, so the restarted filter has something to show.
  for (const i of [7, 1_234, 5_555]) tree.pods[i]!.tell({ type: 'crash' });
  const server = await startIntrospectionServer({ agent: { system: tree.system, nodes: [] }, port: 0 });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const failures: string[] = [];
  const figures: Array<[string, string]> = [];
  try {
    // The bench's own probes are strings playwright evaluates, which the page's CSP (no eval) forbids;
    // the page's inline script needs nothing beyond that CSP (its header is checked by the unit tests).
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    let largest = { bytes: 0, url: '' };
    page.on('response', (res) => {
      if (res.url().includes('/actors/events')) return;
      void res.body().then((b) => {
        if (b.length > largest.bytes) largest = { bytes: b.length, url: res.url() };
      }).catch(() => undefined);
    });
    const timed = async (name: string, action: () => Promise<void>): Promise<void> => {
      const start = performance.now();
      await action();
      figures.push([name, `${Math.round(performance.now() - start)} ms`]);
    };
    const listSettled = (): Promise<unknown> => page.waitForFunction('document.querySelector("#listTitle").textContent !== "" && !document.querySelector("#list").dataset.busy', undefined, { timeout: 30_000 });
    const rowsMatch = (predicate: string): Promise<unknown> => page.waitForFunction(`(() => { const rows = [...document.querySelectorAll('.row')]; return rows.length > 0 && rows.every((r) => ${predicate}); })()`, undefined, { timeout: 30_000 });

    await timed('first meaningful paint (groups and first pods drawn)', async () => {
      await page.goto(server.url);
      await page.waitForSelector('.g.node', { timeout: 30_000 });
      await page.waitForFunction('document.querySelectorAll(".row").length >= 20', undefined, { timeout: 30_000 });
    });
    await listSettled();
    const dom = async (): Promise<number> => page.evaluate('document.getElementsByTagName("*").length') as Promise<number>;
    let domMax = await dom();

    await timed('scroll to the 9,000th pod (virtualized list)', async () => {
      await page.evaluate('document.getElementById("viewport").scrollTop = 9000 * 26');
      await page.waitForFunction('[...document.querySelectorAll(".row")].some((r) => parseInt(r.style.top) >= 9000 * 26)', undefined, { timeout: 30_000 });
    });
    domMax = Math.max(domMax, await dom());
    await page.evaluate('document.getElementById("viewport").scrollTop = 0');

    await timed('filter: search "team-3/"', async () => {
      await page.fill('#q', 'team-3/');
      await rowsMatch('r.querySelector(".name").textContent.startsWith("team-3/")');
    });
    domMax = Math.max(domMax, await dom());
    await timed('filter: state pending', async () => {
      await page.fill('#q', '');
      await page.selectOption('#state', 'pending');
      await rowsMatch('r.dataset.state === "pending"');
    });
    await timed('filter: restarted', async () => {
      await page.selectOption('#state', '');
      await page.check('#restarted');
      await rowsMatch('r.querySelector(".meta").textContent.includes("↻")');
    });
    await timed('filter: last error contains "simulated"', async () => {
      await page.uncheck('#restarted');
      await page.fill('#error', 'simulated');
      await rowsMatch('r.querySelector(".err") && r.querySelector(".err").textContent.includes("simulated")');
    });
    await page.fill('#error', '');
    await rowsMatch('true');
    await page.waitForFunction('document.querySelectorAll(".row").length >= 20', undefined, { timeout: 30_000 });
    domMax = Math.max(domMax, await dom());

    mkdirSync(join(process.cwd(), 'docs', 'images'), { recursive: true });
    await page.screenshot({ path: join('docs', 'images', 'actor-tree-grouped.png') });

    // One pod actor in depth; then a crash injected into it, waited for in its timeline.
    const victim = 4_242;
    const path = (tree.pods[victim] as unknown as { path: string }).path;
    await page.fill('#q', `web-${victim}`);
    await rowsMatch(`r.querySelector(".name").textContent === "team-${victim % 20}/web-${victim}"`);
    await page.click('.row');
    await page.waitForSelector('#detail #timeline', { state: 'attached', timeout: 30_000 });
    const start = performance.now();
    tree.pods[victim]!.tell({ type: 'crash' });
    await page.waitForSelector('#detail #timeline li[data-type="crashed"]', { timeout: 10_000 });
    const crashMs = Math.round(performance.now() - start);
    figures.push([`crash injected into ${path.split('/').pop()} until shown in its timeline`, `${crashMs} ms`]);
    if (crashMs > 1_000) failures.push(`the crash took ${crashMs} ms to appear (bound: 1 s)`);
    await page.screenshot({ path: join('docs', 'images', 'actor-tree-detail.png') });
    domMax = Math.max(domMax, await dom());

    figures.push(['DOM elements (most seen)', String(domMax)], ['largest answer', `${(largest.bytes / 1024).toFixed(1)} KiB (${new URL(largest.url || 'http://x/').pathname})`]);
    if (domMax > DOM_MAX) failures.push(`the DOM held ${domMax} elements (bound: ${DOM_MAX})`);
    if (largest.bytes >= ANSWER_MAX) failures.push(`an answer of ${largest.bytes} bytes (bound: ${ANSWER_MAX})`);
  } finally {
    await browser.close();
    await server.stop();
    tree.system.stop();
  }
  console.log(`page bench: ${PODS} simulated pods, chromium headless`);
  for (const [name, value] of figures) console.log(`  ${name.padEnd(64)} ${value}`);
  if (failures.length > 0) {
    for (const f of failures) console.error(`FAIL: ${f}`);
    process.exitCode = 1;
  }
}

await main();
