/**
 * A list answered as the API server pages it: `limit` items from the `_continue` token on, and
 * the next token while more is left; an unpaged ask gets everything at once. `asks` records each
 * ask's limit and token.
 */
export interface PageAsk {
  readonly limit: number | undefined;
  readonly continue: string | undefined;
}

export function pagedList<T>(items: readonly T[]): {
  readonly asks: PageAsk[];
  readonly list: (q: { limit?: number; _continue?: string }) => Promise<{ items: T[]; metadata: { _continue?: string } }>;
} {
  const asks: PageAsk[] = [];
  const list = async (q: { limit?: number; _continue?: string }): Promise<{ items: T[]; metadata: { _continue?: string } }> => {
    asks.push({ limit: q.limit, continue: q._continue });
    const from = Number(q._continue ?? '0');
    const to = q.limit === undefined ? items.length : Math.min(items.length, from + q.limit);
    return { items: items.slice(from, to), metadata: to < items.length ? { _continue: String(to) } : {} };
  };
  return { asks, list };
}
