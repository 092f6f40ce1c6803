// The layers of src/, as data, and the lint rules that enforce them (docs/architecture.md has the
// picture). A folder may import only from the folders listed for it; everything else is a lint
// error, resolved on real paths by eslint-plugin-import-x. The table is a DAG, so no two top-level
// folders can import each other (test/lint/layers.test.ts checks both the table and the rules).
import { readdirSync } from 'node:fs';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** Each folder of src/ and the folders it may import from. */
export const LAYERS = {
  lib: [],
  adapters: ['lib'],
  providers: ['lib', 'adapters'],
  runtime: ['lib', 'adapters'],
  supervisors: ['lib', 'adapters', 'runtime'],
  actors: ['lib', 'adapters', 'providers', 'runtime', 'supervisors'],
  ha: ['lib', 'adapters', 'runtime', 'supervisors'],
  kubelet: ['lib', 'adapters', 'providers'],
  observability: ['lib', 'adapters', 'providers', 'runtime'],
  config: ['lib', 'adapters', 'providers', 'runtime', 'supervisors', 'actors'],
  app: ['lib', 'adapters', 'providers', 'runtime', 'supervisors', 'actors', 'ha', 'kubelet', 'observability', 'config'],
  harness: ['lib', 'adapters'],
  sandbox: ['lib', 'adapters', 'harness', 'config'],
  cli: ['lib', 'adapters', 'providers', 'runtime', 'supervisors', 'actors', 'ha', 'kubelet', 'observability', 'config', 'app', 'harness', 'sandbox'],
};

/**
 * Providers are independent of each other: each reads only the contract beside it. Every folder of
 * src/providers is one provider, so adding a provider needs no line here.
 */
const PROVIDER_FOLDERS = readdirSync(new URL('../../src/providers', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The only homes of @kubernetes/client-node. */
export const CLIENT_NODE_HOMES = ['src/adapters/kubernetes/**', 'src/providers/kubernetes/**', 'src/harness/**'];

function zones() {
  const folders = Object.keys(LAYERS);
  const out = folders.map((folder) => ({
    target: `./src/${folder}`,
    from: folders.filter((other) => other !== folder && !LAYERS[folder].includes(other)).map((other) => `./src/${other}`),
    message: `src/${folder} may import only from ${LAYERS[folder].map((f) => `src/${f}`).join(', ') || 'nothing else in src'} (docs/architecture.md, "Layers").`,
  })).filter((zone) => zone.from.length > 0);
  for (const provider of PROVIDER_FOLDERS) {
    out.push({
      target: `./src/providers/${provider}`,
      from: PROVIDER_FOLDERS.filter((other) => other !== provider).map((other) => `./src/providers/${other}`),
      message: 'one provider never imports another; shared code belongs to src/providers itself.',
    });
  }
  return out;
}

/** The flat-config blocks; `root` is the repository's root (where tsconfig.json lives). */
export function layerRules(root) {
  return [
    {
      files: ['src/**/*.ts'],
      plugins: { 'import-x': importX },
      settings: {
        'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${root}/tsconfig.json` })],
        // no-cycle follows imports into other files, so it must be able to parse them.
        'import-x/extensions': ['.ts', '.js'],
        'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      },
      rules: {
        'import-x/no-restricted-paths': ['error', { basePath: root, zones: zones() }],
        // The table keeps folders acyclic; this keeps files acyclic too, inside a folder as well.
        'import-x/no-cycle': ['error', { ignoreExternal: true }],
      },
    },
    {
      files: ['src/**/*.ts'],
      ignores: CLIENT_NODE_HOMES,
      rules: {
        'no-restricted-imports': ['error', {
          paths: [{
            name: '@kubernetes/client-node',
            message: 'client-node lives only in src/adapters/kubernetes, src/providers/kubernetes and src/harness.',
          }],
        }],
      },
    },
  ];
}
