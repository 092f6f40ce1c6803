/**
 * Request attributes as kubelet v1.36.3 computes them. The table is the kubelet's own test table,
 * `AuthzTestCases(fineGrained=true)` in k8s.io/kubernetes@v1.36.3 pkg/kubelet/server/auth_test.go
 * (KubeletFineGrainedAuthz is GA and locked on in 1.36), every path under the five methods it
 * tests; the one difference is Tether's: exec, attach, portForward are `create` whatever the
 * method. Then property tests: any path at all gives attributes without throwing, percent-encoding
 * does not change them, and any path the stream routes would serve is authorized as `create`.
 */
import fc from 'fast-check';
import t from 'tap';
import { isSubpath, nodeRequestAttributes, requestAttributes, subresourceOf, verbOf } from '../../src/kubelet/requestAttributes.js';
import { parseRequestTarget } from '../../src/kubelet/requestTarget.js';
import { streamTarget } from '../../src/kubelet/streamRequest.js';

const KUBELET_TABLE: Readonly<Record<string, readonly string[]>> = {
  '/attach/{podNamespace}/{podID}/{containerName}': ['proxy'],
  '/attach/{podNamespace}/{podID}/{uid}/{containerName}': ['proxy'],
  '/checkpoint/{podNamespace}/{podID}/{containerName}': ['checkpoint'],
  '/configz': ['configz', 'proxy'],
  '/flagz': ['configz'],
  '/statusz': ['statusz'],
  '/containerLogs/{podNamespace}/{podID}/{containerName}': ['proxy'],
  '/debug/flags/v': ['proxy'],
  '/debug/pprof/{subpath:*}': ['proxy'],
  '/exec/{podNamespace}/{podID}/{containerName}': ['proxy'],
  '/exec/{podNamespace}/{podID}/{uid}/{containerName}': ['proxy'],
  '/healthz': ['healthz', 'proxy'],
  '/healthz/log': ['healthz', 'proxy'],
  '/healthz/ping': ['healthz', 'proxy'],
  '/healthz/syncloop': ['healthz', 'proxy'],
  '/logs/': ['log'],
  '/logs/{logpath:*}': ['log'],
  '/metrics': ['metrics'],
  '/metrics/slis': ['metrics'],
  '/metrics/cadvisor': ['metrics'],
  '/metrics/probes': ['metrics'],
  '/metrics/resource': ['metrics'],
  '/pods/': ['pods', 'proxy'],
  '/portForward/{podNamespace}/{podID}': ['proxy'],
  '/portForward/{podNamespace}/{podID}/{uid}': ['proxy'],
  '/run/{podNamespace}/{podID}/{containerName}': ['proxy'],
  '/run/{podNamespace}/{podID}/{uid}/{containerName}': ['proxy'],
  '/runningpods/': ['pods', 'proxy'],
  '/stats/': ['stats'],
  '/stats/summary': ['stats'],
};
const KUBELET_VERBS = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as const;
const STREAMS = /^\/(exec|attach|portForward)\//;

void t.test("the kubelet's table: subresources in the order tried, verb from the method", async (t) => {
  for (const [path, subresources] of Object.entries(KUBELET_TABLE)) {
    for (const [method, kubeletVerb] of Object.entries(KUBELET_VERBS)) {
      const verb = STREAMS.test(path) ? 'create' : kubeletVerb;
      t.same(nodeRequestAttributes('test', method, path), subresources.map((subresource) => ({ verb, resource: 'nodes', subresource, name: 'test' })), `${method} ${path}`);
    }
  }
});

void t.test('paths the kubelet table lists only in part, and methods it has no verb for', async (t) => {
  const subs = (path: string): string[] => nodeRequestAttributes('n', 'GET', path).map((a) => a.subresource);
  t.same(subs('/pods'), ['pods', 'proxy']);
  t.same(subs('/runningpods'), ['pods', 'proxy']);
  t.same(subs('/podsx'), ['proxy'], 'a prefix matches at a segment boundary only');
  t.same(subs('/stats'), ['stats']);
  t.same(subs('/spec/'), ['proxy'], 'no spec subresource in 1.36');
  t.same(subs('/%70ods'), ['pods', 'proxy'], 'classified percent-decoded, as the kubelet sees r.URL.Path');
  t.same(subs('/%zz/x'), ['proxy'], 'a segment that does not decode is kept as it is');
  t.equal(verbOf('HEAD'), '', 'the kubelet has no verb for HEAD: only a * rule allows it');
  t.equal(verbOf('OPTIONS'), '');
  t.equal(verbOf(undefined), '');
  t.equal(subresourceOf('/healthz/ping'), 'healthz', 'the most specific first');
  t.same(requestAttributes('n', 'POST', '/exec/a/b/c'), { verb: 'create', resource: 'nodes', subresource: 'proxy', name: 'n' });
});

void t.test("isSubpath as the kubelet's TestIsSubPath", async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['', '', true], ['foo', 'foo', true], ['/foo', '/foo', true], ['/foo/', '/foo/', true], ['/foo/bar', '/foo/bar', true],
    ['/foo', '/', true], ['/foo/', '/', true], ['/foo/bar', '/', true],
    ['/foo/', '/foo', true], ['/foo/bar', '/foo', true],
    ['/foo', '/bar', false], ['/foo', '/foobar', false], ['/foobar', '/foo', false],
  ];
  for (const [subpath, path, expected] of cases) t.equal(isSubpath(subpath, path), expected, `${subpath} under ${path}`);
});

const COARSE = new Set(['stats', 'metrics', 'log', 'checkpoint', 'statusz', 'configz', 'proxy']);
const FINE = new Set(['pods', 'healthz', 'configz']);

void t.test('any path and method gives one or two attribute sets, never a throw', async () => {
  fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.webPath()), fc.option(fc.string({ maxLength: 10 }), { nil: undefined }), (path, method) => {
    const attrs = nodeRequestAttributes('n', method, path);
    if (attrs.length < 1 || attrs.length > 2) return false;
    const last = attrs.at(-1);
    if (!last || !COARSE.has(last.subresource)) return false;
    if (attrs.length === 2 && !FINE.has(attrs[0]?.subresource ?? '')) return false;
    return attrs.every((a) => a.resource === 'nodes' && a.name === 'n' && a.verb === attrs[0]?.verb);
  }), { numRuns: 2_000 });
});

const segment = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('/') && !s.includes('%'));
const PREFIXES = ['', 'pods', 'healthz', 'configz', 'runningpods', 'stats', 'metrics', 'logs', 'exec', 'attach', 'portForward', 'containerLogs', 'flagz'];
const kubeletPath = fc.tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 4 })).map(([first, rest]) => `/${[first, ...rest].join('/')}`);
const encodeSome = (path: string, mask: readonly boolean[]): string =>
  [...path].map((c, i) => (c !== '/' && mask[i % mask.length] ? encodeURIComponent(c).replace(/^[^%]/, (x) => `%${x.charCodeAt(0).toString(16).padStart(2, '0')}`) : c)).join('');

void t.test('percent-encoding any characters of a path does not change its attributes', async () => {
  fc.assert(fc.property(kubeletPath, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), fc.constantFrom('GET', 'POST', 'DELETE'), (path, mask, method) => {
    const plain = nodeRequestAttributes('n', method, path);
    const encoded = nodeRequestAttributes('n', method, encodeSome(path, mask));
    return JSON.stringify(plain) === JSON.stringify(encoded);
  }), { numRuns: 2_000 });
});

void t.test('every path the stream routes would serve is authorized as create on nodes/proxy', async () => {
  const streamish = fc.tuple(fc.constantFrom('exec', 'attach', 'portForward', '%65xec', 'ex%65c', '%61ttach', 'port%46orward'), fc.array(fc.oneof(segment, fc.constant('%2F'), fc.constant('')), { maxLength: 5 }))
    .map(([first, rest]) => `/${[first, ...rest].join('/')}`);
  fc.assert(fc.property(fc.oneof(streamish, fc.webPath()), fc.constantFrom('GET', 'POST', 'HEAD', 'PUT'), (path, method) => {
    const target = parseRequestTarget(path);
    if (!target.ok || streamTarget(target.segments) === undefined) return true;
    return nodeRequestAttributes('n', method, target.pathname).every((a) => a.verb === 'create' && a.subresource === 'proxy');
  }), { numRuns: 3_000 });
});
