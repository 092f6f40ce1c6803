/**
 * `$(VAR)` expansion as the kubelet applies it to env values, `command` and `args`
 * (third_party/forked/golang/expansion): `$(NAME)` becomes the variable's value, an unknown name
 * stays `$(NAME)` as written, `$$` is one literal `$`, an unclosed `$(` and any other `$x` stay as
 * they are. Nothing else (no `$NAME`, no shell syntax): that is the shell's, later.
 */
import type { PodSpec } from '../../adapters/kubernetes/model.js';
import { definedOnly } from '../../lib/defaults.js';

type Container = PodSpec['containers'][number];

/** One string, expanded against `env`. */
export function expandReferences(input: string, env: ReadonlyMap<string, string>): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (c !== '$' || i + 1 >= input.length) {
      out += c;
      i++;
      continue;
    }
    const next = input[i + 1] as string;
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close < 0) {
        out += '$(';
        i += 2;
      } else {
        const name = input.slice(i + 2, close);
        out += env.get(name) ?? `$(${name})`;
        i = close + 1;
      }
    } else {
      out += `$${next}`;
      i += 2;
    }
  }
  return out;
}

/** The container's `command` and `args`, each word expanded, as the kubelet hands them to the runtime. */
export function expandedCommand(container: Pick<Container, 'command' | 'args'>, env: ReadonlyMap<string, string>): { command?: string[]; args?: string[] } {
  const words = (list: string[] | undefined): string[] | undefined =>
    list === undefined || list.length === 0 ? undefined : list.map((w) => expandReferences(w, env));
  return definedOnly({ command: words(container.command), args: words(container.args) });
}
