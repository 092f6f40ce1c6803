/**
 * The request target and the per-route parsers behind it, as specifications and as properties
 * over arbitrary strings: nothing a client sends makes them throw anything but their own
 * "invalid request" errors, and what parses is a path.
 */
import fc from 'fast-check';
import t from 'tap';
import { containerLogTarget, InvalidLogQuery, parseLogOptions } from '../../src/kubelet/logQuery.js';
import { MAX_TARGET_LENGTH, parseRequestTarget } from '../../src/kubelet/requestTarget.js';
import { InvalidStreamRequest, parseStreamOptions, streamTarget } from '../../src/kubelet/streamRequest.js';

const ok = (raw: string): { pathname: string; segments: readonly string[]; query: URLSearchParams } => {
  const target = parseRequestTarget(raw);
  if (!target.ok) throw new Error(`expected ${raw} to parse: ${target.message}`);
  return target;
};

t.test('a path and its query; percent-escapes decoded per segment, the path normalized as WHATWG does', async (t) => {
  const target = ok('/containerLogs/shop/web%2Dapp/app?tailLines=2&follow');
  t.equal(target.pathname, '/containerLogs/shop/web%2Dapp/app');
  t.same(target.segments, ['containerLogs', 'shop', 'web-app', 'app']);
  t.equal(target.query.get('tailLines'), '2');
  t.same(ok('/pods/').segments, ['pods', '']);
  t.equal(ok('/stats/../pods').pathname, '/pods', 'dot segments resolved, so authorization and routing see one path');
  t.equal(ok(undefined as unknown as string).pathname, '/', 'no target at all is /');
});

t.test('what once ended the process is a path: //, //[, //x:99999, //a@b:c (Go reads them so too)', async (t) => {
  for (const raw of ['//', '//[', '//x:99999', '//a@b:c', '/\\evil']) {
    const target = ok(raw);
    t.ok(target.pathname.startsWith('//'), `${raw} → ${target.pathname}`);
  }
});

t.test('malformed: a bad escape, not a path, a control character or space, too long', async (t) => {
  for (const raw of ['/%zz', '//%', '/exec/%E0%A4%A/x', '*', 'pods', 'http://evil/pods', '/a b', '/a\tb', '/\u0000', '/\u007f', `/${'a'.repeat(MAX_TARGET_LENGTH)}`]) {
    const target = parseRequestTarget(raw);
    t.equal(target.ok, false, JSON.stringify(raw.slice(0, 30)));
    if (!target.ok) t.match(target.message, /^Bad Request: /);
  }
});

const anyTarget = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }).map((s) => `/${s}`),
  fc.array(fc.constantFrom('/', '//', '%', '%2', '%zz', '%E0', '%A4', '[', ']', ':', '@', '?', '#', '\\', '..', '.', 'a', '99999', ' ', '\u0000'), { maxLength: 30 }).map((parts) => parts.join('')),
);

t.test('property: never throws; what parses is a path whose segments decode and which reparses to itself', async () => {
  fc.assert(fc.property(anyTarget, (raw) => {
    const target = parseRequestTarget(raw);
    if (!target.ok) return target.message.startsWith('Bad Request: ');
    const again = parseRequestTarget(target.pathname);
    return target.pathname.startsWith('/') && target.segments.length === target.pathname.split('/').length - 1 &&
      again.ok && again.pathname === target.pathname;
  }), { numRuns: 5_000 });
});

t.test('property: the route parsers never throw on any segments, and the query parsers throw only their own refusal', async () => {
  const segments = fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 7 });
  fc.assert(fc.property(segments, (parts) => {
    streamTarget(parts);
    containerLogTarget(parts);
    return true;
  }), { numRuns: 3_000 });
  const queries = fc.oneof(fc.string({ unit: 'binary', maxLength: 120 }), fc.array(fc.tuple(
    fc.constantFrom('follow', 'tailLines', 'sinceSeconds', 'sinceTime', 'limitBytes', 'previous', 'timestamps', 'command', 'input', 'output', 'error', 'tty', 'stdin'),
    fc.oneof(fc.constantFrom('', '1', '0', 'true', 'false', '-1', '1e400', '9007199254740993', 'NaN', '2026-01-01T00:00:00Z'), fc.string({ maxLength: 10 })),
  ), { maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')));
  fc.assert(fc.property(queries, (query) => {
    const params = new URLSearchParams(query);
    for (const parse of [() => parseLogOptions(params), () => parseStreamOptions('exec', params), () => parseStreamOptions('attach', params)]) {
      try {
        parse();
      } catch (error) {
        if (!(error instanceof InvalidLogQuery) && !(error instanceof InvalidStreamRequest)) return false;
      }
    }
    return true;
  }), { numRuns: 3_000 });
});

t.test('log counts past the safe integers are refused, not passed on rounded', async (t) => {
  for (const query of ['tailLines=9007199254740993', 'limitBytes=1e400']) {
    t.throws(() => parseLogOptions(new URLSearchParams(query)), /must be a non-negative integer/, query);
  }
});
