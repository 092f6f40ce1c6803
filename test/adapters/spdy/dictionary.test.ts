/**
 * The SPDY/3 header dictionary, byte for byte: one wrong byte and no Go peer could inflate a
 * single header block, so the digest of the spec's 1,423 bytes is pinned here.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { SPDY3_DICTIONARY } from '../../../src/adapters/spdy/dictionary.js';

t.test('the dictionary is the spec\'s exact bytes', async (t) => {
  t.equal(SPDY3_DICTIONARY.length, 1423);
  t.equal(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  t.same([...SPDY3_DICTIONARY.subarray(0, 11)], [0, 0, 0, 7, ...Buffer.from('options')], 'starts with the length-prefixed word "options"');
  t.equal(SPDY3_DICTIONARY.subarray(-6).toString('latin1'), 'enq=0.');
});
