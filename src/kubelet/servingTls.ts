/**
 * The TLS context of one kubelet API server, kept current: the serving certificate (from the
 * watched files, else the one given, else self-signed and renewed) and the client CA (from the
 * watched files, else the one given). Each change is swapped into the listening server with
 * `setSecureContext`: connections open at the time keep the context they were made with; new ones
 * get the new one.
 *
 * Every swap also gets fresh session-ticket keys, given explicitly: `setSecureContext` keeps keys
 * the server was once given, and with old keys a TLS 1.2 client resumes its session from before
 * the swap, keeping a client certificate the new CA bundle no longer trusts (the verdict,
 * `socket.authorized`, is carried in the session).
 */
import { randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import { backgroundClock } from '../adapters/clock.js';
import type { Logger } from '../adapters/logger.js';
import type { Clock } from '../lib/clock.js';
import { errorMessage } from '../lib/errorMessage.js';
import { LifecycleControl, type Lifecycle } from '../lib/lifecycle.js';
import type { TlsMaterial } from './certificateFiles.js';
import type { CertificateSource } from './certificateSource.js';
import { renewingSelfSigned, type RenewingCertificate } from './selfSignedRenewal.js';
import type { ServingCertificate } from './servingCertificate.js';
import { definedOnly } from '../lib/defaults.js';

/** How a kubelet API's certificates change while it runs. */
export interface ServingTlsOptions {
  /** Watched files (watchCertificateFiles): what they hold wins over `certificate` and `clientCA`. */
  readonly source?: CertificateSource;
  /** The clock of the self-signed certificate's renewal; default the real one (timers unref'd). */
  readonly clock?: Clock;
  /** Lifetime of the self-signed certificate, default 365 days. */
  readonly selfSignedDays?: number;
}

export interface ServingTlsInput {
  readonly nodeName: string;
  /** SANs of the self-signed certificate besides the node's name. */
  readonly addresses: readonly string[];
  readonly certificate?: ServingCertificate | undefined;
  readonly clientCA?: string | undefined;
  readonly tls?: ServingTlsOptions | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * With the one lifecycle (src/lib/lifecycle.ts): ready at once (the factory returns with the
 * context made); stopped by the server's close, or by `stop()`: it stops hearing of changes and
 * ends the self-signed renewal.
 */
export interface ServingTls extends Lifecycle {
  /**
   * The HTTPS server, with the context now and each change swapped in until it closes (or fails
   * to listen). A client certificate is asked for when there is a client CA, verified against it,
   * and not required: token callers come in too.
   */
  createServer(listener: RequestListener): Server;
  /** PEM of the serving certificate in use. */
  certificate(): string;
}

const TICKET_KEY_BYTES = 48;

export async function startServingTls(input: ServingTlsInput): Promise<ServingTls> {
  const source = input.tls?.source;
  const material = (): TlsMaterial => ({
    serving: source?.current().serving ?? input.certificate,
    clientCA: source?.current().clientCA ?? input.clientCA,
  });
  const renewing: RenewingCertificate | undefined = material().serving
    ? undefined
    : await renewingSelfSigned({
      nodeName: input.nodeName,
      addresses: input.addresses,
      ...definedOnly({ clock: input.tls?.clock, days: input.tls?.selfSignedDays, logger: input.logger }),
    });
  const serving = (): ServingCertificate => {
    const pair = material().serving ?? renewing?.current();
    if (!pair) throw new Error(`the certificate source of node ${input.nodeName} no longer has a serving certificate`);
    return pair;
  };
  const context = (): SecureContextOptions => {
    const { clientCA } = material();
    const { cert, key } = serving();
    return { cert, key, ...definedOnly({ ca: clientCA }) };
  };
  const unsubscribe: Array<() => void> = [];
  const life = new LifecycleControl({
    clock: input.tls?.clock ?? backgroundClock,
    release: async () => {
      for (const end of unsubscribe.splice(0)) end();
      await renewing?.stop();
    },
    onReleaseFailed: (error) => input.logger?.warn('stopping the kubelet API TLS context failed', { error: errorMessage(error) }),
  });
  life.markReady();
  const stop = (): void => void life.stop();

  return {
    createServer(listener) {
      const server = createServer({ ...context(), requestCert: material().clientCA !== undefined, rejectUnauthorized: false }, listener);
      const swap = (): void => {
        try {
          server.setSecureContext({ ...context(), ticketKeys: randomBytes(TICKET_KEY_BYTES) });
        } catch (error) {
          input.logger?.error('kubelet API TLS context not swapped; new connections keep the previous one', { error: errorMessage(error) });
        }
      };
      if (source) unsubscribe.push(source.subscribe(swap));
      if (renewing) unsubscribe.push(renewing.subscribe(swap));
      // An error before it listens is a listen that failed: nothing will close it.
      const notListening = (): void => stop();
      server.once('error', notListening);
      server.once('listening', () => server.off('error', notListening));
      server.once('close', stop);
      return server;
    },
    certificate: () => serving().cert,
    ready: life.ready,
    done: life.done,
    stop: (o) => life.stop(o),
  };
}
