/**
 * Decoding a client's channel message never throws, whatever the bytes and under every
 * protocol: arbitrary buffers, resize frames of arbitrary JSON (garbage, huge or fractional
 * numbers, deep nesting, oversized), and stream-close signals of any length all come back as a
 * frame, 'invalid' with a reason when they are not the protocol. Any bytes round-trip through the
 * base64 framing both ways, as a client (client-node, a browser console) encodes and decodes it.
 */
import fc from 'fast-check';
import t from 'tap';
import {
  CHANNEL_PROTOCOLS, decodeClientFrame, frameFor, isBase64Protocol, MAX_RESIZE_BYTES, RESIZE, STDIN, type ChannelProtocol, type ClientFrame,
} from '../../src/kubelet/channelProtocol.js';

const protocol = fc.constantFrom<ChannelProtocol>(...CHANNEL_PROTOCOLS, '');
/** A client's message on `channel` under `p`, as a client encodes it. */
const clientMessage = (p: ChannelProtocol, channel: number, data: Buffer): Buffer =>
  isBase64Protocol(p) ? Buffer.from(`${String.fromCharCode(48 + channel)}${data.toString('base64')}`, 'latin1') : Buffer.concat([Buffer.from([channel]), data]);
const resizeUnder = (p: ChannelProtocol, text: string): Buffer => clientMessage(p, RESIZE, Buffer.from(text, 'utf8'));
const resize = (text: string): Buffer => resizeUnder('v5.channel.k8s.io', text);
const KINDS = new Set<ClientFrame['type']>(['stdin', 'resize', 'close', 'ignored', 'invalid']);

const decodes = (message: Buffer, p: ChannelProtocol): ClientFrame => {
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
  fc.assert(fc.property(fc.oneof(fc.json(), fc.string(), sizeObject), protocol, (text, p) => void decodes(resizeUnder(p, text), p)), { numRuns: 2000 });
  t.pass();
});

t.test('regression corpus: deep nesting, huge numbers, oversized and non-object resizes are invalid', async (t) => {
  const corpus = [
    '['.repeat(100_000), '{"Width":1e400,"Height":1}', '{"Width":99999999999999999999999,"Height":1}', '{"Width":1.5,"Height":1}',
    '{"Width":-1,"Height":1}', 'null', '5', '"x"', '[]', `{"Width":1,"Height":1,"pad":"${'x'.repeat(MAX_RESIZE_BYTES)}"}`, '\u0000\uffff',
  ];
  for (const text of corpus) {
    for (const p of CHANNEL_PROTOCOLS) t.equal(decodes(resizeUnder(p, text), p).type, 'invalid', `${text.slice(0, 40)} (${p})`);
  }
  t.same(decodeClientFrame(resize('{"Width":80,"Height":24}'), 'v5.channel.k8s.io'), { type: 'resize', width: 80, height: 24 });
});

t.test('any stdin bytes a client encodes under any protocol decode back to the same bytes', async (t) => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 4096 }), protocol, (bytes, p) => {
    const frame = decodeClientFrame(clientMessage(p, STDIN, Buffer.from(bytes)), p);
    if (frame.type !== 'stdin' || !frame.data.equals(Buffer.from(bytes))) throw new Error(`${p}: ${JSON.stringify(frame).slice(0, 200)}`);
  }), { numRuns: 2000 });
  t.pass();
});

t.test('any bytes Tether frames for a channel decode, as a client reads them, to that channel and those bytes', async (t) => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 4096 }), fc.integer({ min: 0, max: 4 }), protocol, (bytes, channel, p) => {
    const { payload, binary } = frameFor(p, channel, Buffer.from(bytes));
    if (binary === isBase64Protocol(p)) throw new Error(`${p}: binary=${binary}`);
    const [got, data] = typeof payload === 'string'
      ? [payload.charCodeAt(0) - 48, Buffer.from(payload.slice(1), 'base64')]
      : [payload[0], payload.subarray(1)];
    if (got !== channel || !data.equals(Buffer.from(bytes))) throw new Error(`${p}: channel ${String(got)}, ${data.length} bytes`);
    if (typeof payload === 'string' && !/^[0-4][A-Za-z0-9+/]*={0,2}$/.test(payload)) throw new Error(`${p}: not a digit then standard base64`);
  }), { numRuns: 2000 });
  t.pass();
});
