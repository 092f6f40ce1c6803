/** Where a command writes, and its exit codes: 0 done, 1 failed while running, 2 refused (bad config or usage). */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_REFUSED = 2;

/** A command line `parseArgs` refused (unknown option, missing value): exit 2 with a pointer to --help. */
export function usageError(io: Io, command: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  io.err(`tether ${command}: ${message}`);
  io.err(`Run 'tether ${command} --help' for usage.`);
  return EXIT_REFUSED;
}
