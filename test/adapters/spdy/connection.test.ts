/**
 * SPDY tunnelled in a WebSocket, both roles over a real `ws` pair on loopback: streams open and
 * carry data both ways with half-close, resets end them on both sides, pings are echoed, refused
 * streams are refused; malformed and oversized frames close with a clear code (1002, 1009) and
 * never crash; an abrupt close ends every stream, and none is left behind.
 */
import t from 'tap';
import type WebSocket from 'ws';
import { CLOSE_PROTOCOL_ERROR, CLOSE_TOO_BIG, SpdyConnection, StreamClosedError, type SpdyStream } from '../../../src/adapters/spdy/connection.js';
import { encodeData, encodePing, encodeSynStream } from '../../../src/adapters/spdy/frames.js';
import { HeaderCompressor, headerValue } from '../../../src/adapters/spdy/headerBlock.js';
import { framesFrom, readAll, socketPair, until } from './support/socketPair.js';

t.test('a stream opens, carries data both ways, half-closes, and is gone once both sides end', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  const stream = await clientSide.openStream([['streamType', 'data'], ['port', '80']]);
  t.equal(stream.id, 1, 'client streams have odd ids');
  const remote = accepted[0] as SpdyStream;
  t.equal(headerValue(remote.headers, 'streamtype'), 'data');
  t.equal(headerValue(remote.headers, 'port'), '80');

  const big = Buffer.alloc(200 * 1024, 'x');
  await stream.write(Buffer.from('GET / '));
  await stream.write(big);
  await stream.end();
  t.equal(await readAll(remote), `GET / ${big.toString()}`, 'more than one data frame arrives whole and in order');
  await remote.write(Buffer.from('200 OK'));
  await remote.end();
  t.equal(await readAll(stream), '200 OK');
  await Promise.all([stream.done, remote.done]);
  t.equal(clientSide.openStreams(), 0);
  t.equal(serverSide.openStreams(), 0);
  t.notOk(stream.aborted);
  await t.rejects(stream.write(Buffer.from('late')), StreamClosedError, 'no writes after our FIN');
  clientSide.close();
  t.same(await serverSide.closed, { code: 1000, reason: '' });
});

t.test('a reset ends the stream on both sides and aborts reads and writes', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  const stream = await clientSide.openStream([['a', '1']]);
  const remote = accepted[0] as SpdyStream;
  stream.reset();
  t.equal(await readAll(remote), '', 'the reader ends');
  await remote.done;
  t.ok(remote.aborted);
  await t.rejects(remote.write(Buffer.from('x')), StreamClosedError);
  t.equal(serverSide.openStreams(), 0);
  clientSide.close();
  await serverSide.closed;
});

t.test('a refused stream rejects openStream and leaves nothing behind', async (t) => {
  const { client, server } = await socketPair(t);
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => false });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  await t.rejects(clientSide.openStream([['a', '1']]), { constructor: StreamClosedError, message: /refused/ });
  t.equal(clientSide.openStreams(), 0);
  t.equal(serverSide.openStreams(), 0);
  clientSide.close();
  await serverSide.closed;
});

t.test('the peer\'s pings are echoed with their id', async (t) => {
  const { client, server } = await socketPair(t);
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => true });
  const seen = framesFrom(client);
  client.send(encodePing(1));
  client.send(encodePing(2));
  client.send(encodePing(3));
  await until('two echoes', () => seen.length >= 2);
  t.same(seen, [{ type: 'ping', id: 1 }, { type: 'ping', id: 3 }], 'odd ids (the client\'s) echoed; even ones (ours) are not');
  serverSide.close();
});

t.test('malformed input closes with 1002 and a reason; nothing crashes, no stream is left', async (t) => {
  const cases: Array<[string, (ws: WebSocket) => void, number, RegExp]> = [
    ['a text message', (ws) => ws.send('hello'), CLOSE_PROTOCOL_ERROR, /binary messages only/],
    ['a wrong version', (ws) => ws.send(Buffer.from([0x80, 0x02, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1])), CLOSE_PROTOCOL_ERROR, /unsupported SPDY version 2/],
    ['a SYN_STREAM whose headers are not zlib', (ws) => ws.send(Buffer.from([0x80, 0x03, 0, 1, 0, 0, 0, 14, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4])),
      CLOSE_PROTOCOL_ERROR, /not valid zlib data/],
    ['a frame over the limit', (ws) => ws.send(encodeData(1, Buffer.alloc(2048))), CLOSE_TOO_BIG, /exceeds the limit of 1024/],
  ];
  for (const [name, send, code, reason] of cases) {
    const { client, server } = await socketPair(t);
    const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => true, maxFrameBytes: 1024 });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => client.once('close', (c, r) => resolve({ code: c, reason: r.toString() })));
    send(client);
    const seen = await closed;
    t.equal(seen.code, code, `${name}: close code`);
    t.match(seen.reason, reason, `${name}: close reason`);
    await serverSide.closed;
    t.equal(serverSide.openStreams(), 0);
  }
});

t.test('a new stream id that goes backwards is a protocol error', async (t) => {
  const { client, server } = await socketPair(t);
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: () => true });
  const compressor = new HeaderCompressor();
  t.teardown(() => compressor.close());
  client.send(encodeSynStream(3, await compressor.compress([['a', '1']])));
  client.send(encodeSynStream(1, await compressor.compress([['a', '2']])));
  t.match(await serverSide.closed, { code: CLOSE_PROTOCOL_ERROR, reason: /stream id 1 is not a new id/ });
});

t.test('an abrupt close ends every stream on both sides', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  const streams = await Promise.all([clientSide.openStream([['n', '1']]), clientSide.openStream([['n', '2']])]);
  client.terminate();
  await Promise.all([serverSide.closed, clientSide.closed]);
  await Promise.all([...streams, ...accepted].map((s) => s.done));
  t.ok([...streams, ...accepted].every((s) => s.aborted));
  t.equal(serverSide.openStreams() + clientSide.openStreams(), 0);
  await t.rejects(clientSide.openStream([['n', '3']]), StreamClosedError);
  t.equal(await readAll(accepted[0] as SpdyStream), '');
});

t.test('a reader that falls behind holds the socket (no flow control) until it is reset', async (t) => {
  const { client, server } = await socketPair(t);
  const accepted: SpdyStream[] = [];
  const serverSide = new SpdyConnection({ socket: server, role: 'server', onStream: (s) => (accepted.push(s), true) });
  const clientSide = new SpdyConnection({ socket: client, role: 'client' });
  const slow = await clientSide.openStream([['n', 'slow']]);
  const other = await clientSide.openStream([['n', 'other']]);
  const [slowRemote, otherRemote] = accepted as [SpdyStream, SpdyStream];
  void slow.write(Buffer.alloc(2 * 1024 * 1024, 'x')).catch(() => undefined);
  void other.write(Buffer.from('behind the slow one')).then(() => other.end());
  const otherText = readAll(otherRemote);
  slowRemote.reset();
  t.equal(await otherText, 'behind the slow one', 'the other stream\'s data arrives once the slow reader is gone');
  await otherRemote.end();
  await other.done;
  clientSide.close();
  await serverSide.closed;
  t.equal(serverSide.openStreams(), 0);
});
