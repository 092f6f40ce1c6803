import t from 'tap';
import { SharedCalls } from '../../src/lib/sharedCalls.js';
import { drain } from '../support/until.js';
import { deferred } from '../support/deferred.js';

void t.test('callers of one key while its call runs share that call and its answer', async (t) => {
  const calls = new SharedCalls<string>();
  const call = deferred<string>();
  let made = 0;
  const asks = [1, 2, 3].map(() => calls.run('cm/shop/root-ca', () => ((made += 1), call.promise)));
  t.equal(made, 1, 'one call for three callers');
  t.equal(calls.size, 1);
  call.resolve('the object');
  t.same(await Promise.all(asks), ['the object', 'the object', 'the object']);
  t.equal(calls.size, 0, 'forgotten once settled');
});

void t.test('a settled call is not a cache: the next caller calls again', async (t) => {
  const calls = new SharedCalls<number>();
  let made = 0;
  t.equal(await calls.run('k', () => Promise.resolve((made += 1))), 1);
  t.equal(await calls.run('k', () => Promise.resolve((made += 1))), 2);
});

void t.test('a failure is every sharer\'s, and the next caller calls afresh', async (t) => {
  const calls = new SharedCalls<string>();
  const call = deferred<string>();
  const a = calls.run('k', () => call.promise);
  const b = calls.run('k', () => Promise.resolve('never made'));
  call.reject(new Error('timed out'));
  await t.rejects(a, /timed out/);
  await t.rejects(b, /timed out/);
  t.equal(await calls.run('k', () => Promise.resolve('fresh')), 'fresh');
});

void t.test('another key, or another version of the same key, is a call of its own', async (t) => {
  const calls = new SharedCalls<string>();
  const v1 = deferred<string>();
  const first = calls.run('copy', () => v1.promise, 'digest-1');
  const other = calls.run('another copy', () => Promise.resolve('b'), 'digest-1');
  const second = calls.run('copy', () => Promise.resolve('wrote v2'), 'digest-2');
  t.equal(await other, 'b');
  t.equal(await second, 'wrote v2', 'a newer content is written, not joined to the older write');
  v1.resolve('wrote v1');
  t.equal(await first, 'wrote v1');
  t.equal(calls.size, 0, 'the older call settling late does not leave or drop an entry');
});

void t.test('a failure that no caller waits for any more is not an unhandled rejection', async (t) => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', record);
  t.teardown(() => process.off('unhandledRejection', record));
  const calls = new SharedCalls<string>();
  void calls.run('k', () => Promise.reject(new Error('refused'))); // every caller stopped waiting (a given-up create)
  await drain(); // unhandled rejections are reported once the microtask queue has run
  t.same(unhandled, []);
});
