import { Writable } from 'node:stream';
import t from 'tap';
import { parseLogLevel, pinoLogger } from '../../src/adapters/pinoLogger.js';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

t.test('one JSON line per call: ISO time, level word, msg, and the bindings of every parent', async (t) => {
  const { lines, stream } = capture();
  const log = pinoLogger({ level: 'info', destination: stream }).child({ node: 'vk-1' }).child({ path: 'tether/node-vk-1/pods/shard-00/u1', pod: 'ns/web' });
  log.info('pod created', { attempt: 2 });
  log.warn('create failed', { error: new Error('quota exceeded') });
  log.debug('hidden below info');
  t.equal(lines.length, 2);
  t.match(lines[0], { level: 'info', msg: 'pod created', node: 'vk-1', pod: 'ns/web', path: 'tether/node-vk-1/pods/shard-00/u1', attempt: 2 });
  t.ok(!Number.isNaN(Date.parse(String(lines[0]?.['time']))), 'ISO time');
  t.same(lines[1]?.['error'], { name: 'Error', message: 'quota exceeded' });
  t.notOk('pid' in (lines[0] ?? {}) || 'hostname' in (lines[0] ?? {}), 'no pid/hostname noise');
});

t.test('levels: configurable, parsed leniently, silent drops everything', async (t) => {
  t.equal(parseLogLevel('DEBUG'), 'debug');
  t.equal(parseLogLevel('nonsense'), 'info');
  t.equal(parseLogLevel(undefined, 'warn'), 'warn');
  const { lines, stream } = capture();
  const log = pinoLogger({ level: 'debug', destination: stream });
  log.debug('seen');
  t.equal(lines.length, 1);
  const quiet = capture();
  pinoLogger({ level: 'silent', destination: quiet.stream }).error('dropped');
  t.equal(quiet.lines.length, 0);
});
