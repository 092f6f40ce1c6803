/**
 * Answers of the kubelet API, written so that answering can never throw: on a ServerResponse
 * (plain requests) or as raw HTTP/1.1 on a socket (refused upgrades, unparseable requests, which
 * have no ServerResponse). A connection already gone, or a response already started, is cut
 * instead. Bodies are plain text ending in a newline, as the kubelet's `http.Error` writes them.
 */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

function withNewline(body: string): string {
  return body.endsWith('\n') ? body : `${body}\n`;
}

export function writeText(res: ServerResponse, code: number, body: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    const text = withNewline(body);
    res.writeHead(code, { ...headers, 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), 'x-content-type-options': 'nosniff' });
    res.end(text);
  } catch {
    res.destroy();
  }
}

export function writeJson(res: ServerResponse, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Header values as they may go on the wire: no CR, LF or other control characters. */
function headerValue(value: string): string {
  return value.replace(/[\x00-\x1f\x7f]/g, ' ');
}

/** How long a refused connection may take to read its answer and close. */
export const ANSWER_LINGER_MS = 5_000;

/** A whole HTTP/1.1 answer on a raw socket, then the connection closes. */
export function answerOnSocket(socket: Duplex, code: number, body: string, headers: Readonly<Record<string, string>> = {}): void {
  try {
    if (socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const text = withNewline(body);
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${headerValue(value)}\r\n`).join('');
    socket.end(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\n` +
        'Content-Type: text/plain; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        extra +
        'Connection: close\r\n\r\n' +
        text,
    );
    // A client that never reads its answer (or never closes its side) does not keep the socket.
    const cut = setTimeout(() => socket.destroy(), ANSWER_LINGER_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  } catch {
    socket.destroy();
  }
}
