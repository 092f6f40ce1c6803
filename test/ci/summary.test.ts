// The CI's last line is what decides whether a change lands, so it is read from the tap log the
// way CI reads it: by running .ci/summary on a log file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

const script = join(import.meta.dirname, '..', '..', '.ci', 'summary');

function summarise(log: string | Buffer, rc: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-summary-'));
  const file = join(dir, 'ci-test.log');
  writeFileSync(file, log);
  return execFileSync('bash', [script, file, String(rc)], { encoding: 'utf8' }).trim();
}

/** The line CI decides on: the last one. */
function lastLine(log: string | Buffer, rc: number): string {
  return summarise(log, rc).split('\n').at(-1) ?? '';
}

t.test('the counts come from the last tap summary line', async (t) => {
  const log = '# { total: 5, pass: 5 }\nmore output\n# { total: 3909, pass: 3907, fail: 1, skip: 1 }\n';
  t.equal(lastLine(log, 1), '3907 passed, 1 failed');
});

t.test('a log carrying a NUL byte from a test is still read as text', async (t) => {
  const log = Buffer.concat([
    Buffer.from('hostile bytes: '),
    Buffer.from([0x00, 0x80, 0xff, 0x0a]),
    Buffer.from('# { total: 3909, pass: 3908, skip: 1 }\n'),
  ]);
  t.equal(summarise(log, 0), '3908 passed, 0 failed', 'a passing run prints only its counts');
});

t.test('a non-zero exit without a failed assertion counts as one failure', async (t) => {
  t.equal(lastLine('error TS2322: types\n', 2), '0 passed, 1 failed');
  t.equal(lastLine('# { total: 4, pass: 4 }\n', 1), '4 passed, 1 failed');
});

t.test('the failed tests are named above the last line, skipped and todo ones left out', async (t) => {
  const log = [
    'ok 1 - fine',
    '    not ok 2 - the lease is renewed # time=3ms',
    'not ok 3 - later # TODO not yet',
    'not ok 4 - test/e2e/lease.test.ts # time=9ms',
    '# { total: 4, pass: 1, fail: 2, skip: 0, todo: 1 }',
  ].join('\n');
  t.same(summarise(log, 1).split('\n'), [
    'failed:',
    '    not ok 2 - the lease is renewed # time=3ms',
    'not ok 4 - test/e2e/lease.test.ts # time=9ms',
    '1 passed, 2 failed',
  ]);
});
