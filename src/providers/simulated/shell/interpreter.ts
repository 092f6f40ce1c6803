/**
 * Runs a parsed script: lists, `&&`/`||`, pipelines (every stage a subshell, run concurrently
 * over bounded pipes), background jobs, compound commands, functions, redirections, and simple
 * commands resolved as functions, then builtins, then script files. A subshell (`( )`, a pipeline
 * stage, `$(...)`, `&`) is a fork: a copy of the variables, sharing the file system and the
 * signal hub. Traps run in the main shell only, between commands.
 */
import type { AndOr, Command, List, Pipeline, Script } from './ast.js';
import { ExitRequest, LoopControl, ReturnRequest, Unsupported, type Builtin, type CommandIO, type ShellHandle, type SignalName } from './context.js';
import { ExpansionError, expandToString, expandWords, type ExpansionScope } from './expansion.js';
import { normalizePath, type ShellFileSystem } from './fileSystem.js';
import { LimitExceeded, ScriptLimit, type ShellLimits } from './limits.js';
import { parse } from './parser.js';
import { redirect } from './redirections.js';
import { globMatch } from './glob.js';
import { Jobs } from './jobs.js';
import type { SignalHub } from './signalHub.js';
import { BrokenPipe, capped, Input, Pipe } from './streams.js';
import { Variables } from './variables.js';
import type { TerminalSize } from '../../provider.js';

export interface InterpreterOptions {
  readonly fs: ShellFileSystem;
  readonly hostname: string;
  readonly limits: ShellLimits;
  readonly hub: SignalHub;
  readonly now: () => number;
  readonly tty: boolean;
  readonly terminalSize: () => TerminalSize | undefined;
  readonly builtins: ReadonlyMap<string, Builtin>;
  /** The shell's own descriptors, where traps write. */
  readonly io: CommandIO;
}

export class Interpreter implements ShellHandle {
  readonly fs: ShellFileSystem;
  readonly limits: ShellLimits;
  readonly hostname: string;
  readonly tty: boolean;
  readonly terminalSize: () => TerminalSize | undefined;
  cwd = '/';
  status = 0;
  positional: string[] = [];
  name = 'sh';
  traps = new Map<SignalName | 'EXIT', string>();
  errexit = false;
  private vars: Variables;
  /** Inside an if/while condition or a non-final part of && / ||, where `set -e` does not apply. */
  private conditional = 0;
  private functions = new Map<string, Command>();
  private depth = 0;
  private substitutionStatus: number | undefined;
  private readonly root: boolean;
  private jobs: Jobs;

  constructor(private readonly options: InterpreterOptions, env: ReadonlyMap<string, string>, root = true) {
    this.fs = options.fs;
    this.limits = options.limits;
    this.hostname = options.hostname;
    this.tty = options.tty;
    this.terminalSize = options.terminalSize;
    this.root = root;
    this.jobs = new Jobs(options.limits.jobs);
    this.vars = Variables.environment(options.limits.valueLength, env);
  }

  now(): number {
    return this.options.now();
  }

  /** A subshell: a copy of this shell's state. */
  fork(): Interpreter {
    const child = new Interpreter(this.options, new Map(), false);
    child.vars = new Variables(this.limits.valueLength, this.vars);
    child.errexit = this.errexit;
    child.conditional = this.conditional;
    child.functions = new Map(this.functions);
    child.positional = [...this.positional];
    child.name = this.name;
    child.cwd = this.cwd;
    child.status = this.status;
    child.depth = this.depth;
    child.jobs = this.jobs;
    return child;
  }

  variable(name: string): string | undefined {
    if (/^[1-9]$/.test(name)) return this.positional[Number(name) - 1];
    switch (name) {
      case '?': return String(this.status);
      case '#': return String(this.positional.length);
      case '$': return '1';
      case '!': return this.jobs.last === undefined ? '' : String(this.jobs.last);
      case '0': return this.name;
      case '-': return '';
      default: return this.vars.get(name);
    }
  }

  setVariable(name: string, value: string): void {
    this.vars.set(name, value);
  }

  unsetVariable(name: string): void {
    this.vars.unset(name);
    this.functions.delete(name);
  }

  markExported(name: string): void {
    this.vars.export(name);
  }

  environment(): Map<string, string> {
    return this.vars.environment();
  }

  async sleep(ms: number): Promise<number> {
    return (await this.options.hub.sleep(ms)) ? 0 : 128 + 15;
  }

  kill(pid: number, signal: SignalName | 0): boolean {
    if (pid > 1) return this.jobs.kill(pid, signal);
    if (signal !== 0) this.deliver(signal);
    return true;
  }

  /** A signal to the shell itself: its trap if it has one, else death (KILL is never trapped). */
  deliver(signal: SignalName): void {
    const trap = signal === 'KILL' ? undefined : this.traps.get(signal);
    if (trap === undefined) this.options.hub.die(signal);
    else if (trap !== '') this.options.hub.interrupt(signal);
  }

  wait(pid?: number): Promise<number> {
    return this.jobs.wait(this.options.hub, pid);
  }

  block<T>(start: () => Promise<T>): Promise<{ readonly value: T } | 'interrupted'> {
    return this.options.hub.block(start);
  }

  /** Runs the traps of the signals that arrived (main shell only), keeping `$?` as it was. */
  async runTraps(): Promise<void> {
    const { hub } = this.options;
    while (this.root && hub.pending.length > 0) {
      const signal = hub.pending.shift() as SignalName;
      const action = this.traps.get(signal);
      if (action === undefined || action === '') continue;
      const status = this.status;
      await this.runScript(action, 'same', this.options.io);
      this.status = status;
    }
  }

  async runScript(text: string, scope: 'same' | { readonly name: string; readonly args: readonly string[] }, io: CommandIO): Promise<number> {
    const parsed = parse(text, this.limits);
    if (!parsed.ok) {
      if (parsed.unsupported) throw new Unsupported(parsed.error);
      await io.stderr(`sh: syntax error: ${parsed.error}\n`);
      return 2;
    }
    if (scope === 'same') return this.runParsed(parsed.script, io);
    const child = new Interpreter(this.options, this.environment(), false);
    child.name = scope.name;
    child.positional = [...scope.args];
    child.cwd = this.cwd;
    child.depth = this.depth;
    child.jobs = this.jobs;
    return child.isolated(() => child.runParsed(parsed.script, io));
  }

  async runParsed(script: Script, io: CommandIO): Promise<number> {
    return this.runList(script.body, io);
  }

  /** Runs `body` as a separate process would: its `exit` ends only it, a broken pipe gives 141. */
  async isolated(body: () => Promise<number>): Promise<number> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof ExitRequest || error instanceof ReturnRequest) return error.code;
      if (error instanceof BrokenPipe) return 141;
      if (error instanceof LoopControl) return this.status;
      throw error;
    }
  }

  async runList(list: List, io: CommandIO): Promise<number> {
    for (const item of list.items) {
      if (item.background) this.background(item.andOr, io);
      else this.status = await this.runAndOr(item.andOr, io);
    }
    return this.status;
  }

  private background(andOr: AndOr, io: CommandIO): void {
    const child = this.fork();
    this.jobs.start(() => child.isolated(() => child.runAndOr(andOr, { ...io, stdin: Input.empty() })));
    this.status = 0;
  }

  /** `set -e` ends the shell when the last pipeline of a list fails outside a condition. */
  private async runAndOr(andOr: AndOr, io: CommandIO): Promise<number> {
    const all: { op?: '&&' | '||'; pipeline: Pipeline }[] = [{ pipeline: andOr.first }, ...andOr.rest];
    let status = 0;
    for (const [i, { op, pipeline }] of all.entries()) {
      if (op !== undefined && (op === '&&') !== (status === 0)) continue;
      if (i > 0) this.status = status;
      const checked = i === all.length - 1 && !pipeline.negated;
      status = checked ? await this.runPipeline(pipeline, io) : await this.condition(() => this.runPipeline(pipeline, io));
      if (checked && status !== 0 && this.errexit && this.conditional === 0) throw new ExitRequest(status);
    }
    return status;
  }

  private async condition(body: () => Promise<number>): Promise<number> {
    this.conditional++;
    try {
      return await body();
    } finally {
      this.conditional--;
    }
  }

  private async runPipeline(pipeline: Pipeline, io: CommandIO): Promise<number> {
    const { commands } = pipeline;
    let status: number;
    if (commands.length === 1) status = await this.runCommand(commands[0] as Command, io);
    else {
      const pipes = commands.slice(1).map(() => new Pipe());
      const stages = commands.map(async (command, i) => {
        const stdin = i === 0 ? io.stdin : (pipes[i - 1] as Pipe).input;
        const out = pipes[i];
        const child = this.fork();
        try {
          return await child.isolated(() => child.runCommand(command, { stdin, stdout: out ? out.write : io.stdout, stderr: io.stderr }));
        } finally {
          out?.end();
          if (i > 0) stdin.close();
        }
      });
      const settled = await Promise.allSettled(stages);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      status = (settled[settled.length - 1] as PromiseFulfilledResult<number>).value;
    }
    return pipeline.negated ? (status === 0 ? 1 : 0) : status;
  }

  private async runCommand(command: Command, io: CommandIO): Promise<number> {
    await this.options.hub.step();
    await this.runTraps();
    const targets = [];
    for (const redirection of command.redirections) targets.push({ redirection, target: await expandToString(redirection.target, this.scope(io)) });
    const opened = targets.length === 0 ? io : redirect(io, targets, this.fs, (p) => normalizePath(p, this.cwd));
    if (typeof opened === 'string') {
      await io.stderr(`sh: ${opened}\n`);
      return 1;
    }
    if (++this.depth > this.limits.depth) throw new ScriptLimit(`nesting deeper than ${this.limits.depth} levels (runaway recursion?)`);
    try {
      return await this.runCompound(command, opened);
    } finally {
      this.depth--;
    }
  }

  private async runCompound(command: Command, io: CommandIO): Promise<number> {
    switch (command.type) {
      case 'simple': return this.runSimple(command, io);
      case 'group': return this.runList(command.body, io);
      case 'case': {
        const subject = await expandToString(command.subject, this.scope(io));
        const patterns = command.arms.flatMap((arm) => arm.patterns.map((pattern) => ({ pattern, arm })));
        for (const { pattern, arm } of patterns) if (globMatch(await expandToString(pattern, this.scope(io)), subject)) return this.runList(arm.body, io);
        return 0;
      }
      case 'subshell': {
        const child = this.fork();
        return child.isolated(() => child.runList(command.body, io));
      }
      case 'function':
        this.functions.set(command.name, command.body);
        return 0;
      case 'if': {
        for (const branch of command.branches) {
          if ((await this.condition(() => this.runList(branch.condition, io))) === 0) return this.runList(branch.body, io);
        }
        return command.otherwise ? this.runList(command.otherwise, io) : 0;
      }
      case 'loop': return this.loop(io, async () => ((await this.condition(() => this.runList(command.condition, io))) === 0) !== command.until, () => this.runList(command.body, io));
      case 'for': {
        const items = command.items ? await expandWords(command.items, this.scope(io)) : [...this.positional];
        let i = 0;
        return this.loop(io, () => {
          if (i >= items.length) return Promise.resolve(false);
          this.setVariable(command.name, items[i++] as string);
          return Promise.resolve(true);
        }, () => this.runList(command.body, io));
      }
    }
  }

  /** A loop with `break N`/`continue N`; its status is its body's last, or 0 when it never ran. */
  private async loop(_io: CommandIO, more: () => Promise<boolean>, body: () => Promise<number>): Promise<number> {
    let status = 0;
    for (;;) {
      await this.options.hub.step();
      if (!(await more())) return status;
      try {
        status = await body();
      } catch (error) {
        if (!(error instanceof LoopControl)) throw error;
        if (error.levels > 1) throw new LoopControl(error.kind, error.levels - 1);
        if (error.kind === 'break') return 0;
      }
    }
  }

  private scope(io: CommandIO): ExpansionScope {
    return {
      variable: (name) => this.variable(name),
      setVariable: (name, value) => this.setVariable(name, value),
      positional: () => this.positional,
      maxLength: this.limits.valueLength,
      substitute: async (script) => {
        let out = '';
        const child = this.fork();
        const collect = capped(async (chunk) => void (out += chunk), this.limits.outputBytes, '$(...)');
        this.substitutionStatus = await child.isolated(() => child.runParsed(script, { stdin: Input.empty(), stdout: collect, stderr: io.stderr }));
        return out;
      },
    };
  }

  private async runSimple(command: Extract<Command, { type: 'simple' }>, io: CommandIO): Promise<number> {
    this.substitutionStatus = undefined;
    let argv: string[];
    const assigned = new Map<string, string>();
    try {
      argv = await expandWords(command.words, this.scope(io));
      for (const { name, value } of command.assignments) assigned.set(name, await expandToString(value, this.scope(io)));
    } catch (error) {
      if (!(error instanceof ExpansionError) && !(error instanceof LimitExceeded)) throw error;
      await io.stderr(`sh: ${error.message}\n`);
      if (error instanceof ExpansionError && this.root) throw new ExitRequest(1);
      return 1;
    }
    if (argv.length === 0) {
      for (const [name, value] of assigned) this.setVariable(name, value);
      return this.substitutionStatus ?? 0;
    }
    const env = this.environment();
    for (const [name, value] of assigned) env.set(name, value);
    return this.runArgv(argv, io, env);
  }

  async runArgv(argv: readonly string[], io: CommandIO, env: ReadonlyMap<string, string> = this.environment()): Promise<number> {
    const [name, ...args] = argv;
    if (name === undefined) return 0;
    const fn = this.functions.get(name);
    if (fn) return this.callFunction(fn, args, io);
    const base = name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name;
    const path = name.includes('/') ? normalizePath(name, this.cwd) : undefined;
    const script = path === undefined ? undefined : this.fs.read(path);
    const builtin = this.options.builtins.get(name) ?? (script === undefined ? this.options.builtins.get(base) : undefined);
    if (builtin) {
      const stdout = capped(io.stdout, this.limits.outputBytes, base);
      const stderr = capped(io.stderr, this.limits.outputBytes, base);
      try {
        return await builtin({ name, args, stdin: io.stdin, stdout, stderr, shell: this, env });
      } catch (error) {
        if (!(error instanceof LimitExceeded)) throw error;
        await io.stderr(`${base}: ${error.message}\n`);
        return 1;
      }
    }
    if (script !== undefined && path !== undefined) return this.runScript(script.replace(/^#![^\n]*\n/, ''), { name, args }, io);
    if (path !== undefined && this.fs.isDirectory(path)) {
      await io.stderr(`sh: ${name}: Permission denied\n`);
      return 126;
    }
    await io.stderr(`sh: ${name}: not found\n`);
    return 127;
  }

  private async callFunction(body: Command, args: readonly string[], io: CommandIO): Promise<number> {
    const saved = this.positional;
    this.positional = [...args];
    try {
      return await this.runCommand(body, io);
    } catch (error) {
      if (error instanceof ReturnRequest) return error.code;
      throw error;
    } finally {
      this.positional = saved;
    }
  }
}
