/** The channel.k8s.io framing: what a client's message means, and what the kubelet side sends. */
import t from 'tap';
import { decodeClientFrame, encodeFrame, exitStatus, failureStatus, frameFor, selectChannelProtocol, statusFrame } from '../../src/kubelet/channelProtocol.js';

const frame = (...bytes: number[]): Buffer => Buffer.from(bytes);

t.test('negotiation as the kubelet: v5 wherever it is offered, else the client\'s first spoken protocol, none offered is v1', async (t) => {
  t.equal(selectChannelProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io']), 'v5.channel.k8s.io');
  t.equal(selectChannelProtocol([' v4.channel.k8s.io', 'v5.channel.k8s.io']), 'v5.channel.k8s.io', 'the kubelet hands any v5 offer to its v5 translator');
  t.equal(selectChannelProtocol(['base64.channel.k8s.io', 'channel.k8s.io']), 'base64.channel.k8s.io');
  t.equal(selectChannelProtocol(['v3.channel.k8s.io', 'channel.k8s.io', 'v4.channel.k8s.io']), 'channel.k8s.io');
  t.equal(selectChannelProtocol(['v4.base64.channel.k8s.io']), 'v4.base64.channel.k8s.io');
  t.equal(selectChannelProtocol([]), '', 'no subprotocol: wsstream\'s "" protocol, v1 binary');
  t.equal(selectChannelProtocol(['v5.base64.channel.k8s.io', 'v2.channel.k8s.io', 'SPDY/3.1+portforward.k8s.io']), undefined);
});

t.test('base64 frames: a digit for the channel, standard base64 after it; stdin and resize decoded, bad base64 a protocol error', async (t) => {
  t.same(decodeClientFrame(Buffer.from('0aGk'), 'base64.channel.k8s.io'), { type: 'invalid', reason: 'stdin: not valid base64 under base64.channel.k8s.io' }, 'unpadded');
  t.same(decodeClientFrame(Buffer.from('0aG!K'), 'base64.channel.k8s.io'), { type: 'invalid', reason: 'stdin: not valid base64 under base64.channel.k8s.io' });
  t.same(decodeClientFrame(Buffer.from('0aGkKCg=='), 'v4.base64.channel.k8s.io'), { type: 'stdin', data: Buffer.from('hi\n\n') });
  t.same(decodeClientFrame(Buffer.from('0aGkK\r\nCg=='), 'v4.base64.channel.k8s.io'), { type: 'stdin', data: Buffer.from('hi\n\n') }, 'CR and LF skipped, as Go\'s decoder');
  t.same(decodeClientFrame(Buffer.from(`4${Buffer.from('{"Width":80,"Height":24}').toString('base64')}`), 'base64.channel.k8s.io'), { type: 'resize', width: 80, height: 24 });
  t.same(decodeClientFrame(Buffer.from('1!!!'), 'base64.channel.k8s.io'), { type: 'ignored' }, 'a channel the kubelet does not read is not decoded');
  t.same(decodeClientFrame(Buffer.from([255, 0]), 'v4.base64.channel.k8s.io'), { type: 'ignored' }, 'no half-close before v5');
  t.same(frameFor('base64.channel.k8s.io', 1, 'hi\n'), { payload: '1aGkK', binary: false });
  t.same(frameFor('v4.base64.channel.k8s.io', 2, Buffer.alloc(0)), { payload: '2', binary: false });
  t.same(frameFor('channel.k8s.io', 1, 'ok'), { payload: Buffer.from([1, 111, 107]), binary: true });
});

t.test('the end on the error channel: JSON Status from v4 on, v1 a failure\'s text and nothing on success', async (t) => {
  const failure = exitStatus(3);
  t.same(statusFrame('v5.channel.k8s.io', failure), { payload: encodeFrame(3, JSON.stringify(failure)), binary: true });
  t.same(statusFrame('v4.channel.k8s.io', exitStatus(0)), { payload: encodeFrame(3, '{"metadata":{},"status":"Success"}'), binary: true });
  t.same(statusFrame('channel.k8s.io', failure), { payload: encodeFrame(3, failure.message ?? ''), binary: true });
  t.same(statusFrame('', failureStatus('gone')), { payload: encodeFrame(3, 'gone'), binary: true });
  t.equal(statusFrame('channel.k8s.io', exitStatus(0)), undefined);
  t.equal(statusFrame('base64.channel.k8s.io', exitStatus(0)), undefined);
  t.same(statusFrame('base64.channel.k8s.io', failureStatus('gone')), { payload: `3${Buffer.from('gone').toString('base64')}`, binary: false });
  t.same(statusFrame('v4.base64.channel.k8s.io', exitStatus(0)), { payload: `3${Buffer.from('{"metadata":{},"status":"Success"}').toString('base64')}`, binary: false });
});

t.test('stdin and resize frames decode; output channels from a client are ignored', async (t) => {
  t.same(decodeClientFrame(Buffer.concat([frame(0), Buffer.from('hi\n')]), 'v5.channel.k8s.io'), { type: 'stdin', data: Buffer.from('hi\n') });
  t.same(decodeClientFrame(Buffer.concat([frame(4), Buffer.from('{"Width":80,"Height":24}')]), 'v5.channel.k8s.io'), { type: 'resize', width: 80, height: 24 });
  t.same(decodeClientFrame(frame(1, 65), 'v5.channel.k8s.io'), { type: 'ignored' });
  t.same(decodeClientFrame(frame(9, 65), 'v5.channel.k8s.io'), { type: 'ignored' }, 'an unknown channel, as wsstream does');
  t.same(decodeClientFrame(Buffer.alloc(0), 'v5.channel.k8s.io'), { type: 'ignored' }, 'an empty message');
});

t.test('v5 half-closes a channel with [255, channel]; v4 has no such signal', async (t) => {
  t.same(decodeClientFrame(frame(255, 0), 'v5.channel.k8s.io'), { type: 'close', channel: 0 });
  t.same(decodeClientFrame(frame(255, 0), 'v4.channel.k8s.io'), { type: 'ignored' });
});

t.test('malformed frames are protocol errors with a reason, never exceptions', async (t) => {
  t.match(decodeClientFrame(frame(255), 'v5.channel.k8s.io'), { type: 'invalid', reason: /exactly one channel byte, got 0/ });
  t.match(decodeClientFrame(frame(255, 0, 1), 'v5.channel.k8s.io'), { type: 'invalid', reason: /got 2/ });
  t.match(decodeClientFrame(frame(255, 7), 'v5.channel.k8s.io'), { type: 'invalid', reason: /unknown channel 7/ });
  t.match(decodeClientFrame(Buffer.concat([frame(4), Buffer.from('{"Width":')]), 'v5.channel.k8s.io'), { type: 'invalid', reason: /resize: not JSON/ });
  t.match(decodeClientFrame(Buffer.concat([frame(4), Buffer.from('{"Width":-1,"Height":2}')]), 'v5.channel.k8s.io'), { type: 'invalid', reason: /integers/ });
  t.match(decodeClientFrame(Buffer.concat([frame(4), Buffer.from('null')]), 'v5.channel.k8s.io'), { type: 'invalid' });
});

t.test('output frames carry the channel byte first', async (t) => {
  t.same([...encodeFrame(1, 'ok')], [1, 111, 107]);
  t.same([...encodeFrame(2, Buffer.alloc(0))], [2]);
});

t.test('exit codes become the Status client-go turns back into the code', async (t) => {
  t.same(exitStatus(0), { metadata: {}, status: 'Success' });
  t.match(exitStatus(3), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } });
  t.match(failureStatus('container not running'), { status: 'Failure', message: 'container not running', reason: 'InternalError' });
});
