/** The container's files: read-only volumes, writable mounts shared by containers, byte caps. */
import t from 'tap';
import { MemoryFileSystem, MemoryStore, normalizePath } from '../../../../src/providers/simulated/shell/fileSystem.js';
import { sh } from '../../../support/shell.js';

const volumes = new Map([['/etc/cfg/a.conf', 'a=1\n']]);

t.test('paths are resolved against the working directory, with . and ..', async (t) => {
  t.equal(normalizePath('../b/./c//d', '/a/x'), '/a/b/c/d');
  t.equal(normalizePath('/..'), '/');
});

t.test('a write to a read-only volume or the read-only root fails like a real shell', async (t) => {
  const files = new MemoryFileSystem({ files: volumes });
  t.same(await sh('echo x > /etc/cfg/a.conf', { files }), { code: 1, out: '', err: "sh: can't create /etc/cfg/a.conf: Read-only file system\n" });
  t.equal((await sh('echo x > /etc/new', { files })).err, "sh: can't create /etc/new: Read-only file system\n");
  t.equal((await sh('rm /etc/cfg/a.conf', { files })).err, "rm: can't remove '/etc/cfg/a.conf': Read-only file system\n");
  t.equal(files.read('/etc/cfg/a.conf'), 'a=1\n');
});

t.test('a store mounted in two file systems is shared, and survives the shell (an emptyDir across restarts)', async (t) => {
  const emptyDir = new MemoryStore();
  const first = new MemoryFileSystem({ mounts: [{ path: '/data', store: emptyDir }] });
  const second = new MemoryFileSystem({ mounts: [{ path: '/shared', store: emptyDir }] });
  await sh('mkdir -p /data/a/b && echo 1 > /data/a/b/n', { files: first });
  t.same(await sh('cat /shared/a/b/n; ls /shared/a', { files: second }), { code: 0, out: '1\nb\n', err: '' });
});

t.test('a store mounted as one file (/dev/termination-log) takes writes at that path only', async (t) => {
  const log = new MemoryStore();
  const files = new MemoryFileSystem({ mounts: [{ path: '/dev/termination-log', store: log, file: true }] });
  await sh('echo "exit reason" > /dev/termination-log', { files });
  t.equal(log.read(''), 'exit reason\n');
  t.ok(files.exists('/dev/null'));
  t.equal(files.list('/dev')?.join(' '), 'null termination-log');
});

t.test('a read-only mount refuses writes; a writable root takes them', async (t) => {
  const files = new MemoryFileSystem({ root: new MemoryStore(), mounts: [{ path: '/ro', store: new MemoryStore(), readOnly: true }] });
  t.equal(files.write('/ro/x', 'y'), 'Read-only file system');
  t.equal(files.write('/anywhere', 'y'), undefined);
  t.equal(files.read('/anywhere'), 'y');
});

t.test('a file past its cap, or a store past its cap, fails with "No space left on device"', async (t) => {
  const store = new MemoryStore({ fileBytes: 10, totalBytes: 40 });
  const files = new MemoryFileSystem({ mounts: [{ path: '/data', store }] });
  t.equal((await sh('printf 12345678901 > /data/big', { files })).err, 'printf: write error: /data/big: No space left on device\n');
  const many = await sh('i=0; while [ $i -lt 100 ]; do touch /data/f$i || exit 9; i=$((i+1)); done', { files });
  t.equal(many.code, 9, 'even empty files count (their names)');
  t.match(many.err, /No space left on device/);
  t.ok(store.usedBytes <= 40);
  const before = store.usedBytes;
  await sh('rm -f /data/f0 /data/f1', { files });
  t.ok(store.usedBytes < before, 'removing gives the space back');
});

t.test('rm, rm -r, mkdir without -p, and directories refused as files', async (t) => {
  const files = new MemoryFileSystem({ mounts: [{ path: '/data', store: new MemoryStore() }] });
  t.equal((await sh('mkdir /data/x/y', { files })).err, "mkdir: can't create directory '/data/x/y': No such file or directory\n");
  await sh('mkdir -p /data/x/y; touch /data/x/y/f', { files });
  t.equal((await sh('rm /data/x', { files })).err, "rm: can't remove '/data/x': Is a directory\n");
  t.equal((await sh('rm -r /data/x; ls /data', { files })).out, '');
  t.equal((await sh('cat /data', { files })).err, 'cat: /data: Is a directory\n');
});
