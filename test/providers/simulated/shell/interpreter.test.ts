/** The shell's constructs, one each: what a container's `sh -c` script can use. */
import t from 'tap';
import { MemoryFileSystem, MemoryStore } from '../../../../src/providers/simulated/shell/fileSystem.js';
import { sh } from '../../../support/shell.js';

const withData = (): MemoryFileSystem => new MemoryFileSystem({ mounts: [{ path: '/data', store: new MemoryStore() }] });

t.test('a pipe streams one stage into the next, and the status is the last stage\'s', async (t) => {
  t.same(await sh('printf "b\\na\\nb\\n" | grep b | wc -l'), { code: 0, out: '2\n', err: '' });
  t.equal((await sh('echo x | false')).code, 1);
  t.equal((await sh('false | true')).code, 0);
  t.equal((await sh('! true')).code, 1);
});

t.test('a stage that stops reading breaks the pipe of the one before it, which ends', async (t) => {
  t.same(await sh('seq 1 1000000000 | head -n 2'), { code: 0, out: '1\n2\n', err: '' });
  t.same(await sh('while true; do echo y; done | head -n 1'), { code: 0, out: 'y\n', err: '' });
});

t.test('> truncates, >> appends, < reads, and a missing file is sh\'s message', async (t) => {
  const files = withData();
  t.same(await sh('echo one > /data/f; echo two >> /data/f; cat < /data/f', { files }), { code: 0, out: 'one\ntwo\n', err: '' });
  t.equal((await sh('echo three > /data/f; cat /data/f', { files })).out, 'three\n');
  t.same(await sh('cat < /data/nope', { files }), { code: 1, out: '', err: 'sh: can\'t open /data/nope: No such file or directory\n' });
});

t.test('2>&1, >&2, >/dev/null and 2>/dev/null move and silence descriptors in order', async (t) => {
  t.same(await sh('nope 2>&1'), { code: 127, out: 'sh: nope: not found\n', err: '' });
  t.same(await sh('echo oops >&2'), { code: 0, out: '', err: 'oops\n' });
  t.same(await sh('echo gone >/dev/null; nope 2>/dev/null'), { code: 127, out: '', err: '' });
  t.same(await sh('nope >/dev/null 2>&1'), { code: 127, out: '', err: '' });
  t.same(await sh('nope 2>&1 >/dev/null'), { code: 127, out: 'sh: nope: not found\n', err: '' });
});

t.test('a redirection on a compound command applies to all of it', async (t) => {
  const files = withData();
  t.equal((await sh('{ echo a; echo b; } > /data/ab; for x in 1 2; do echo $x; done >> /data/ab; cat /data/ab', { files })).out, 'a\nb\n1\n2\n');
});

t.test('if / elif / else / fi takes the first branch whose condition succeeds', async (t) => {
  const script = (n: number): string => `if [ ${n} -lt 1 ]; then echo small; elif [ ${n} -lt 10 ]; then echo medium; else echo large; fi`;
  t.equal((await sh(script(0))).out, 'small\n');
  t.equal((await sh(script(5))).out, 'medium\n');
  t.equal((await sh(script(50))).out, 'large\n');
  t.same(await sh('if false; then echo no; fi'), { code: 0, out: '', err: '' });
});

t.test('while and until loop on their condition, with break and continue', async (t) => {
  t.equal((await sh('i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done')).out, '0\n1\n2\n');
  t.equal((await sh('i=0; until [ $i -ge 2 ]; do i=$((i+1)); echo $i; done')).out, '1\n2\n');
  t.equal((await sh('for i in 1 2 3 4; do [ $i = 2 ] && continue; [ $i = 4 ] && break; echo $i; done')).out, '1\n3\n');
  t.equal((await sh('for a in 1 2; do for b in x y; do [ $b = y ] && continue 2; echo $a$b; done; done')).out, '1x\n2x\n');
});

t.test('for x in words splits unquoted expansions; for x alone walks the arguments', async (t) => {
  t.equal((await sh('L="a b  c"; for x in $L "d e"; do echo "[$x]"; done')).out, '[a]\n[b]\n[c]\n[d e]\n');
  t.equal((await sh('for x; do echo $x; done', {})).out, '');
  t.equal((await sh('for x in $(seq 3); do echo -n $x; done')).out, '123');
});

t.test('{ } groups in this shell; ( ) runs a subshell whose variables and exit stay inside', async (t) => {
  t.equal((await sh('X=1; { X=2; }; echo $X')).out, '2\n');
  t.equal((await sh('X=1; (X=2; echo in $X); echo out $X')).out, 'in 2\nout 1\n');
  t.same(await sh('(exit 3); echo $?'), { code: 0, out: '3\n', err: '' });
});

t.test('$(...) and backquotes substitute output without its trailing newlines', async (t) => {
  t.equal((await sh('echo "[$(printf "a\\n\\n")]" `echo b`')).out, '[a] b\n');
  t.equal((await sh('X=$(echo $(echo nested)); echo $X')).out, 'nested\n');
  t.equal((await sh('X=$(false); echo $?')).out, '1\n');
});

t.test('$((...)) does integer arithmetic on variables', async (t) => {
  t.equal((await sh('a=6; echo $((a * 7)) $(( (a + 2) / 3 )) $((a % 4)) $((a > 5))')).out, '42 2 2 1\n');
  t.match(await sh('echo $((1 / 0))'), { code: 1, err: /division by zero/ });
});

t.test('X=1 sets a shell variable; export passes it to commands; X=1 cmd only to that command', async (t) => {
  t.equal((await sh('X=1; printenv X; echo $X')).out, '1\n');
  t.equal((await sh('export X=2; printenv X')).out, '2\n');
  t.equal((await sh('Y=3 printenv Y; echo "[$Y]"')).out, '3\n[]\n');
  t.equal((await sh('echo ${UNSET:-fallback} ${GREETING:+set} ${#GREETING}')).out, 'fallback set 11\n');
});

t.test('sh -c SCRIPT NAME ARGS gives $0, $1, $@ and $#', async (t) => {
  const { startShell } = await import('../../../support/shell.js');
  const run = await startShell(['sh', '-c', 'echo $0 $# $1; for a in "$@"; do echo "<$a>"; done', 'me', 'x y', 'z']).done;
  t.equal(run.out, 'me 2 x y\n<x y>\n<z>\n');
  t.equal((await sh('set -- a b c; shift; echo $@ $#')).out, 'b c 2\n');
});

t.test('functions take arguments and return a status', async (t) => {
  t.equal((await sh('greet() { echo "hi $1"; return 4; }; greet you; echo $?')).out, 'hi you\n4\n');
});

t.test('a script file in the file system runs by path or with sh FILE', async (t) => {
  const files = new MemoryFileSystem({ files: new Map([['/scripts/run.sh', '#!/bin/sh\necho running $1\nexit 5\n']]) });
  t.same(await sh('/scripts/run.sh a', { files }), { code: 5, out: 'running a\n', err: '' });
  t.same(await sh('sh /scripts/run.sh b', { files }), { code: 5, out: 'running b\n', err: '' });
  t.same(await sh('/bin/echo builtin by path'), { code: 0, out: 'builtin by path\n', err: '' });
});

t.test('an unknown command exits 127 with sh\'s message, and the script goes on', async (t) => {
  t.same(await sh('curl x; echo after'), { code: 0, out: 'after\n', err: 'sh: curl: not found\n' });
});

t.test('a busy loop yields to the event loop and ends with a clear error past its step budget', async (t) => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const run = await sh('while true; do :; done', { limits: { busySteps: 20_000, yieldEvery: 100 } });
  clearInterval(timer);
  t.equal(run.code, 2);
  t.match(run.err, /busy loop: 20000 commands ran without a sleep/);
  t.ok(ticks > 0, 'other timers ran while it looped');
});

t.test('runaway recursion ends with a clear error', async (t) => {
  const run = await sh('f() { f; }; f');
  t.equal(run.code, 2);
  t.match(run.err, /nesting deeper than/);
});

t.test('one command\'s output is capped', async (t) => {
  const run = await sh('seq 1 100000000; echo next', { limits: { outputBytes: 1000 } });
  t.match(run.err, /seq: seq: output larger than 1000 bytes/);
  t.match(run.out, /next\n$/);
});

t.test('background jobs: $! and wait', async (t) => {
  t.equal((await sh('(echo bg) & wait $!; echo $?')).out, 'bg\n0\n');
  t.equal((await sh('(exit 3) & wait $!; echo $?')).out, '3\n');
});

t.test('hostile scripts end with a clear error and bounded memory: a doubling variable, a fork bomb', async (t) => {
  const doubling = await sh('X=ab; while true; do X="$X$X" || exit 7; done', { limits: { valueLength: 4096 } });
  t.equal(doubling.code, 7);
  t.match(doubling.err, /word longer than 4096 characters/);
  const bomb = await sh('f() { f & f; }; f');
  t.equal(bomb.code, 2);
  t.match(bomb.err, /more than 32 background jobs|nesting deeper than/);
});

t.test('case runs the first arm whose pattern (*, ?, [...], a|b) matches the word', async (t) => {
  const script = (word: string): string => `case "${word}" in start|run) echo go;; st?p) echo halt;; [0-9]*) echo number;; *) echo "unknown $1";; esac`;
  t.equal((await sh(script('run'))).out, 'go\n');
  t.equal((await sh(script('stop'))).out, 'halt\n');
  t.equal((await sh(script('42'))).out, 'number\n');
  t.equal((await sh(script('other'))).out, 'unknown \n');
  t.same(await sh('case x in\n  (y) echo y\n  ;;\nesac'), { code: 0, out: '', err: '' });
});
