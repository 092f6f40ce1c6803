/**
 * What a SPDY connection holds for a hostile or slow peer is bounded: PING echoes waiting for a
 * peer that does not read are capped (later pings go unanswered), frames queued for it pause its
 * input past the high-water mark and close the connection as a slow reader past the limit or
 * when nothing leaves for the stall bound; frames parsed but not yet handled pause the socket
 * past the inbound bound. Each such close is told to `onProtocolError` once.
 */
import t from 'tap';
import {
  CLOSE_POLICY, INBOUND_HIGH_WATER_BYTES, MAX_PENDING_PINGS, SpdyConnection, type SpdyStream,
} from '../../../src/adapters/spdy/connection.js';
import { encodeData, encodePing, encodeSynStream, FrameReader, type Frame } from '../../../src/adapters/spdy/frames.js';
import { HeaderCompressor } from '../../../src/adapters/spdy/headerBlock.js';
import { holdSends, socketPair, until } from './support/socketPair.js';

const closeOf = (ws: { once(event: 'close', cb: (code: number, reason: Buffer) => void): unknown }): Promise<{ code: number; reason: string }> =>
  new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));

const pings = (count: number, first = 1): Buffer => Buffer.concat(Array.from({ length: count }, (_, i) => encodePing(first + 2 * i)));

t.test('a PING flood from a peer that does not read leaves at most MAX_PENDING_PINGS echoes queued; later pings go unanswered', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const sends = holdSends(server);
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  // The SYN_STREAM after the pings is handled after all of them: its arrival says they were read.
  client.send(Buffer.concat([pings(1000), encodeSynStream(1, await compressor.compress([['a', '1']]))]));
  await until('the stream behind the pings', () => accepted.length === 1, 5000);
  sends.release();
  const reader = new FrameReader();
  const sent: Frame[] = [];
  // The SYN_REPLY was queued after every echo: once it is sent, so is every echo.
  await until('the reply behind the echoes', () => (sent.push(...sends.frames.splice(0).flatMap((f) => reader.push(f).frames)), sent.some((f) => f.type === 'syn-reply')), 5000);
  const echoes = sent.filter((f) => f.type === 'ping');
  t.ok(echoes.length > 0, 'some pings are echoed');
  t.ok(echoes.length <= MAX_PENDING_PINGS + 1, `${echoes.length} echoes of 1000 pings (at most ${MAX_PENDING_PINGS} waiting, one in flight)`);
  serverSide.close();
});

t.test('a peer that does not read pauses its input past the high-water mark, and is read again once it drains', async (t) => {
  const { client, server } = await socketPair(t);
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => true, outbound: { highWaterBytes: 1024 } });
  const sends = holdSends(server);
  client.send(pings(8));
  await until('the input paused', () => server.isPaused);
  sends.release();
  await until('the input read again', () => !server.isPaused);
  t.pass('paused past the high-water mark, resumed once drained');
  serverSide.close();
});

t.test('a flood of refused streams to a peer that does not read closes the connection as a slow reader past the limit', async (t) => {
  const { client, server } = await socketPair(t);
  const told: string[] = [];
  const serverSide = new SpdyConnection({
    socket: server, role: 'server', onStream: () => false, outbound: { highWaterBytes: 4096, limitBytes: 16 * 1024 },
    onProtocolError: (reason) => told.push(reason),
  });
  holdSends(server);
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  const syns: Buffer[] = [];
  for (let id = 1; id < 400; id += 2) syns.push(encodeSynStream(id, await compressor.compress([['n', String(id)]])));
  const closed = closeOf(client);
  client.send(Buffer.concat(syns));
  t.match(await closed, { code: CLOSE_POLICY, reason: /does not read/ });
  await serverSide.closed;
  t.same(told, ['spdy-slow-reader'], 'told once');
  t.equal(serverSide.openStreams(), 0);
});

t.test('a peer whose queued frames do not leave within the stall bound is closed as a slow reader', async (t) => {
  const { client, server } = await socketPair(t);
  const told: string[] = [];
  const serverSide = new SpdyConnection({
    socket: server, role: 'server', onStream: () => true, outbound: { stallMs: 20 }, onProtocolError: (reason) => told.push(reason),
  });
  holdSends(server);
  const closed = closeOf(client);
  client.send(encodePing(1));
  t.match(await closed, { code: CLOSE_POLICY });
  await serverSide.closed;
  t.same(told, ['spdy-slow-reader']);
});

t.test('frames parsed while a header block inflates are counted, and past INBOUND_HIGH_WATER_BYTES the socket is paused', async (t) => {
  const { client, server } = await socketPair(t);
  // Refused: its data is dropped once handled, so only the inbound count can hold the socket.
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => false });
  let pausedAfterMessage = false;
  // Registered after the connection's own listener: sees the state the message left.
  server.on('message', () => (pausedAfterMessage ||= server.isPaused));
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const data = Array.from({ length: Math.ceil((INBOUND_HIGH_WATER_BYTES * 2) / chunk.length) }, () => encodeData(1, chunk));
  client.send(Buffer.concat([encodeSynStream(1, await compressor.compress([['a', '1']])), ...data]));
  await until('the message', () => pausedAfterMessage, 5000);
  await until('the input read again once handled', () => !server.isPaused, 5000);
  t.pass('paused while the frames waited, resumed once they were handled');
  serverSide.close();
});

t.test('streams writing to a peer that does not read wait for room and are never closed as slow readers', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const told: string[] = [];
  const serverSide = new SpdyConnection({
    socket: server, role: 'server', onStream: (s) => (accepted.push(s), true), outbound: { highWaterBytes: 1024, limitBytes: 16 * 1024 },
    onProtocolError: (reason) => told.push(reason),
  });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  const streams = await Promise.all([1, 2, 3, 4].map((n) => clientSide.openStream([['n', String(n)]])));
  const sends = holdSends(server);
  const writes = accepted.map((remote) => remote.write(Buffer.alloc(256 * 1024, 'x')).then(() => remote.end()));
  await until('the writers held', () => sends.held.length > 0);
  sends.release();
  await Promise.all(writes);
  const lengths = await Promise.all(streams.map(async (s) => {
    let n = 0;
    for await (const chunk of s.input) n += (chunk as Buffer).length;
    return n;
  }));
  t.same(lengths, [1, 2, 3, 4].map(() => 256 * 1024), 'every byte arrives');
  t.same(told, [], 'not closed');
  clientSide.close();
  await serverSide.closed;
});
