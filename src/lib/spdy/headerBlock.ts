/**
 * SPDY/3 header blocks (section 2.6.10): a count, then length-prefixed lowercase names and values
 * (several values of one name joined by NUL), compressed with zlib preset to the SPDY dictionary.
 * Each direction of a connection has one zlib context for its whole life, every block ending on a
 * sync flush, so blocks must be compressed and inflated in the order they travel: both classes
 * queue their calls. Node's zlib streams do the compression; their output is bounded here, since a
 * few compressed bytes can inflate to a great many.
 */
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';

export type Headers = ReadonlyMap<string, readonly string[]>;

export class HeaderBlockError extends Error {
  override readonly name = 'HeaderBlockError';
}

export interface HeaderLimits {
  /** Largest inflated block; default 256 KiB (kubectl's blocks are under 100 bytes). */
  readonly maxBytes: number;
  readonly maxHeaders: number;
}

export const DEFAULT_HEADER_LIMITS: HeaderLimits = { maxBytes: 256 * 1024, maxHeaders: 100 };

export function encodeHeaders(headers: Iterable<readonly [string, string]>): Buffer {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    grouped.set(key, [...(grouped.get(key) ?? []), value]);
  }
  const parts: Buffer[] = [Buffer.alloc(4)];
  (parts[0] as Buffer).writeUInt32BE(grouped.size);
  for (const [name, values] of grouped) {
    for (const text of [name, values.join('\0')]) {
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

/** Decodes an inflated block; throws HeaderBlockError naming what is wrong. */
export function decodeHeaders(block: Buffer, limits: HeaderLimits = DEFAULT_HEADER_LIMITS): Headers {
  let at = 0;
  const take = (what: string): Buffer => {
    if (at + 4 > block.length) throw new HeaderBlockError(`header block ends inside the length of ${what}`);
    const length = block.readUInt32BE(at);
    at += 4;
    if (at + length > block.length) throw new HeaderBlockError(`header block ends inside ${what} (${length} bytes announced)`);
    const bytes = block.subarray(at, at + length);
    at += length;
    return bytes;
  };
  if (block.length < 4) throw new HeaderBlockError('header block has no count');
  const count = block.readUInt32BE(0);
  at = 4;
  if (count > limits.maxHeaders) throw new HeaderBlockError(`header block has ${count} headers, more than ${limits.maxHeaders}`);
  const headers = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const name = take(`header name ${i}`).toString('utf8');
    if (name === '') throw new HeaderBlockError(`header ${i} has an empty name`);
    if (name !== name.toLowerCase()) throw new HeaderBlockError(`header name ${JSON.stringify(name)} is not lowercase`);
    if (headers.has(name)) throw new HeaderBlockError(`header ${JSON.stringify(name)} appears twice`);
    headers.set(name, take(`the value of ${name}`).toString('utf8').split('\0'));
  }
  if (at !== block.length) throw new HeaderBlockError(`${block.length - at} bytes after the last header`);
  return headers;
}

/** The first value of `name`, or undefined. */
export function headerValue(headers: Headers, name: string): string | undefined {
  return headers.get(name.toLowerCase())?.[0];
}

/** Feeds `input` through a zlib stream and collects what one sync flush yields, at most `maxBytes`. */
function flushThrough(stream: Deflate | Inflate, input: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        stream.destroy();
        reject(new HeaderBlockError(`header block inflates to more than ${maxBytes} bytes`));
      } else chunks.push(chunk);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(new HeaderBlockError(`header block is not valid zlib data: ${error.message}`));
    };
    // A context closed mid-block (the connection went) never calls back: settle here instead.
    const onClose = (): void => {
      cleanup();
      reject(new HeaderBlockError('header compression closed with the connection'));
    };
    stream.on('data', onData);
    stream.once('error', onError);
    stream.once('close', onClose);
    if (stream.destroyed) return onClose();
    stream.write(input);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      if (stream.destroyed) return;
      cleanup();
      resolve(Buffer.concat(chunks));
    });
  });
}

/** One direction's compression context. */
export class HeaderCompressor {
  private readonly deflate = createDeflate({ dictionary: SPDY3_DICTIONARY });
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    this.deflate.on('error', () => undefined);
  }

  compress(headers: Iterable<readonly [string, string]>): Promise<Buffer> {
    const block = encodeHeaders(headers);
    const result = this.queue.then(() => flushThrough(this.deflate, block, Number.MAX_SAFE_INTEGER));
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.deflate.destroy();
  }
}

/** The other direction's context: after one failure every later block fails too. */
export class HeaderDecompressor {
  private readonly inflate = createInflate({ dictionary: SPDY3_DICTIONARY });
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly limits: HeaderLimits = DEFAULT_HEADER_LIMITS) {
    this.inflate.on('error', () => undefined);
  }

  decompress(compressed: Buffer): Promise<Headers> {
    const result = this.queue.then(async () => {
      if (this.inflate.destroyed) throw new HeaderBlockError('header compression state is broken by an earlier block');
      return decodeHeaders(await flushThrough(this.inflate, compressed, this.limits.maxBytes), this.limits);
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.inflate.destroy();
  }
}
