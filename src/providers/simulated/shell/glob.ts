/** Shell patterns (`*`, `?`, `[abc]`, `[!a-z]`, `\x`) for `case`, matched against a whole string. */

const cache = new Map<string, RegExp>();

function toRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (c === '\\' && i + 1 < pattern.length) source += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    else if (c === '[' && pattern.indexOf(']', i + 2) > 0) {
      const end = pattern.indexOf(']', i + 2);
      const body = pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
      source += `[${body}]`;
      i = end;
    } else source += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}$`);
  }
}

export function globMatch(pattern: string, text: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    regex = toRegExp(pattern);
    if (cache.size > 256) cache.clear();
    cache.set(pattern, regex);
  }
  return regex.test(text);
}
