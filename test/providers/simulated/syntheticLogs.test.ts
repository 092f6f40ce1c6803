import t from 'tap';
import { lineCount, rfc3339Nano, selectLines, syntheticLogs, type LogSource } from '../../../src/providers/simulated/syntheticLogs.js';
import { ManualClock } from '../../support/manualClock.js';

const source: LogSource = { label: 'p/c', startedAt: 10_000, endedAt: undefined };

const cases: ReadonlyArray<{ name: string; now: number; options: object; lines: number[] }> = [
  { name: 'before the container starts, nothing', now: 9_999, options: {}, lines: [] },
  { name: 'at start, line 1', now: 10_000, options: {}, lines: [1] },
  { name: 'one line per interval', now: 13_500, options: {}, lines: [1, 2, 3, 4] },
  { name: 'tailLines keeps the last N', now: 13_500, options: { tailLines: 2 }, lines: [3, 4] },
  { name: 'tailLines 0 keeps none', now: 13_500, options: { tailLines: 0 }, lines: [] },
  { name: 'tailLines beyond the log keeps all', now: 11_000, options: { tailLines: 10 }, lines: [1, 2] },
  { name: 'sinceSeconds keeps lines at or after now - s', now: 13_000, options: { sinceSeconds: 1 }, lines: [3, 4] },
  { name: 'sinceSeconds then tailLines', now: 13_000, options: { sinceSeconds: 3, tailLines: 1 }, lines: [4] },
];

for (const c of cases) {
  void t.test(c.name, async (t) => {
    t.same(selectLines(source, c.now, 1000, c.options), c.lines);
  });
}

void t.test('a stopped container writes nothing after it ended', async (t) => {
  t.equal(lineCount({ ...source, endedAt: 11_500 }, 99_000, 1000), 2);
});

void t.test('timestamps are RFC 3339 with nanoseconds', async (t) => {
  t.equal(rfc3339Nano(Date.parse('2026-11-30T03:00:00.123Z')), '2026-11-30T03:00:00.123000000Z');
});

t.test('follow goes on from the last line it selected, even when time passes before the reader asks for more', async (t) => {
  const clock = new ManualClock(0);
  const source: LogSource = { label: 'shop/web/app', startedAt: 0, endedAt: undefined };
  clock.advance(100); // lines 1..6 written (every 20 ms)
  const abort = new AbortController();
  const lines = syntheticLogs({ clock, intervalMs: 20, options: { follow: true, tailLines: 1 }, source: () => source, signal: abort.signal });
  const first = await lines.next();
  t.equal(first.value, 'shop/web/app line 6\n', 'the tail');
  clock.advance(45); // a slow reader: lines 7 and 8 are written before it asks again
  const next = [(await lines.next()).value, (await lines.next()).value];
  t.same(next, ['shop/web/app line 7\n', 'shop/web/app line 8\n'], 'no line skipped');
  abort.abort();
});
