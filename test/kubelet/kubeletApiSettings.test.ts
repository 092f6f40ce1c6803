/** The config file's kubeletApi bounds, in seconds, become the kubelet server's options in milliseconds. */
import t from 'tap';
import { kubeletServerLimits } from '../../src/kubelet/kubeletApiSettings.js';

t.test('each field maps to its option; what is left out stays out (the server\'s defaults apply)', async (t) => {
  t.same(kubeletServerLimits(undefined), { streams: {} });
  t.same(kubeletServerLimits({
    requestTimeoutSeconds: 2.5,
    streams: { maxPerNode: 32, maxPerUser: 4, maxPerPod: 8, idleTimeoutSeconds: 600, maxSessionSeconds: 0, maxMessageBytes: 65536 },
  }), {
    requestTimeoutMs: 2500,
    streams: { maxConcurrentStreams: 32, maxStreamsPerUser: 4, maxStreamsPerPod: 8, streamIdleTimeoutMs: 600_000, maxSessionMs: 0, maxMessageBytes: 65536 },
  });
});
