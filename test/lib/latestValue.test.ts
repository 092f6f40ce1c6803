import t from 'tap';
import { LatestValue } from '../../src/lib/latestValue.js';

t.test('a reader gets the newest value set since it last read, never an older one', async (t) => {
  const sizes = new LatestValue<number>();
  const iterator = sizes[Symbol.asyncIterator]();
  for (let i = 1; i <= 1000; i++) sizes.set(i);
  t.same(await iterator.next(), { value: 1000, done: false });
  const waiting = iterator.next();
  sizes.set(7);
  t.same(await waiting, { value: 7, done: false }, 'a waiting reader is handed the next value at once');
  sizes.set(8);
  sizes.end();
  t.same(await iterator.next(), { value: 8, done: false }, 'a value set before the end is still read');
  t.same(await iterator.next(), { value: undefined, done: true });
  sizes.set(9);
  t.same(await iterator.next(), { value: undefined, done: true }, 'nothing after the end');
});

t.test('the end wakes a waiting reader; a reader that leaves ends it', async (t) => {
  const a = new LatestValue<string>();
  const waiting = a[Symbol.asyncIterator]().next();
  a.end();
  t.same(await waiting, { value: undefined, done: true });
  const b = new LatestValue<string>();
  b.set('x');
  for await (const value of b) {
    t.equal(value, 'x');
    break;
  }
  t.ok(b.isEnded, 'leaving a for-await ends it');
});
