/**
 * The listeners of the kubelet API's HTTPS server that see what never becomes a request: bytes
 * the HTTP parser refuses (`clientError`: 400, or 431 past Node's 16 KiB header bound, as Go's
 * server answers them), a TLS handshake that fails (`tlsClientError`), and the server's own errors
 * after it listens (an `accept` failing with EMFILE under a connection flood would otherwise be an
 * unhandled 'error' event, which ends the process). Each costs its connection alone.
 */
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../adapters/logger.js';
import { errorCode } from '../lib/errorMessage.js';
import { answerOnSocket } from './httpAnswers.js';
import type { RejectionReporter } from './rejections.js';

/** Errors that mean the client went away (HPE_INVALID_EOF_STATE: it closed mid-request), not that it sent anything wrong. */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'HPE_INVALID_EOF_STATE']);

const codeOf = (error: unknown): string => errorCode(error) ?? '';

/** True while a response is being written on the socket (HTTP keep-alive): raw bytes would corrupt it. */
function responseInProgress(socket: Duplex): boolean {
  // Node's own default clientError handler makes the same check on the same field.
  const current = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

export function guardConnections(server: HttpsServer, report: RejectionReporter): void {
  server.on('clientError', (error: Error, socket: Duplex) => {
    const code = codeOf(error);
    if (GONE.has(code) || !socket.writable || responseInProgress(socket)) {
      socket.destroy();
      return;
    }
    const remote = (socket as Partial<Socket>).remoteAddress;
    if (code === 'HPE_HEADER_OVERFLOW') {
      report({ code: 431, reason: 'header-too-large', message: 'the request line and headers exceed 16 KiB' }, { remote });
      answerOnSocket(socket, 431, 'Request Header Fields Too Large');
      return;
    }
    if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answerOnSocket(socket, 408, 'Request Timeout');
      return;
    }
    report({ code: 400, reason: 'malformed-request', message: `${code || 'unparseable'}: ${error.message}` }, { remote });
    answerOnSocket(socket, 400, 'Bad Request');
  });
  server.on('tlsClientError', (error: Error, socket: Duplex) => {
    report({ code: 0, reason: 'tls-handshake', message: `${codeOf(error) || 'TLS'}: ${error.message}` }, { remote: (socket as Partial<Socket>).remoteAddress });
    socket.destroy();
  });
}

/** Once listening: the server's own errors are logged, never thrown (call after `listen`, which reports its own). */
export function guardServerErrors(server: HttpsServer, logger: Logger | undefined): void {
  server.on('error', (error: Error) => {
    logger?.warn('kubelet API server error (the listener stays up)', { error: `${codeOf(error)} ${error.message}`.trim() });
  });
}
