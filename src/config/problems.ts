/**
 * Schema issues as problems a person can act on (lib/fieldProblem.ts), shown as:
 *   tether.yaml: nodes[1].ping.intervalMs: expected a positive number, got -5 (line 12)
 * Each names the source (the file, or the flag or environment variable that overrode the field),
 * the field path as written in the file, what is expected, and the value found.
 */
import type { Document, LineCounter } from 'yaml';
import { isMap, isNode, isScalar } from 'yaml';
import { z } from 'zod';
import { formatPath, plainPath, type FieldPath, type FieldProblem } from '../lib/fieldProblem.js';
import { knownFields } from './knownFields.js';

/** Where the value at a path came from when it was not the file (a flag or an environment variable). */
export type OverrideSources = ReadonlyMap<string, string>;

export interface ProblemContext {
  /** The file as the user named it. */
  readonly file: string;
  readonly raw: unknown;
  readonly schema: z.ZodType;
  readonly overrides: OverrideSources;
  readonly doc?: Document;
  readonly lines?: LineCounter;
}

export function valueAt(raw: unknown, path: FieldPath): unknown {
  let at: unknown = raw;
  for (const part of plainPath(path)) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[part];
  }
  return at;
}

/** A value as it would be written: -5, "abc", a mapping, a list. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export function issuesToProblems(issues: readonly z.core.$ZodIssue[], ctx: ProblemContext): FieldProblem[] {
  return issues.flatMap((issue) => issueLines(issue, ctx));
}

function issueLines(issue: z.core.$ZodIssue, ctx: ProblemContext): FieldProblem[] {
  const path = fieldPath(issue.path);
  const value = valueAt(ctx.raw, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const known = knownFields(ctx.schema, plainPath(path), ctx.raw);
        const hint = known.length > 0 ? `; expected one of: ${known.join(', ')}` : '';
        return line(ctx, [...path, key], `unknown field${hint}`, true);
      });
    case 'invalid_union':
      return unionLines(issue, ctx);
    case 'custom':
      return [line(ctx, path, issue.message)];
    case 'invalid_type':
      if (value === undefined) return [line(ctx, path, `missing: expected ${issue.message}`)];
      return [line(ctx, path, `expected ${issue.message}, got ${show(value)}`)];
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'invalid_value':
    case 'not_multiple_of':
    case 'too_big':
    case 'too_small':
      return [line(ctx, path, `expected ${issue.message}, got ${show(value)}`)];
  }
}

/** A discriminator that matches nothing, or the union branch that came closest. */
function unionLines(issue: z.core.$ZodIssueInvalidUnion, ctx: ProblemContext): FieldProblem[] {
  const path = fieldPath(issue.path);
  const value = valueAt(ctx.raw, path);
  const discriminator = (issue as { discriminator?: string }).discriminator;
  if (discriminator !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const found = (value as Record<string, unknown>)[discriminator];
    return [line(ctx, [...path, discriminator], `${found === undefined ? 'missing: expected' : 'expected'} ${issue.message}${found === undefined ? '' : `, got ${show(found)}`}`)];
  }
  const branches = issue.errors.filter((b) => b.length > 0).sort((a, b) => a.length - b.length);
  const best = branches[0];
  const deeper = best?.every((i) => i.path.length > 0 && i.code !== 'unrecognized_keys');
  if (best && deeper) return best.flatMap((i) => issueLines({ ...i, path: [...issue.path, ...i.path] } as z.core.$ZodIssue, ctx));
  const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const got = fields.length > 0 ? `a mapping with ${fields.join(', ')}` : show(value);
  return [line(ctx, path, `expected ${issue.message}, got ${got}`)];
}

/** A schema path as a field path: zod allows symbol keys, which a config file cannot have. */
function fieldPath(path: readonly PropertyKey[]): FieldPath {
  return path.map((p) => (typeof p === 'symbol' ? String(p) : p));
}

function line(ctx: ProblemContext, path: FieldPath, message: string, keyPosition = false): FieldProblem {
  const object = sourceOf(ctx, path);
  const at = object === ctx.file ? lineOf(ctx, path, keyPosition) : undefined;
  return at === undefined ? { object, path, message } : { object, path, message, line: at };
}

function sourceOf(ctx: ProblemContext, path: FieldPath): string {
  const text = formatPath(path);
  for (const [field, source] of ctx.overrides) if (text === field || text.startsWith(`${field}.`)) return source;
  return ctx.file;
}

function lineOf(ctx: ProblemContext, path: FieldPath, keyPosition: boolean): number | undefined {
  if (!ctx.doc || !ctx.lines) return undefined;
  const parts = plainPath(path);
  for (let n = parts.length; n >= 0; n--) {
    const offset = offsetOf(ctx.doc, parts.slice(0, n), keyPosition && n === parts.length);
    if (offset !== undefined) return ctx.lines.linePos(offset).line;
  }
  return undefined;
}

function offsetOf(doc: Document, path: readonly (string | number)[], key: boolean): number | undefined {
  if (key && path.length > 0) {
    const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
    if (isMap(parent)) {
      const pair = parent.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === path[path.length - 1]);
      if (pair && isNode(pair.key)) return pair.key.range?.[0];
    }
  }
  const node: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  return isNode(node) ? node.range?.[0] : undefined;
}
