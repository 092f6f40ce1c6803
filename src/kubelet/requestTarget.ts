/**
 * The request target of a kubelet API request (`req.url`), parsed the one way both the request
 * and the upgrade paths use, without ever throwing: a client's bytes reach this before
 * authentication. Origin-form only (`/path?query`), as the API server sends it; the path is
 * resolved against a fixed origin, so `//host…` is a path (as Go's `url.ParseRequestURI` reads
 * it), never an authority, and `new URL` cannot fail on it. A percent-escape that does not decode
 * (`%zz`, a broken UTF-8 sequence) is a malformed URL, answered 400, as Go's parser refuses it.
 * Control characters and spaces are refused too (Go: "invalid control character in URL").
 * The query is decoded leniently (URLSearchParams never fails), as Go leaves it to the handler.
 */
export type RequestTarget =
  | {
      readonly ok: true;
      /** The normalized path, percent-escapes kept (what authorization and the 404 message name). */
      readonly pathname: string;
      /** The path's segments after the leading `/`, each percent-decoded (a trailing `/` gives a last ''). */
      readonly segments: readonly string[];
      readonly query: URLSearchParams;
    }
  | { readonly ok: false; readonly message: string };

/** A fixed origin: what precedes the target decides nothing but that it is a path. */
const ORIGIN = 'https://kubelet.invalid';

/** Longer targets are refused before any parsing (Node's own header limit, 16 KiB, bounds them already). */
export const MAX_TARGET_LENGTH = 16 * 1024;

function malformed(message: string): RequestTarget {
  return { ok: false, message: `Bad Request: ${message}` };
}

function decodeSegments(pathname: string): string[] | undefined {
  const segments: string[] = [];
  for (const part of pathname.split('/').slice(1)) {
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      return undefined;
    }
  }
  return segments;
}

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '/';
  if (target.length > MAX_TARGET_LENGTH) return malformed(`the request target is longer than ${MAX_TARGET_LENGTH} characters`);
  if (!target.startsWith('/')) return malformed('the request target must be a path (origin-form, starting with /)');
  // Go's parser refuses control characters and spaces; WHATWG's would silently drop some of them.
  if (/[\x00-\x20\x7f]/.test(target)) return malformed('invalid control character or space in the request target');
  let url: URL;
  try {
    url = new URL(`${ORIGIN}${target}`);
  } catch {
    return malformed('the request target is not a valid URL path');
  }
  if (url.origin !== ORIGIN) return malformed('the request target must be a path');
  const segments = decodeSegments(url.pathname);
  if (segments === undefined) return malformed(`invalid percent-encoding in the path ${JSON.stringify(url.pathname.slice(0, 200))}`);
  return { ok: true, pathname: url.pathname, segments, query: url.searchParams };
}
