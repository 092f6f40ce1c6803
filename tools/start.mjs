// `npm start`: builds dist/ if any source file is newer than the built CLI, then runs `tether sandbox`
// with the given arguments (e.g. `npm start -- --detach`).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// Ctrl-C reaches the sandbox too (same process group); this process waits for its teardown.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => undefined);

const built = join('dist', 'src', 'cli', 'main.js');
const newest = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
  const p = join(dir, e.name);
  return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
}, 0);
if (!existsSync(built) || newest('src') > statSync(built).mtimeMs) {
  process.stderr.write('npm start: building dist/ (tsc -p tsconfig.build.json)\n');
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const run = spawnSync(process.execPath, [built, 'sandbox', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
