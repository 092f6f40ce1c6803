import t from 'tap';
import { REPO_ROOT } from '../harness/sharedClusters.js';
import { lintAs } from './lintAs.js';
// @ts-expect-error: a plain JS module of the lint config, with no type declarations.
import { LAYERS, layerRules } from '../../tools/lint/layers.js';

const layers = LAYERS as Record<string, string[]>;

/** Lints `code` as if it were the file at `path` (it need not exist), with only the layer rules. */
const problems = (path: string, code: string): Promise<string[]> => lintAs(layerRules(REPO_ROOT) as unknown[], path, code);

void t.test('the layer table is a DAG over existing folders: no two folders of src/ can import each other', async (t) => {
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (folder: string, path: string[]): void => {
    if (done.has(folder)) return;
    if (visiting.has(folder)) t.fail(`cycle: ${[...path, folder].join(' -> ')}`);
    visiting.add(folder);
    for (const dep of layers[folder] ?? []) {
      t.ok(dep in layers, `${folder} names ${dep}, a folder of the table`);
      visit(dep, [...path, folder]);
    }
    visiting.delete(folder);
    done.add(folder);
  };
  for (const folder of Object.keys(layers)) visit(folder, []);
  t.same(layers.lib, [], 'lib imports nothing');
});

void t.test('an import that crosses a layer the wrong way fails lint', async (t) => {
  const found = await problems('src/runtime/probe.ts', "import { Supervisor } from '../supervisors/supervisor.js';\nexport const s = Supervisor;\n");
  t.match(found.join('\n'), /import-x\/no-restricted-paths: .*src\/runtime may import only from src\/lib, src\/adapters/);
  const lib = await problems('src/lib/probe.ts', "import { systemClock } from '../adapters/clock.js';\nexport const c = systemClock;\n");
  t.match(lib.join('\n'), /no-restricted-paths/, 'lib imports nothing from src');
  const provider = await problems('src/providers/simulated/probe.ts', "import { KubernetesProvider } from '../kubernetes/index.js';\nexport const k = KubernetesProvider;\n");
  t.match(provider.join('\n'), /one provider never imports another/);
});

void t.test('an import that follows the layers passes', async (t) => {
  t.same(await problems('src/supervisors/probe.ts', "import { Cell } from '../runtime/cell.js';\nexport const c = Cell;\n"), []);
  t.same(await problems('src/actors/probe.ts', "import { classify } from '../providers/errors.js';\nexport const c = classify;\n"), []);
});

void t.test('client-node is refused outside its three homes', async (t) => {
  const code = "import { KubeConfig } from '@kubernetes/client-node';\nexport const k = KubeConfig;\n";
  t.match((await problems('src/app/probe.ts', code)).join('\n'), /no-restricted-imports: .*client-node lives only in/);
  t.match((await problems('src/actors/pod/probe.ts', code)).join('\n'), /no-restricted-imports/);
  for (const home of ['src/adapters/kubernetes/probe.ts', 'src/providers/kubernetes/probe.ts', 'src/harness/probe.ts']) {
    t.same(await problems(home, code), [], `allowed in ${home}`);
  }
});
