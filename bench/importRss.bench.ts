/**
 * What importing a module costs in memory, each module in a fresh Node process of its own: RSS,
 * heap used and heap total after the import and a full GC, as docs/benchmarks.md's "Idle RSS"
 * tables give them. The Tether agent's idle RSS with no pods is mostly its import graph
 * (client-node's generated layer); this is how each try at cutting it is measured.
 *
 *   npm run build && node dist/bench/importRss.bench.js                 # the default list below
 *   node dist/bench/importRss.bench.js --node /path/to/node24/bin/node  # the same under another Node
 *   node dist/bench/importRss.bench.js --runs 3 @kubernetes/client-node ./dist/src/app/tetherAgent.js
 *
 * A specifier is imported as given from the repository's root (a package name, or a path starting
 * with ./); `-` is the bare process. Extra node flags for the child: `--flags="--max-semi-space-size=1"` (with `=`: the value starts with a dash).
 * Prints one Markdown row per module, medians of `--runs` processes; nothing here is asserted.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repositoryRoot } from './clusterBench.js';
import { fmt, median } from './measure.js';

const DEFAULT_MODULES = [
  '-',
  '@kubernetes/client-node',
  './node_modules/@kubernetes/client-node/dist/gen/models/ObjectSerializer.js',
  './node_modules/@kubernetes/client-node/dist/gen/apis/CoreV1Api.js',
  './dist/src/adapters/kubernetes/kubeClients.js',
  './dist/src/app/tetherAgent.js',
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    node: { type: 'string', default: process.execPath },
    runs: { type: 'string', default: '1' },
    flags: { type: 'string', default: '' },
  },
});

interface Sample { rssMiB: number; heapUsedMiB: number; heapTotalMiB: number }

/** The child: import, GC twice (weak references and finalizers settle), wait, then print. */
function childScript(specifier: string): string {
  const target = specifier === '-' ? '' : specifier.startsWith('./') ? pathToFileURL(join(repositoryRoot, specifier)).href : specifier;
  return [
    target ? `await import(${JSON.stringify(target)});` : '',
    'gc(); await new Promise((r) => setTimeout(r, 1000)); gc();',
    'const m = process.memoryUsage();',
    'process.stdout.write(JSON.stringify({ rssMiB: m.rss / 1048576, heapUsedMiB: m.heapUsed / 1048576, heapTotalMiB: m.heapTotal / 1048576 }));',
    // Modules that start timers (prom-client's, the agent's) must not keep the child alive.
    'process.exit(0);',
  ].join('\n');
}

function sample(specifier: string): Sample {
  const flags = values.flags.split(' ').filter(Boolean);
  const out = execFileSync(values.node, ['--expose-gc', ...flags, '--input-type=module', '-e', childScript(specifier)], { cwd: repositoryRoot, encoding: 'utf8' });
  return JSON.parse(out) as Sample;
}

const modules = positionals.length > 0 ? positionals : DEFAULT_MODULES;
const runs = Number(values.runs);
const version = execFileSync(values.node, ['--version'], { encoding: 'utf8' }).trim();
process.stdout.write(`Node ${version}${values.flags ? ` ${values.flags}` : ''}; medians of ${runs} process(es) per module\n\n`);
process.stdout.write('| imported | RSS (MiB) | heap used (MiB) | heap total (MiB) |\n|---|---|---|---|\n');
for (const specifier of modules) {
  const samples = Array.from({ length: runs }, () => sample(specifier));
  const cell = (pick: (s: Sample) => number): string => fmt(median(samples.map(pick)), 0);
  process.stdout.write(`| ${specifier === '-' ? 'nothing (bare node)' : `\`${specifier}\``} | ${cell((s) => s.rssMiB)} | ${cell((s) => s.heapUsedMiB)} | ${cell((s) => s.heapTotalMiB)} |\n`);
}
