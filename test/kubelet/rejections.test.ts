/** Refusals: their reasons, what errors become, and a log that a flood cannot fill. */
import t from 'tap';
import { jsonLogger } from '../../src/adapters/logger.js';
import { InvalidLogQuery } from '../../src/kubelet/logQuery.js';
import { reasonOfCode, Refusal, refusalOf, rejectionReporter, type RejectionReason } from '../../src/kubelet/rejections.js';
import { InvalidStreamRequest } from '../../src/kubelet/streamRequest.js';
import { invalidInput, notFound, transient } from '../../src/providers/errors.js';
import { ManualClock } from '../support/manualClock.js';

t.test('errors become refusals: bad queries 400, provider errors by kind, anything else 500', async (t) => {
  t.match(refusalOf(new InvalidLogQuery('tailLines must be…')), { code: 400, reason: 'bad-request' });
  t.match(refusalOf(new InvalidStreamRequest('you must specify a command')), { code: 400, reason: 'bad-request' });
  t.match(refusalOf(notFound('pod shop/web')), { code: 404, reason: 'not-found', message: 'pod shop/web' });
  t.match(refusalOf(invalidInput('no such container')), { code: 400, reason: 'bad-request' });
  t.match(refusalOf(transient('remote down')), { code: 503, reason: 'unavailable' });
  t.match(refusalOf(new TypeError('oops')), { code: 500, reason: 'internal' });
  const refusal = new Refusal(429, 'stream-cap', 'too many', { 'Retry-After': '10' });
  t.equal(refusalOf(refusal), refusal, 'a refusal stays itself');
  t.same([401, 403, 404, 405, 429, 431, 501, 503, 502, 418].map(reasonOfCode),
    ['unauthenticated', 'forbidden', 'not-found', 'method-not-allowed', 'rate-limited', 'header-too-large', 'not-implemented', 'unavailable', 'internal', 'bad-request']);
});

t.test('every refusal is counted; the log has one line per reason per minute, the rest at debug, summed into the next', async (t) => {
  const clock = new ManualClock();
  const lines: Array<Record<string, unknown>> = [];
  const counted: RejectionReason[] = [];
  const report = rejectionReporter({ clock, logger: jsonLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)), sink: { onRejected: (r) => counted.push(r) } });
  const junk = { code: 400, reason: 'malformed-url' as const, message: 'Bad Request: invalid percent-encoding' };
  for (let i = 0; i < 1_000; i++) report(junk, { method: 'GET', target: '/%zz?command=secret-value' });
  report({ code: 503, reason: 'unavailable', message: 'the provider did not answer' }, { target: '/pods' });
  t.equal(counted.length, 1_001, 'each counted');
  const loud = lines.filter((l) => l['level'] !== 'debug');
  t.same(loud.map((l) => [l['level'], l['reason']]), [['info', 'malformed-url'], ['warn', 'unavailable']], 'one line per reason; 5xx at warn');
  t.equal(loud[0]?.['path'], '/%zz', 'the path, never the query');
  t.notOk(lines.some((l) => JSON.stringify(l).includes('secret-value')), 'no query in any line');
  clock.advance(60_000);
  report(junk, {});
  t.match(lines.at(-1), { level: 'info', reason: 'malformed-url', alsoRefusedSinceLastLine: 999 });
});

t.test('a sink that throws does not turn a refusal into a crash', async (t) => {
  const report = rejectionReporter({ clock: new ManualClock(), sink: { onRejected: () => { throw new Error('broken sink'); } } });
  t.doesNotThrow(() => report({ code: 400, reason: 'bad-request', message: 'x' }, {}));
});
