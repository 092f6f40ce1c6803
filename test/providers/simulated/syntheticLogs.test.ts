import t from 'tap';
import { lineCount, rfc3339Nano, selectLines, type LogSource } from '../../../src/providers/simulated/syntheticLogs.js';

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
