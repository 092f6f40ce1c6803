/** read, export, unset, cd, eval, exec, exit and sh inside a script. */
import t from 'tap';
import { MemoryFileSystem, MemoryStore } from '../../../../src/providers/simulated/shell/fileSystem.js';
import { sh, startShell } from '../../../support/shell.js';

t.test('read takes one line of stdin into variables, the last taking the rest; 1 at the end', async (t) => {
  t.equal((await startShell(['sh', '-c', 'read a b; echo "[$a][$b]"; read c; echo "[$c]"; read d || echo eof'], { stdin: ['one two three\nfour\n'] }).done).out, '[one][two three]\n[four]\neof\n');
  t.equal((await sh('printf "x\\ny\\n" | while read line; do echo "<$line>"; done')).out, '<x>\n<y>\n');
});

t.test('exit N ends the script with N modulo 256; a bad number is status 2', async (t) => {
  t.same(await sh('echo a; exit 300; echo b'), { code: 44, out: 'a\n', err: '' });
  t.equal((await sh('exit x')).code, 2);
  t.equal((await sh('false; exit')).code, 1, 'exit alone keeps $?');
});

t.test('unset removes a variable; cd and pwd move in the file system', async (t) => {
  const files = new MemoryFileSystem({ mounts: [{ path: '/data', store: new MemoryStore() }] });
  t.equal((await sh('X=1; unset X; echo "[$X]"')).out, '[]\n');
  t.equal((await sh('cd /data && touch f && pwd && ls', { files })).out, '/data\nf\n');
  t.equal((await sh('cd /nope')).code, 2);
});

t.test('eval runs text in this shell; exec ends it with the command\'s status; sh -c nests', async (t) => {
  t.equal((await sh('eval "X=5"; echo $X')).out, '5\n');
  t.same(await sh('exec sh -c "exit 4"; echo never'), { code: 4, out: '', err: '' });
  t.equal((await sh("sh -c 'echo $0 $1' inner arg")).out, 'inner arg\n');
  t.equal((await sh('echo "echo from stdin" | sh')).out, 'from stdin\n');
});

t.test('set -e ends the script at a failing command, but not in a condition or before && / ||', async (t) => {
  t.same(await sh('set -e; echo a; false; echo never'), { code: 1, out: 'a\n', err: '' });
  t.same(await sh('set -euo pipefail; if false; then :; fi; false || echo rescued; false && echo no; ! false; while false; do :; done; echo end'), { code: 0, out: 'rescued\nend\n', err: '' });
  t.equal((await sh('set -e; (exit 3); echo never')).code, 3);
  t.equal((await sh('set -e; set +e; false; echo on')).out, 'on\n');
});
