/** Pipes between stages: bounded, ordered, ended, and broken when the reader leaves. */
import t from 'tap';
import { BrokenPipe, Input, Pipe } from '../../../../src/providers/simulated/shell/streams.js';

t.test('a pipe delivers chunks in order and ends when the writer ends', async (t) => {
  const pipe = new Pipe();
  await pipe.write('a\nb');
  await pipe.write('\nc\n');
  pipe.end();
  t.equal(await pipe.input.readLine(100), 'a');
  t.equal(await pipe.input.readAll(100), 'b\nc\n');
  t.equal(await pipe.input.read(), undefined);
});

t.test('a writer waits while the buffer is full, until the reader takes a chunk', async (t) => {
  const pipe = new Pipe(4);
  let written = false;
  const write = pipe.write('12345').then(() => (written = true));
  await new Promise<void>((r) => setImmediate(r));
  t.equal(written, false);
  t.equal(await pipe.input.read(), '12345');
  await write;
  t.equal(written, true);
});

t.test('once the reader closes, writes fail with BrokenPipe (a waiting one too)', async (t) => {
  const pipe = new Pipe(1);
  const waiting = pipe.write('xx');
  pipe.input.close();
  const broken = (p: Promise<void>): Promise<boolean> => p.then(() => false, (e: unknown) => e instanceof BrokenPipe);
  t.equal(await broken(waiting), true);
  t.equal(await broken(pipe.write('y')), true);
});

t.test('Input.readLine leaves the rest of a chunk for the next reader', async (t) => {
  const input = Input.of('one\ntwo\nthree');
  t.equal(await input.readLine(100), 'one');
  t.equal(await input.readLine(100), 'two');
  t.equal(await input.readLine(100), 'three');
  t.equal(await input.readLine(100), undefined);
});
