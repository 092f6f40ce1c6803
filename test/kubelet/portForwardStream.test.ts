/**
 * A port-forward stream's headers read as the kubelet reads them: a table of what is accepted
 * (with the pre-1.6 pairing by stream id when requestID is missing) and what is refused, and why.
 */
import t from 'tap';
import { readPortForwardStream } from '../../src/kubelet/portForwardStream.js';

const headers = (pairs: Record<string, string>): Map<string, string[]> => new Map(Object.entries(pairs).map(([k, v]) => [k.toLowerCase(), [v]]));

t.test('accepted streams', async (t) => {
  t.same(readPortForwardStream(headers({ streamType: 'data', port: '8080', requestID: '7' }), 3), { ok: true, streamType: 'data', port: 8080, requestId: '7' });
  t.same(readPortForwardStream(headers({ streamType: 'error', port: '1' }), 5), { ok: true, streamType: 'error', port: 1, requestId: '5' }, 'no requestID: the error stream\'s own id');
  t.same(readPortForwardStream(headers({ streamType: 'data', port: '65535' }), 7), { ok: true, streamType: 'data', port: 65535, requestId: '5' }, 'no requestID: the data stream pairs with the stream two ids before');
});

t.test('refused streams say why', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ streamType: 'data' }, /"port" header is required/],
    [{ streamType: 'data', port: '' }, /"port" header is required/],
    [{ streamType: 'data', port: '80a' }, /unable to parse "80a" as a port/],
    [{ streamType: 'data', port: '-1' }, /unable to parse "-1" as a port/],
    [{ streamType: 'data', port: '0' }, /port "0" must be between 1 and 65535/],
    [{ streamType: 'data', port: '65536' }, /port "65536" must be between 1 and 65535/],
    [{ port: '80' }, /invalid stream type "": must be data or error/],
    [{ streamType: 'stdout', port: '80' }, /invalid stream type "stdout"/],
  ];
  for (const [pairs, reason] of cases) t.match(readPortForwardStream(headers(pairs), 1), { ok: false, reason }, JSON.stringify(pairs));
});
