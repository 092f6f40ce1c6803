/** test and [ ]: file, string and integer tests, ! and the statuses of a malformed expression. */
import t from 'tap';
import { MemoryFileSystem } from '../../../../src/providers/simulated/shell/fileSystem.js';
import { evaluateTest } from '../../../../src/providers/simulated/shell/testBuiltin.js';
import { sh } from '../../../support/shell.js';

const fs = new MemoryFileSystem({ files: new Map([['/etc/a', 'x'], ['/etc/empty', '']]) });
const cases: readonly [string[], boolean | string][] = [
  [['-f', '/etc/a'], true], [['-f', '/etc'], false], [['-d', '/etc'], true], [['-e', '/nope'], false],
  [['-s', '/etc/empty'], false], [['-s', '/etc/a'], true],
  [['-z', ''], true], [['-n', ''], false], [['abc'], true], [[''], false], [[], false],
  [['a', '=', 'a'], true], [['a', '!=', 'a'], false], [['!', '-f', '/etc/a'], false],
  [['2', '-eq', '2'], true], [['2', '-ne', '2'], false], [['1', '-lt', '2'], true], [['2', '-le', '2'], true],
  [['3', '-gt', '2'], true], [['1', '-ge', '2'], false], [['x', '-eq', '1'], 'x: integer expression expected'],
  [['-f', '/etc/a', '-a', '1', '-eq', '1'], true], [['-f', '/nope', '-o', '(', 'a', '=', 'a', ')'], true],
];

t.test('each test gives its answer', async (t) => {
  for (const [args, expected] of cases) t.equal(evaluateTest(args, fs), expected, args.join(' '));
});

t.test('[ ] needs its closing ], and a malformed expression exits 2', async (t) => {
  t.equal((await sh('[ 1 -eq 1 ] && echo yes')).out, 'yes\n');
  t.same(await sh('[ 1 -eq 1'), { code: 2, out: '', err: 'sh: [: missing ]\n' });
  t.same(await sh('test x -lt 1'), { code: 2, out: '', err: 'sh: test: x: integer expression expected\n' });
});
