/** The channel.k8s.io framing: what a client's message means, and what the kubelet side sends. */
import t from 'tap';
import { decodeClientFrame, encodeFrame, exitStatus, failureStatus, selectChannelProtocol } from '../../src/kubelet/channelProtocol.js';

const frame = (...bytes: number[]): Buffer => Buffer.from(bytes);

t.test('the client\'s preferred protocol among v5 and v4 wins; others are not spoken', async (t) => {
  t.equal(selectChannelProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io']), 'v5.channel.k8s.io');
  t.equal(selectChannelProtocol([' v4.channel.k8s.io', 'v5.channel.k8s.io']), 'v4.channel.k8s.io');
  t.equal(selectChannelProtocol(['base64.channel.k8s.io', 'channel.k8s.io']), undefined);
  t.equal(selectChannelProtocol([]), undefined);
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
