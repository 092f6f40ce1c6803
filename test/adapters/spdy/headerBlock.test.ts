/**
 * Header blocks: names and values survive a round trip through one connection's zlib contexts
 * (several blocks in a row, as a connection sends them), and bad blocks (malformed, not zlib,
 * inflating past the limit, a real zlib bomb, names and values over their caps) are
 * HeaderBlockErrors naming the problem, marked tooLarge when a limit is what they broke.
 */
import { deflateSync } from 'node:zlib';
import t from 'tap';
import { SPDY3_DICTIONARY } from '../../../src/adapters/spdy/dictionary.js';
import {
  decodeHeaders, DEFAULT_HEADER_LIMITS, encodeHeaders, HeaderBlockError, HeaderCompressor, HeaderDecompressor, headerValue,
} from '../../../src/adapters/spdy/headerBlock.js';

t.test('blocks round-trip through a compressor and a decompressor, in order', async (t) => {
  const compressor = new HeaderCompressor();
  const decompressor = new HeaderDecompressor();
  t.teardown(() => {
    compressor.close();
    decompressor.close();
  });
  const first = [['streamType', 'error'], ['port', '8080'], ['requestID', '0']] as const;
  const second = [['streamType', 'data'], ['port', '8080'], ['requestID', '0'], ['x-multi', 'a'], ['x-multi', 'b']] as const;
  const blocks = await Promise.all([compressor.compress(first), compressor.compress(second), compressor.compress([])]);
  const [a, b, c] = await Promise.all(blocks.map((block) => decompressor.decompress(block)));
  t.equal(headerValue(a!, 'streamtype'), 'error');
  t.equal(headerValue(a!, 'StreamType'), 'error', 'names are case-insensitive');
  t.same(b!.get('x-multi'), ['a', 'b'], 'several values of one name travel NUL-joined');
  t.equal(c!.size, 0);
  t.ok(blocks[1]!.length < encodeHeaders(second).length, 'later blocks reuse the context and compress');
});

t.test('malformed blocks name the problem', async (t) => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['no count', Buffer.from([0, 0]), /no count/],
    ['truncated name', Buffer.from([0, 0, 0, 1, 0, 0, 0, 9, 0x61]), /ends inside header name 0/],
    ['uppercase name', encodeHeadersRaw([['Port', '1']]), /not lowercase/],
    ['duplicate name', encodeHeadersRaw([['port', '1'], ['port', '2']]), /appears twice/],
    ['trailing bytes', Buffer.concat([encodeHeaders([['port', '1']]), Buffer.from([1])]), /1 bytes after the last header/],
    ['too many', encodeHeaders(Array.from({ length: 101 }, (_, i) => [`h${i}`, 'v'] as const)), /101 headers, more than 100/],
  ];
  for (const [name, block, reason] of cases) t.throws(() => decodeHeaders(block), { constructor: HeaderBlockError, message: reason }, name);
});

t.test('bad zlib data and a decompression bomb fail, and the context stays failed', async (t) => {
  const garbage = new HeaderDecompressor();
  t.teardown(() => garbage.close());
  await t.rejects(garbage.decompress(Buffer.from('definitely not zlib')), { constructor: HeaderBlockError, message: /not valid zlib data/ });
  await t.rejects(garbage.decompress(Buffer.from([0x78, 0xbb])), { message: /broken by an earlier block/ });

  const small = new HeaderDecompressor({ ...DEFAULT_HEADER_LIMITS, maxBytes: 1024 });
  t.teardown(() => small.close());
  const bomb = deflateSync(encodeHeaders([['x', 'a'.repeat(100_000)]]), { dictionary: SPDY3_DICTIONARY });
  t.ok(bomb.length < 1024, 'a small compressed block');
  await t.rejects(small.decompress(bomb), { message: /inflates to more than 1024 bytes/ });
});

/** A block with names as given (encodeHeaders would lowercase and merge them). */
function encodeHeadersRaw(pairs: Array<[string, string]>): Buffer {
  const parts = [Buffer.from([0, 0, 0, pairs.length])];
  for (const text of pairs.flat()) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(text.length);
    parts.push(length, Buffer.from(text));
  }
  return Buffer.concat(parts);
}

t.test('a context closed while a block is queued or in flight rejects it rather than hanging', async (t) => {
  const compressor = new HeaderCompressor();
  const queued = [compressor.compress([['a', '1']]), compressor.compress([['b', '2']])];
  compressor.close();
  for (const block of queued) await t.rejects(block, { constructor: HeaderBlockError, message: /closed with the connection/ });
  const decompressor = new HeaderDecompressor();
  const pending = decompressor.decompress(Buffer.from([0x78]));
  decompressor.close();
  await t.rejects(pending, HeaderBlockError);
});

t.test('a zlib header bomb (8 KiB inflating to 8 MiB) is refused having inflated little more than the limit', async (t) => {
  const decompressor = new HeaderDecompressor();
  t.teardown(() => decompressor.close());
  const bomb = deflateSync(encodeHeaders([['x', 'a'.repeat(8 * 1024 * 1024)]]), { dictionary: SPDY3_DICTIONARY, level: 9 });
  t.ok(bomb.length <= DEFAULT_HEADER_LIMITS.maxCompressedBytes, `the block (${bomb.length} bytes) passes the compressed limit`);
  await t.rejects(decompressor.decompress(bomb), { constructor: HeaderBlockError, tooLarge: true, message: /inflates to more than 65536 bytes/ });
  t.ok(decompressor.bytesInflated <= DEFAULT_HEADER_LIMITS.maxBytes + 64 * 1024, `inflated ${decompressor.bytesInflated} bytes before refusing`);
});

t.test('blocks over the compressed limit, and names or values over theirs, are refused as too large', async (t) => {
  const limits = DEFAULT_HEADER_LIMITS;
  t.same([limits.maxCompressedBytes, limits.maxBytes, limits.maxHeaders, limits.maxNameBytes, limits.maxValueBytes], [16 * 1024, 64 * 1024, 100, 256, 8 * 1024]);
  const decompressor = new HeaderDecompressor();
  t.teardown(() => decompressor.close());
  await t.rejects(decompressor.decompress(Buffer.alloc(limits.maxCompressedBytes + 1)), { tooLarge: true, message: /compressed header block of 16385 bytes/ });
  t.equal(decompressor.bytesInflated, 0, 'refused before inflating anything');
  const cases: Array<[string, Buffer, RegExp]> = [
    ['a long name', encodeHeaders([['n'.repeat(257), 'v']]), /header name 0 has 257 bytes, more than 256/],
    ['a long value', encodeHeaders([['port', '1'.repeat(8 * 1024 + 1)]]), /the value of port has 8193 bytes, more than 8192/],
  ];
  for (const [name, block, reason] of cases) t.throws(() => decodeHeaders(block), { constructor: HeaderBlockError, tooLarge: true, message: reason }, name);
  t.throws(() => decodeHeaders(Buffer.from([0, 0, 0, 1, 0, 0, 0, 9, 0x61])), { constructor: HeaderBlockError, tooLarge: false, message: /./ }, 'a malformed block is not "too large"');
});
