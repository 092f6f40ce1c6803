/**
 * The end of a SPDY connection per SPDY/3.1: after the peer's GOAWAY no new stream is accepted,
 * the open ones finish and the last one closes the connection; a RST_STREAM for an unknown or
 * closed stream is ignored and never answered; an exception while a frame is handled ends that
 * connection alone (GOAWAY INTERNAL_ERROR, close 1011), told once, never an unhandled rejection.
 */
import t, { type Test } from 'tap';
import type WebSocket from 'ws';
import { CLOSE_INTERNAL_ERROR, CLOSE_NORMAL, SpdyConnection, type SpdyStream } from '../../../src/adapters/spdy/connection.js';
import { encodeData, encodeGoaway, encodePing, encodeRstStream, encodeSynStream, GOAWAY, RST, type Frame } from '../../../src/adapters/spdy/frames.js';
import { HeaderCompressor } from '../../../src/adapters/spdy/headerBlock.js';
import { framesFrom, readAll, socketPair, until } from './support/socketPair.js';

/** A server connection with one stream the raw client (`client`, frames it got in `seen`) opened. */
async function oneStreamOpen(t: Test): Promise<{ client: WebSocket; serverSide: SpdyConnection; seen: Frame[]; compressor: HeaderCompressor; remote: SpdyStream }> {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const seen = framesFrom(client);
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  client.send(encodeSynStream(1, await compressor.compress([['n', '1']])));
  await until('the stream', () => accepted.length === 1);
  return { client, serverSide, seen, compressor, remote: accepted[0] as SpdyStream };
}

t.test('after the peer\'s GOAWAY no new stream is accepted; the open one finishes, then the connection closes', async (t) => {
  const { client, serverSide, seen, compressor, remote } = await oneStreamOpen(t);
  client.send(encodeGoaway(1, GOAWAY.ok));
  client.send(encodeSynStream(3, await compressor.compress([['n', '3']])));
  await until('the refusal', () => seen.some((f) => f.type === 'rst-stream'));
  t.match(seen.find((f) => f.type === 'rst-stream'), { streamId: 3, status: RST.refusedStream }, 'a stream after GOAWAY is refused');
  t.equal(serverSide.openStreams(), 1, 'only the first stream is open');
  await remote.write(Buffer.from('still served'));
  client.send(encodeData(1, Buffer.from('bye'), true));
  t.equal(await readAll(remote), 'bye', 'the open stream still carries data');
  await remote.end();
  t.match(await serverSide.closed, { code: CLOSE_NORMAL }, 'closed once its last stream is done');
  t.ok(seen.some((f) => f.type === 'data' && f.data.toString() === 'still served'));
});

t.test('a RST_STREAM for an unknown or already closed stream is ignored and never answered', async (t) => {
  const { client, serverSide, seen, remote } = await oneStreamOpen(t);
  client.send(encodeRstStream(1, RST.cancel));
  await remote.done;
  for (let i = 0; i < 100; i++) client.send(Buffer.concat([encodeRstStream(1, RST.cancel), encodeRstStream(99 + 2 * i, RST.cancel)]));
  client.send(encodePing(7));
  await until('the ping echo', () => seen.some((f) => f.type === 'ping'));
  t.same(seen.map((f) => f.type), ['syn-reply', 'ping'], 'only the reply and the echo: no reset answered');
  t.equal(serverSide.openStreams(), 0);
  serverSide.close();
});

t.test('an exception while a frame is handled closes that connection with 1011, told once, never an unhandled rejection', async (t) => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): number => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => void process.off('unhandledRejection', onUnhandled));
  const { client, server } = await socketPair(t);
  const told: string[] = [];
  const serverSide = new SpdyConnection({
    socket: server, role: 'server',
    onStream: () => {
      throw new Error('a defect in the handler');
    },
    onProtocolError: (reason) => told.push(reason),
  });
  const seen = framesFrom(client);
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  const closed = new Promise<number>((resolve) => client.once('close', resolve));
  client.send(encodeSynStream(1, await compressor.compress([['n', '1']])));
  client.send(encodeSynStream(3, await compressor.compress([['n', '3']])));
  t.equal(await closed, CLOSE_INTERNAL_ERROR);
  await serverSide.closed;
  t.match(seen.find((f) => f.type === 'goaway'), { status: GOAWAY.internalError }, 'GOAWAY INTERNAL_ERROR first');
  t.same(told, ['spdy-internal-error'], 'told once');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(unhandled, [], 'no unhandled rejection');
  t.equal(serverSide.openStreams(), 0);
});
