// Lint as architecture: promises are never dropped, switches over message unions are exhaustive,
// the layers of src/ (tools/lint/layers.js) are enforced on resolved import paths, and no file in
// src/ is over 400 lines (tools/lint/fileSize.js, whose temporary list of exceptions must shrink to empty),
// and optional fields are written with src/lib/defaults.ts, not conditional spreads (tools/lint/optionalFields.js).
import tseslint from 'typescript-eslint';
import { layerRules } from './tools/lint/layers.js';
import { fileSizeRules } from './tools/lint/fileSize.js';
import { optionalFieldRules } from './tools/lint/optionalFields.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tap/**', 'coverage/**', '.tether/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-depth': ['error', 4],
      'max-params': ['error', 5],
    },
  },
  {
    // tap's t.test() returns a promise the runner itself awaits.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }],
      }],
    },
  },
  ...layerRules(import.meta.dirname),
  ...fileSizeRules(),
  ...optionalFieldRules(),
);
