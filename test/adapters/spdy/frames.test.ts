/**
 * SPDY/3 frames: every frame Tether writes reads back the same, a byte stream split anywhere
 * (Go writes a frame's parts as separate WebSocket messages) yields the same frames, and malformed
 * or oversized input is an error naming the problem, after which the reader reads nothing more.
 */
import t from 'tap';
import {
  encodeData, encodeGoaway, encodePing, encodeRstStream, encodeSettings, encodeSynReply, encodeSynStream, FrameReader, RST,
} from '../../../src/adapters/spdy/frames.js';

const block = Buffer.from('compressed-block');

t.test('each frame reads back as written', async (t) => {
  const bytes = Buffer.concat([
    encodeSynStream(1, block), encodeSynReply(1, block, true), encodeData(1, Buffer.from('hello')), encodeData(3, Buffer.alloc(0), true),
    encodeRstStream(5, RST.cancel), encodePing(7), encodeGoaway(9, 0), encodeSettings(),
  ]);
  const { frames, error } = new FrameReader().push(bytes);
  t.equal(error, undefined);
  t.same(frames, [
    { type: 'syn-stream', streamId: 1, fin: false, headerBlock: block },
    { type: 'syn-reply', streamId: 1, fin: true, headerBlock: block },
    { type: 'data', streamId: 1, fin: false, data: Buffer.from('hello') },
    { type: 'data', streamId: 3, fin: true, data: Buffer.alloc(0) },
    { type: 'rst-stream', streamId: 5, status: RST.cancel },
    { type: 'ping', id: 7 },
    { type: 'goaway', lastGoodStreamId: 9, status: 0 },
    { type: 'ignored', frameType: 4 },
  ]);
});

t.test('a stream split at every byte yields the same frames', async (t) => {
  const bytes = Buffer.concat([encodeSynStream(1, block), encodeData(1, Buffer.from('abc'), true)]);
  const reader = new FrameReader();
  const frames = [];
  for (const byte of bytes) frames.push(...reader.push(Buffer.from([byte])).frames);
  t.same(frames.map((f) => f.type), ['syn-stream', 'data']);
  t.same(frames[1], { type: 'data', streamId: 1, fin: true, data: Buffer.from('abc') });
});

t.test('malformed frames are errors, and the reader stops', async (t) => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['wrong version', (() => { const f = encodePing(1); f.writeUInt16BE(0x8002, 0); return f; })(), /unsupported SPDY version 2/],
    ['short RST_STREAM', (() => { const f = encodeRstStream(1, 1); f.writeUInt32BE(4, 4); return f.subarray(0, 12); })(), /needs at least 8/],
    ['SYN_STREAM for stream 0', encodeSynStream(0, block), /stream 0/],
    ['data for stream 0', encodeData(0, Buffer.from('x')), /data frame for stream 0/],
  ];
  for (const [name, bytes, reason] of cases) {
    const reader = new FrameReader();
    const result = reader.push(Buffer.concat([encodePing(1), bytes]));
    t.same(result.frames, [{ type: 'ping', id: 1 }], `${name}: frames before the bad one are kept`);
    t.match(result.error, { reason, tooLarge: false }, name);
    t.same(reader.push(encodePing(3)), { frames: [], error: result.error }, `${name}: nothing is read after it`);
  }
});

t.test('an oversized frame is refused from its header, before its payload arrives', async (t) => {
  const reader = new FrameReader(1024);
  const header = encodeData(1, Buffer.alloc(2048)).subarray(0, 8);
  t.match(reader.push(header), { frames: [], error: { reason: /2048 bytes exceeds the limit of 1024/, tooLarge: true } });
  t.throws(() => encodeData(1, Buffer.alloc(0x1000000)), RangeError);
});

t.test('a 1 MiB frame sent one byte per message costs work linear in its size', async (t) => {
  const reader = new FrameReader(1024 * 1024);
  const bytes = encodeData(1, Buffer.alloc(1024 * 1024, 7), true);
  let frames = 0;
  for (let at = 0; at < bytes.length; at++) frames += reader.push(bytes.subarray(at, at + 1)).frames.length;
  t.equal(frames, 1);
  // Each byte is copied at most twice: once into the reader's chunk list, once into the frame.
  t.ok(reader.bytesCopied <= 2 * bytes.length + 64, `copied ${reader.bytesCopied} bytes for ${bytes.length} received`);
});
