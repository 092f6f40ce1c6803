import type { Io } from '../io.js';
export const sandboxHelp = 'Usage: tether sandbox';
export async function sandboxCommand(_args: readonly string[], io: Io): Promise<number> {
  io.err('not yet');
  return 1;
}
