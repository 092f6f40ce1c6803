// `npm run build` ends here: the agent as one ES module, DIST/tether.mjs, from the compiled
// DIST/src; the image runs it (Dockerfile). The Tether side of bench:compare gets the same
// treatment (DIST/bench/compare/tetherNode.bundle.mjs) so that the bench measures the agent as it
// ships. Why one file: client-node's generated layer is ~2,600 modules, and each module record, its
// metadata and its source text stay resident for the life of the process; bundled, the API groups
// Tether never imports are dropped and the rest is one module (idle memory: docs/benchmarks.md,
// "The agent as one bundle"). Identifiers are not mangled, so stack traces and error names read as
// in the source.
//
// Usage: node tools/bundle/bundle.mjs [DIST]   (default: dist/ of this repository)
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = resolve(process.argv[2] ?? join(root, 'dist'));
const agent = { entry: join(dist, 'src', 'cli', 'main.js'), outfile: join(dist, 'tether.mjs') };
if (!existsSync(agent.entry)) {
  process.stderr.write(`bundle: ${agent.entry} is missing (run tsc -p tsconfig.build.json first)\n`);
  process.exit(1);
}
// The bench's entry is compiled only where bench/ is (tsconfig.build.json includes it).
const benchNode = { entry: join(dist, 'bench', 'compare', 'tetherNode.js'), outfile: join(dist, 'bench', 'compare', 'tetherNode.bundle.mjs') };
const bundles = existsSync(benchNode.entry) ? [agent, benchNode] : [agent];

for (const { entry, outfile } of bundles) {
  await build({
    absWorkingDir: root,
    // DIST may sit outside the repository (tools/image/build.sh compiles into a temporary
    // directory): packages resolve from the repository's node_modules all the same.
    nodePaths: [join(root, 'node_modules')],
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Whitespace only: the source text V8 keeps for lazy compilation shrinks; names stay as written.
    minifyWhitespace: true,
    // The CommonJS dependencies (client-node, pino, ws) call require(); an ES module has none.
    banner: { js: "import { createRequire as tetherCreateRequire } from 'node:module'; const require = tetherCreateRequire(import.meta.url);" },
    // whatwg-url (under client-node's fetch) asks for 'punycode', which in a bundle would resolve to
    // Node's deprecated builtin (a DEP0040 warning at start); the npm package it means is 'punycode/'.
    alias: { punycode: 'punycode/' },
    // ws uses these native helpers when installed and goes on without them when not.
    external: ['bufferutil', 'utf-8-validate'],
    legalComments: 'eof',
    logLevel: 'warning',
  });
}
