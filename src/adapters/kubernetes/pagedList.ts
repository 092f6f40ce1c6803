/**
 * Lists read page by page (`limit` + `continue`), each page handed on before the next is asked
 * for. Why: at 10,000 pods one unpaged list of a namespace's pods was ~40 MB of JSON held at
 * once (beside its decoded objects), and on a busy API server it did not finish within the list
 * deadline at all; a page of 500 is one bounded request with a deadline of its own.
 */

/** Items per page, as client-go's pagers use. */
export const LIST_PAGE_SIZE = 500;

export interface PageQuery {
  readonly limit: number;
  readonly _continue?: string;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly metadata?: { readonly _continue?: string; readonly resourceVersion?: string };
}

/** Reads every page of a list through `fetchPage`, handing each page to `onPage`; `signal` stops it between pages. */
export async function forEachPage<T>(fetchPage: (query: PageQuery) => Promise<Page<T>>, onPage: (page: Page<T>) => void, signal?: AbortSignal): Promise<void> {
  let cont: string | undefined;
  do {
    signal?.throwIfAborted();
    const page = await fetchPage(cont === undefined ? { limit: LIST_PAGE_SIZE } : { limit: LIST_PAGE_SIZE, _continue: cont });
    onPage(page);
    cont = page.metadata?._continue || undefined;
  } while (cont !== undefined);
}
