/**
 * Header blocks against generated input (fast-check): any headers round-trip through one
 * connection's contexts; any bytes given to the decoder or the decompressor end in headers or a
 * HeaderBlockError (never another exception), within the limits; and a context that failed once
 * stays failed.
 */
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import t from 'tap';
import { SPDY3_DICTIONARY } from '../../../src/adapters/spdy/dictionary.js';
import {
  decodeHeaders, DEFAULT_HEADER_LIMITS, encodeHeaders, HeaderBlockError, HeaderCompressor, HeaderDecompressor, type Headers,
} from '../../../src/adapters/spdy/headerBlock.js';

const name = fc.string({ minLength: 1, maxLength: 20 }).map((s) => s.toLowerCase()).filter((s) => !s.includes('\0') && s !== '');
const value = fc.string({ maxLength: 50 }).filter((s) => !s.includes('\0'));
const headerList = fc.uniqueArray(fc.tuple(name, value), { maxLength: 20, selector: ([n]) => n });

function withinLimits(headers: Headers): void {
  assert.ok(headers.size <= DEFAULT_HEADER_LIMITS.maxHeaders);
  for (const [n, values] of headers) {
    assert.ok(Buffer.byteLength(n) <= DEFAULT_HEADER_LIMITS.maxNameBytes);
    assert.ok(Buffer.byteLength(values.join('\0')) <= DEFAULT_HEADER_LIMITS.maxValueBytes);
  }
}

t.test('any headers round-trip, block after block, through one pair of contexts', async () => {
  const compressor = new HeaderCompressor();
  const decompressor = new HeaderDecompressor();
  try {
    await fc.assert(fc.asyncProperty(headerList, async (list) => {
      const headers = await decompressor.decompress(await compressor.compress(list));
      assert.deepEqual([...headers], list.map(([n, v]) => [n, [v]]));
    }), { numRuns: 200 });
  } finally {
    compressor.close();
    decompressor.close();
  }
});

t.test('any bytes decode to headers within the limits or a HeaderBlockError', async () => {
  const block = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    fc.tuple(headerList, fc.array(fc.nat(), { maxLength: 4 }), fc.uint8Array({ maxLength: 4 })).map(([list, at, bytes]) => {
      const b = encodeHeaders(list);
      at.forEach((i, k) => (b[i % b.length] = bytes[k] ?? 0));
      return b;
    }),
  );
  fc.assert(fc.property(block, (b) => {
    try {
      withinLimits(decodeHeaders(b));
    } catch (error) {
      assert.ok(error instanceof HeaderBlockError, String(error));
    }
  }), { numRuns: 1000 });
});

t.test('any bytes given to a decompressor settle as headers or a HeaderBlockError, and a failure sticks', async () => {
  const input = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
    // Valid zlib with the SPDY dictionary, of blocks well formed or not, some of them bombs.
    fc.oneof(fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)), fc.nat({ max: 4 * 1024 * 1024 }).map((n) => encodeHeaders([['x', 'a'.repeat(n)]])))
      .map((raw) => deflateSync(raw, { dictionary: SPDY3_DICTIONARY })),
  );
  await fc.assert(fc.asyncProperty(fc.array(input, { minLength: 1, maxLength: 4 }), async (blocks) => {
    const decompressor = new HeaderDecompressor();
    try {
      let failed = false;
      for (const b of blocks) {
        try {
          const headers = await decompressor.decompress(b);
          assert.ok(!failed, 'a block after a failure is refused');
          withinLimits(headers);
        } catch (error) {
          assert.ok(error instanceof HeaderBlockError, String(error));
          failed = true;
        }
        assert.ok(decompressor.bytesInflated <= DEFAULT_HEADER_LIMITS.maxBytes * blocks.length + 64 * 1024);
      }
    } finally {
      decompressor.close();
    }
  }), { numRuns: 150 });
});
