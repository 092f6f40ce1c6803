/** echo, printf, cat, tee, wc, grep, head, tail, seq, env, printenv. */
import t from 'tap';
import { MemoryFileSystem, MemoryStore } from '../../../../src/providers/simulated/shell/fileSystem.js';
import { sh, startShell } from '../../../support/shell.js';

t.test('echo -n and -e; printf %s %d with width, repeating over its arguments', async (t) => {
  t.equal((await sh('echo -n a; echo -e "b\\tc"')).out, 'ab\tc\n');
  t.equal((await sh('printf "%s=%d\\n" a 1 b 2')).out, 'a=1\nb=2\n');
  t.equal((await sh('printf "[%5s][%-3s][%03d][%x]" ab c 7 255')).out, '[   ab][c  ][007][ff]');
  t.equal((await sh('printf "%%d\\n"')).out, '%d\n');
});

t.test('wc counts lines, words and bytes of stdin or files', async (t) => {
  t.equal((await sh('printf "a b\\nc\\n" | wc -l')).out, '2\n');
  t.equal((await sh('printf "a b\\nc\\n" | wc -w')).out, '3\n');
  t.equal((await sh('printf "a b\\nc\\n" | wc -c')).out, '6\n');
  t.equal((await sh('wc -l /etc/cfg/a.conf')).out, '1 /etc/cfg/a.conf\n');
});

t.test('grep -v -c -q -i, with plain regular expressions, and its statuses', async (t) => {
  const input = 'printf "Alpha\\nbeta\\ngamma\\n" | ';
  t.equal((await sh(`${input}grep a$`)).out, 'Alpha\nbeta\ngamma\n');
  t.equal((await sh(`${input}grep -v beta`)).out, 'Alpha\ngamma\n');
  t.equal((await sh(`${input}grep -c m`)).out, '1\n');
  t.same(await sh(`${input}grep -q zeta`), { code: 1, out: '', err: '' });
  t.equal((await sh(`${input}grep -i alpha`)).out, 'Alpha\n');
  t.equal((await sh(`${input}grep '^b.t'`)).out, 'beta\n');
  t.equal((await sh('grep a=1 /etc/cfg/a.conf /etc/cfg/b.conf')).out, '/etc/cfg/a.conf:a=1\n');
  t.equal((await sh('grep x /nope')).code, 2);
});

t.test('grep refuses a pattern that could backtrack for ever', async (t) => {
  const run = await sh(`printf "${'a'.repeat(40)}!\\n" | grep '(a+)+$'`);
  t.equal(run.code, 2);
  t.match(run.err, /nested quantifiers are not supported/);
});

t.test('head -n and tail -n, on stdin and files', async (t) => {
  t.equal((await sh('seq 10 | head -n 3')).out, '1\n2\n3\n');
  t.equal((await sh('seq 10 | head -2')).out, '1\n2\n');
  t.equal((await sh('seq 10 | tail -n 2')).out, '9\n10\n');
  t.equal((await sh('seq 5 | tail -n +4')).out, '4\n5\n');
});

t.test('seq counts up or down by a step', async (t) => {
  t.equal((await sh('seq 3; seq 2 4; seq 5 -2 1')).out, '1\n2\n3\n2\n3\n4\n5\n3\n1\n');
  t.equal((await sh('seq x')).code, 1);
});

t.test('cat with no file, or -, copies stdin; tee copies it to files too', async (t) => {
  const files = new MemoryFileSystem({ mounts: [{ path: '/data', store: new MemoryStore() }] });
  t.equal((await startShell(['cat', '-'], { stdin: ['x\n', 'y\n'] }).done).out, 'x\ny\n');
  t.equal((await sh('echo hi | tee /data/t; cat /data/t', { files })).out, 'hi\nhi\n');
});

t.test('env lists the exported variables and runs a command with more', async (t) => {
  t.match((await sh('env')).out, /GREETING=hello world\n/);
  t.equal((await sh('env A=1 printenv A')).out, '1\n');
  t.same(await sh('printenv GREETING MISSING'), { code: 1, out: 'hello world\n', err: '' });
});
