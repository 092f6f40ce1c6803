/** The simulated container's commands: what a demo or test can run with kubectl exec. */
import t from 'tap';
import { BuiltinShell, parse } from '../../../src/providers/simulated/builtinShell.js';
import type { ContainerView } from '../../../src/providers/simulated/containerView.js';

const view: ContainerView = {
  env: new Map([['GREETING', 'hello world'], ['HOSTNAME', 'web']]),
  files: new Map([['/etc/cfg/a.conf', 'a=1\n'], ['/etc/cfg/b.conf', 'b=2\n'], ['/etc/hostname', 'web\n']]),
  hostname: 'web',
};

async function run(argv: string[], stdin?: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const shell = new BuiltinShell({
    view,
    ...(stdin ? { stdin: (async function* () { for (const s of stdin) yield Buffer.from(s); })() } : {}),
    stdout: async (c) => void (out += c),
    stderr: async (c) => void (err += c),
    tty: false,
    sleep: async () => undefined,
  });
  const code = await shell.run(argv);
  return { code, out, err };
}

t.test('echo, env, printenv, hostname, pwd', async (t) => {
  t.same(await run(['echo', 'a', 'b']), { code: 0, out: 'a b\n', err: '' });
  t.same(await run(['echo', '-n', 'a']), { code: 0, out: 'a', err: '' });
  t.match((await run(['env'])).out, /^GREETING=hello world\nHOSTNAME=web\n$/);
  t.same(await run(['printenv', 'GREETING', 'MISSING']), { code: 1, out: 'hello world\n', err: '' });
  t.equal((await run(['hostname'])).out, 'web\n');
  t.equal((await run(['pwd'])).out, '/\n');
});

t.test('cat reads mounted files or stdin; ls lists directories', async (t) => {
  t.same(await run(['cat', '/etc/cfg/a.conf', '/etc/cfg/b.conf']), { code: 0, out: 'a=1\nb=2\n', err: '' });
  t.same(await run(['cat', '/nope']), { code: 1, out: '', err: 'cat: /nope: No such file or directory\n' });
  t.same(await run(['cat', '/etc/cfg']), { code: 1, out: '', err: 'cat: /etc/cfg: Is a directory\n' });
  t.equal((await run(['cat'], ['x\n', 'y\n'])).out, 'x\ny\n');
  t.equal((await run(['ls', '/etc/cfg'])).out, 'a.conf\nb.conf\n');
  t.equal((await run(['ls'])).out, 'etc\ntmp\n', 'the view\'s files and a private writable /tmp');
  t.same(await run(['ls', '/var']), { code: 2, out: '', err: 'ls: cannot access \'/var\': No such file or directory\n' });
});

t.test('unknown commands exit 127 with the shell\'s message; tar says there is none', async (t) => {
  t.same(await run(['curl', 'x']), { code: 127, out: '', err: 'sh: curl: not found\n' });
  const tar = await run(['tar', 'cf', '-', '/etc']);
  t.equal(tar.code, 127);
  t.match(tar.err, /no tar, so kubectl cp cannot copy files/);
});

t.test('exit N, true, false, sleep', async (t) => {
  t.equal((await run(['exit', '7'])).code, 7);
  t.equal((await run(['exit', '300'])).code, 44, 'modulo 256 as a shell does');
  t.equal((await run(['false'])).code, 1);
  t.equal((await run(['sleep', '1'])).code, 0);
  t.equal((await run(['sleep', 'x'])).code, 1);
  t.equal((await run(['stty', 'size'])).code, 1, 'no terminal');
});

t.test('sh -c: ; && || quotes, $VAR, ${VAR}, $?, and exit ending the script', async (t) => {
  t.equal((await run(['sh', '-c', 'echo "$GREETING"; echo \'$GREETING\' ${HOSTNAME}'])).out, 'hello world\n$GREETING web\n');
  t.equal((await run(['sh', '-c', 'false && echo no || echo yes; echo $?'])).out, 'yes\n0\n');
  const r = await run(['sh', '-c', 'echo before; exit 3; echo after']);
  t.same(r, { code: 3, out: 'before\n', err: '' });
  t.same(await run(['sh', '-c', 'nope']), { code: 127, out: '', err: 'sh: nope: not found\n' });
  t.same(await run(['sh', '-c', 'echo "open']), { code: 2, out: '', err: 'sh: syntax error: unterminated quoted string\n' });
  t.same(await run(['sh', '-c', 'cat <<EOF']), { code: 2, out: '', err: 'sh: here-documents (<<) are not supported by the simulated shell\n' }, 'what the simulator cannot run: status 2 in an exec');
  t.same(await run(['sh'], ['cat <<EOF\n', 'echo still here\n']), { code: 0, out: 'still here\n', err: 'sh: here-documents (<<) are not supported by the simulated shell\n' }, 'an interactive shell goes on after such a line');
  t.equal((await run(['sh'], ['echo one\n', 'echo two\n'])).out, 'one\ntwo\n', 'sh reads its script from stdin');
});

t.test('escaped characters and empty quoted words stay words of their own', async (t) => {
  t.ok(parse('echo a\\ b "" c').ok);
  t.equal((await run(['sh', '-c', 'printf "[%s]" a\\ b "" c'])).out, '[a b][][c]');
});
