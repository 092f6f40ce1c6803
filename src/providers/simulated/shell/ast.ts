/**
 * The syntax tree of a shell script, as the parser (parser.ts) builds it and the interpreter
 * (interpreter.ts) runs it: every node a discriminated union on `type`, nothing evaluated yet.
 */

/** One piece of a word; `quoted` pieces are never split into fields. */
export type WordPart =
  | { readonly type: 'literal'; readonly text: string; readonly quoted: boolean }
  | { readonly type: 'parameter'; readonly name: string; readonly quoted: boolean; readonly modifier?: ParameterModifier }
  | { readonly type: 'length'; readonly name: string; readonly quoted: boolean }
  | { readonly type: 'command'; readonly script: Script; readonly quoted: boolean }
  | { readonly type: 'arithmetic'; readonly expression: string; readonly quoted: boolean };

/** `${NAME:-word}` and its relatives: `op` without the colon tests only unset, with it unset or empty. */
export interface ParameterModifier {
  readonly op: ':-' | '-' | ':=' | '=' | ':+' | '+' | ':?' | '?';
  readonly word: Word;
}

export interface Word {
  readonly parts: readonly WordPart[];
}

export type RedirectOp = '>' | '>>' | '<' | '>&' | '<&';

/** `[fd]op target`; for `>&`/`<&` the target is a descriptor number (or `-` to close). */
export interface Redirection {
  readonly fd: number;
  readonly op: RedirectOp;
  readonly target: Word;
}

export interface Assignment {
  readonly name: string;
  readonly value: Word;
}

export type Command =
  | { readonly type: 'simple'; readonly assignments: readonly Assignment[]; readonly words: readonly Word[]; readonly redirections: readonly Redirection[] }
  | { readonly type: 'if'; readonly branches: readonly { readonly condition: List; readonly body: List }[]; readonly otherwise?: List; readonly redirections: readonly Redirection[] }
  | { readonly type: 'loop'; readonly until: boolean; readonly condition: List; readonly body: List; readonly redirections: readonly Redirection[] }
  | { readonly type: 'for'; readonly name: string; readonly items?: readonly Word[]; readonly body: List; readonly redirections: readonly Redirection[] }
  | { readonly type: 'case'; readonly subject: Word; readonly arms: readonly { readonly patterns: readonly Word[]; readonly body: List }[]; readonly redirections: readonly Redirection[] }
  | { readonly type: 'group'; readonly body: List; readonly redirections: readonly Redirection[] }
  | { readonly type: 'subshell'; readonly body: List; readonly redirections: readonly Redirection[] }
  | { readonly type: 'function'; readonly name: string; readonly body: Command; readonly redirections: readonly Redirection[] };

/** `a | b | c`, `!` inverting its status. */
export interface Pipeline {
  readonly negated: boolean;
  readonly commands: readonly Command[];
}

/** Pipelines joined by `&&` and `||`, left to right. */
export interface AndOr {
  readonly first: Pipeline;
  readonly rest: readonly { readonly op: '&&' | '||'; readonly pipeline: Pipeline }[];
}

/** Commands separated by `;`, newlines or `&` (background). */
export interface List {
  readonly items: readonly { readonly andOr: AndOr; readonly background: boolean }[];
}

export interface Script {
  readonly type: 'script';
  readonly body: List;
}
