/** Every builtin by name: what a simulated container can run (the README lists what it cannot). */
import type { Builtin } from './context.js';
import { FILE_BUILTINS } from './fileBuiltins.js';
import { SHELL_BUILTINS } from './shellBuiltins.js';
import { SYSTEM_BUILTINS } from './systemBuiltins.js';
import { test } from './testBuiltin.js';
import { TEXT_BUILTINS } from './textBuiltins.js';

export const BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ...SHELL_BUILTINS, ...TEXT_BUILTINS, ...FILE_BUILTINS, ...SYSTEM_BUILTINS, ['test', test], ['[', test],
]);
