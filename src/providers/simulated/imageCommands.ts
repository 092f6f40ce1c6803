/**
 * What a simulated container runs, decided as a node would from its spec and image: `command`
 * (plus `args`) when given; else `args` alone (the image's entrypoint is taken as empty); else the
 * image's default command from the table below (or the provider's `imageCommands`, over it).
 * A program the built-in shell runs (a shell such as `sh -c`, or one of its commands) runs there;
 * any other (`nginx`, `/app/server`) is a long-running server, and says so once in its log. An
 * image with no entry and no command is a long-running server too (its log the synthetic lines),
 * except a regular init container, which completes at once, as before commands ran.
 */
import type { PodSpec } from '../../adapters/kubernetes/model.js';
import { BUILTIN_COMMANDS } from './builtinShell.js';

type Container = PodSpec['containers'][number];

/** Image repository (no registry `docker.io/`, no `library/`, no tag or digest) → its default argv. */
export type ImageCommands = Readonly<Record<string, readonly string[]>>;

/** The images whose real default command ends by itself; every other image runs as a server. */
export const DEFAULT_IMAGE_COMMANDS: ImageCommands = {
  'hello-world': ['sh', '-c', 'echo; echo "Hello from Docker!"; echo "This message shows that your installation appears to be working correctly."'],
};

export type ContainerProgram =
  /** Runs until stopped, at no cost; `note` is written once to its log (an unknown program). */
  | { readonly kind: 'server'; readonly note?: string }
  /** Exits 0 as soon as it starts: a regular init container with nothing to run. */
  | { readonly kind: 'instant' }
  /** Runs in the built-in shell. */
  | { readonly kind: 'shell'; readonly argv: readonly string[] };

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash'].flatMap((name) => [name, `/bin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`]));
const BUILTINS = new Set<string>(BUILTIN_COMMANDS.map((c) => c.split(' ')[0] as string));

/** `docker.io/library/busybox:1.36` and `busybox@sha256:…` → `busybox`. */
export function imageRepository(image: string): string {
  let name = image.includes('@') ? image.slice(0, image.indexOf('@')) : image;
  name = name.replace(/:[^/:]*$/, '');
  name = name.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '');
  return name.replace(/^library\//, '');
}

/** Whether the built-in shell runs `program` (a shell or one of its commands). */
export function shellRuns(program: string): boolean {
  return SHELLS.has(program) || BUILTINS.has(program);
}

/** The programs without a part of their own, one object each for every container (memory per idle pod). */
const SERVER: ContainerProgram = Object.freeze({ kind: 'server' });
const INSTANT: ContainerProgram = Object.freeze({ kind: 'instant' });

/** `command` and `args` already expanded (commandExpansion.ts). */
export function containerProgram(
  container: Pick<Container, 'image'>,
  words: { command?: readonly string[]; args?: readonly string[] },
  regularInit: boolean,
  table: ImageCommands,
): ContainerProgram {
  const argv = words.command !== undefined ? [...words.command, ...(words.args ?? [])]
    : words.args ?? table[imageRepository(container.image ?? '')];
  if (argv === undefined || argv.length === 0) return regularInit ? INSTANT : SERVER;
  const program = argv[0] as string;
  if (shellRuns(program)) return { kind: 'shell', argv };
  return { kind: 'server', note: `simulated node: "${program}" is not a program the built-in shell runs; it runs as a long-running server until stopped\n` };
}
