/**
 * The frame reader against generated input (fast-check): whatever the bytes and however they are
 * split into messages, it never throws, holds no more than one partial frame (header and a payload
 * up to its limit), reads the same frames and the same error whatever the split, and reads back
 * every frame Tether writes as written.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import {
  encodeData, encodeGoaway, encodePing, encodeRstStream, encodeSettings, encodeSynReply, encodeSynStream, FRAME_HEADER_BYTES,
  FrameReader, type Frame, type ReadResult,
} from '../../../src/adapters/spdy/frames.js';

const MAX_PAYLOAD = 4096;

const streamId = fc.integer({ min: 1, max: 0x7fffffff });
const word = fc.integer({ min: 0, max: 0xffffffff });
const bytes = (max: number): fc.Arbitrary<Buffer> => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

/** A frame Tether can write, with the frame the reader must read back. */
const written: fc.Arbitrary<{ bytes: Buffer; frame: Frame }> = fc.oneof<Array<fc.Arbitrary<{ bytes: Buffer; frame: Frame }>>>(
  fc.record({ id: streamId, data: bytes(300), fin: fc.boolean() }).map(({ id, data, fin }) => ({ bytes: encodeData(id, data, fin), frame: { type: 'data', streamId: id, fin, data } })),
  fc.record({ id: streamId, block: bytes(100), fin: fc.boolean() }).map(({ id, block, fin }) => ({ bytes: encodeSynStream(id, block, fin), frame: { type: 'syn-stream', streamId: id, fin, headerBlock: block } })),
  fc.record({ id: streamId, block: bytes(100), fin: fc.boolean() }).map(({ id, block, fin }) => ({ bytes: encodeSynReply(id, block, fin), frame: { type: 'syn-reply', streamId: id, fin, headerBlock: block } })),
  fc.record({ id: fc.integer({ min: 0, max: 0x7fffffff }), status: word }).map(({ id, status }) => ({ bytes: encodeRstStream(id, status), frame: { type: 'rst-stream', streamId: id, status } })),
  word.map((id) => ({ bytes: encodePing(id), frame: { type: 'ping', id } })),
  fc.record({ id: fc.integer({ min: 0, max: 0x7fffffff }), status: word }).map(({ id, status }) => ({ bytes: encodeGoaway(id, status), frame: { type: 'goaway', lastGoodStreamId: id, status } })),
  fc.constant({ bytes: encodeSettings(), frame: { type: 'ignored', frameType: 4 } as Frame }),
);

/** Splits `all` at the given fractions of its length. */
function split(all: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * all.length)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, all.length]) {
    parts.push(all.subarray(from, cut));
    from = cut;
  }
  return parts;
}

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 });

/** Feeds the parts one by one, checking the bound after each; what was read in all. */
function readAll(parts: readonly Buffer[], check: (reader: FrameReader, result: ReadResult) => void = () => undefined): ReadResult {
  const reader = new FrameReader(MAX_PAYLOAD);
  const frames: Frame[] = [];
  for (const part of parts) {
    const result = reader.push(part);
    frames.push(...result.frames);
    check(reader, result);
    if (result.error) return { frames, error: result.error };
  }
  return { frames };
}

function bounded(reader: FrameReader, result: ReadResult): void {
  if (result.error) assert.equal(reader.buffered, 0, 'nothing is held after an error');
  else assert.ok(reader.buffered < FRAME_HEADER_BYTES + MAX_PAYLOAD, `holds ${reader.buffered} bytes, more than one partial frame`);
}

t.test('every frame Tether writes reads back as written, however the bytes are split', async () => {
  fc.assert(fc.property(fc.array(written, { maxLength: 20 }), cuts, (list, at) => {
    const result = readAll(split(Buffer.concat(list.map((w) => w.bytes)), at));
    assert.deepEqual(result, { frames: list.map((w) => w.frame) });
  }), { numRuns: 300 });
});

t.test('random bytes in random messages: no throw, bounded, the same frames and error whatever the split', async () => {
  fc.assert(fc.property(bytes(2000), cuts, (all, at) => {
    const whole = readAll([all]);
    assert.deepEqual(readAll(split(all, at), bounded), whole);
  }), { numRuns: 500 });
});

t.test('valid frames with bytes flipped, cut short or spliced: no throw, bounded, split-independent', async () => {
  const corrupted = fc.record({
    list: fc.array(written, { minLength: 1, maxLength: 10 }),
    flips: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), value: fc.integer({ min: 0, max: 255 }) }), { maxLength: 6 }),
    cut: fc.double({ min: 0, max: 1, noNaN: true }),
    junk: bytes(40),
  }).map(({ list, flips, cut, junk }) => {
    const all = Buffer.concat([...list.map((w) => w.bytes), junk]);
    for (const flip of flips) all[Math.floor(flip.at * all.length)] = flip.value;
    return all.subarray(0, Math.max(1, Math.ceil(cut * all.length)));
  });
  fc.assert(fc.property(corrupted, cuts, (all, at) => {
    assert.deepEqual(readAll(split(all, at), bounded), readAll([all]));
  }), { numRuns: 500 });
});

t.test('a length over the limit is refused from the header whatever its version, type or flags', async () => {
  fc.assert(fc.property(word, fc.integer({ min: MAX_PAYLOAD + 1, max: 0xffffff }), fc.integer({ min: 0, max: 255 }), (first, length, flags) => {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(first, 0);
    header.writeUInt32BE(((flags << 24) | length) >>> 0, 4);
    const result = new FrameReader(MAX_PAYLOAD).push(header);
    assert.deepEqual(result.frames, []);
    assert.equal(result.error?.tooLarge, true);
  }), { numRuns: 200 });
});
