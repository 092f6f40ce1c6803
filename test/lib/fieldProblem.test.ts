import fc from 'fast-check';
import t from 'tap';
import { about, formatPath, formatProblem, plainPath, retryProblems, under, type FieldStep } from '../../src/lib/fieldProblem.js';

void t.test('a path is written as in the file: fields with dots, indexes and keyed entries in brackets, odd names quoted', async (t) => {
  t.equal(formatPath(['nodes', 1, 'ping', 'intervalMs']), 'nodes[1].ping.intervalMs');
  t.equal(formatPath(['spec', 'containers', { key: 'web' }, 'ports', { key: '80' }, 'hostPort']), 'spec.containers[web].ports[80].hostPort');
  t.equal(formatPath(['labels', 'a/b']), 'labels["a/b"]');
  t.equal(formatPath([]), '(top level)');
});

void t.test('one format names the object, the field, the value and the line, each when known', async (t) => {
  t.equal(formatProblem({ object: 'tether.yaml', path: ['nodes', 1, 'ping', 'intervalMs'], message: 'expected a positive number, got -5', line: 12 }),
    'tether.yaml: nodes[1].ping.intervalMs: expected a positive number, got -5 (line 12)');
  t.equal(formatProblem({ path: ['spec', 'volumes', { key: 'root' }, 'hostPath'], value: '/', message: 'host paths are refused' }),
    'spec.volumes[root].hostPath (/): host paths are refused');
  t.equal(formatProblem(about('TETHER_LEASE_NAMESPACE', under(['lease'], [{ path: ['namespace'], message: 'expected a name' }]))[0]!),
    'TETHER_LEASE_NAMESPACE: lease.namespace: expected a name');
  t.same(retryProblems({ minMs: 10, maxMs: 5 }, ['retry']).map(formatProblem), ['retry.maxMs: must not be below retry.minMs (10)']);
});

const step: fc.Arbitrary<FieldStep> = fc.oneof(fc.string({ maxLength: 8 }), fc.nat({ max: 99 }), fc.record({ key: fc.stringMatching(/^[a-z0-9-]{1,8}$/) }));

void t.test('any path formats without throwing, and the problem line starts with its object and the path (property)', async () => {
  fc.assert(fc.property(fc.array(step, { maxLength: 6 }), fc.string({ minLength: 1, maxLength: 10 }), fc.string({ maxLength: 20 }), (path, object, message) => {
    const text = formatProblem({ object, path, message });
    return text.startsWith(`${object}: ${formatPath(path)}: `) && text.endsWith(message) && plainPath(path).length === path.length;
  }));
  fc.assert(fc.property(fc.array(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,6}$/), { minLength: 1, maxLength: 5 }), (names) => formatPath(names) === names.join('.')));
});
