/**
 * Decoding a client's channel message never throws, whatever the bytes and under every
 * protocol: arbitrary buffers, resize frames of arbitrary JSON (garbage, huge or fractional
 * numbers, deep nesting, oversized), and stream-close signals of any length all come back as a
 * frame, 'invalid' with a reason when they are not the protocol.
 */
import fc from 'fast-check';
import t from 'tap';
import { CHANNEL_PROTOCOLS, decodeClientFrame, MAX_RESIZE_BYTES, RESIZE, type ClientFrame } from '../../src/kubelet/channelProtocol.js';

const protocol = fc.constantFrom(...CHANNEL_PROTOCOLS);
const resize = (text: string): Buffer => Buffer.concat([Buffer.from([RESIZE]), Buffer.from(text, 'utf8')]);
const KINDS = new Set<ClientFrame['type']>(['stdin', 'resize', 'close', 'ignored', 'invalid']);

const decodes = (message: Buffer, p: (typeof CHANNEL_PROTOCOLS)[number]): ClientFrame => {
  const frame = decodeClientFrame(message, p);
  if (!KINDS.has(frame.type)) throw new Error(`unknown frame type ${frame.type}`);
  if (frame.type === 'resize' && !(Number.isInteger(frame.width) && Number.isInteger(frame.height) && frame.width <= 0xffff && frame.height <= 0xffff)) {
    throw new Error(`resize out of range: ${JSON.stringify(frame)}`);
  }
  return frame;
};

t.test('any bytes under any protocol decode to a frame, never an exception', async (t) => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 2048 }), protocol, (bytes, p) => void decodes(Buffer.from(bytes), p)), { numRuns: 2000 });
  t.pass();
});

t.test('a resize of any JSON, or of garbage, decodes to a resize in range or to invalid', async (t) => {
  const sizeValue = fc.oneof(fc.integer(), fc.double(), fc.bigInt().map((n) => n.toString()), fc.constant('1e400'), fc.constant('-0'), fc.string(), fc.json());
  const sizeObject = fc.record({ Width: sizeValue, Height: sizeValue }).map(({ Width, Height }) => `{"Width":${Width},"Height":${Height}}`);
  fc.assert(fc.property(fc.oneof(fc.json(), fc.string(), sizeObject), protocol, (text, p) => void decodes(resize(text), p)), { numRuns: 2000 });
  t.pass();
});

t.test('regression corpus: deep nesting, huge numbers, oversized and non-object resizes are invalid', async (t) => {
  const corpus = [
    '['.repeat(100_000), '{"Width":1e400,"Height":1}', '{"Width":99999999999999999999999,"Height":1}', '{"Width":1.5,"Height":1}',
    '{"Width":-1,"Height":1}', 'null', '5', '"x"', '[]', `{"Width":1,"Height":1,"pad":"${'x'.repeat(MAX_RESIZE_BYTES)}"}`, '\u0000\uffff',
  ];
  for (const text of corpus) {
    for (const p of CHANNEL_PROTOCOLS) t.equal(decodes(resize(text), p).type, 'invalid', `${text.slice(0, 40)} (${p})`);
  }
  t.same(decodeClientFrame(resize('{"Width":80,"Height":24}'), 'v5.channel.k8s.io'), { type: 'resize', width: 80, height: 24 });
});
