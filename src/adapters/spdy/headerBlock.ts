/**
 * SPDY/3 header blocks (section 2.6.10): a count, then length-prefixed lowercase names and values
 * (several values of one name joined by NUL), compressed with zlib preset to the SPDY dictionary.
 * Each direction of a connection has one zlib context for its whole life, every block ending on a
 * sync flush, so blocks must be compressed and inflated in the order they travel: both classes
 * queue their calls. Node's zlib streams do the compression. Bounded, since a few compressed bytes
 * can inflate to a great many (a 8 KiB block to 8 MiB): a compressed block over its limit is
 * refused before it is inflated, inflating stops as soon as the output passes its limit (a running
 * count over zlib's 16 KiB output chunks; zlib's `maxOutputLength` applies only to its one-shot
 * calls, not to the streaming context a connection keeps), and the decoded block has caps on the
 * number of headers and on each name and value. Over a limit is `tooLarge` (the connection's
 * 'spdy-header-bomb'), malformed is not; either way the context is lost with the connection.
 */
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { SPDY3_DICTIONARY } from './dictionary.js';

export type Headers = ReadonlyMap<string, readonly string[]>;

export class HeaderBlockError extends Error {
  override readonly name = 'HeaderBlockError';

  /** `tooLarge`: over a limit (a bomb, or just too much), rather than malformed. */
  constructor(message: string, readonly tooLarge = false) {
    super(message);
  }
}

export interface HeaderLimits {
  /** Largest compressed block (the payload of one SYN_STREAM, SYN_REPLY or HEADERS after its fixed part). */
  readonly maxCompressedBytes: number;
  /** Largest inflated block. */
  readonly maxBytes: number;
  readonly maxHeaders: number;
  readonly maxNameBytes: number;
  /** Largest value of one name (all its values, NUL-joined). */
  readonly maxValueBytes: number;
}

/** kubectl's blocks are under 100 bytes, three headers of a few bytes each. */
export const DEFAULT_HEADER_LIMITS: HeaderLimits = {
  maxCompressedBytes: 16 * 1024, maxBytes: 64 * 1024, maxHeaders: 100, maxNameBytes: 256, maxValueBytes: 8 * 1024,
};

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
  const take = (what: string, max: number): Buffer => {
    if (at + 4 > block.length) throw new HeaderBlockError(`header block ends inside the length of ${what}`);
    const length = block.readUInt32BE(at);
    at += 4;
    if (length > max) throw new HeaderBlockError(`${what} has ${length} bytes, more than ${max}`, true);
    if (at + length > block.length) throw new HeaderBlockError(`header block ends inside ${what} (${length} bytes announced)`);
    const bytes = block.subarray(at, at + length);
    at += length;
    return bytes;
  };
  if (block.length < 4) throw new HeaderBlockError('header block has no count');
  const count = block.readUInt32BE(0);
  at = 4;
  if (count > limits.maxHeaders) throw new HeaderBlockError(`header block has ${count} headers, more than ${limits.maxHeaders}`, true);
  const headers = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const name = take(`header name ${i}`, limits.maxNameBytes).toString('utf8');
    if (name === '') throw new HeaderBlockError(`header ${i} has an empty name`);
    if (name !== name.toLowerCase()) throw new HeaderBlockError(`header name ${JSON.stringify(name)} is not lowercase`);
    if (headers.has(name)) throw new HeaderBlockError(`header ${JSON.stringify(name)} appears twice`);
    headers.set(name, take(`the value of ${name.slice(0, 40)}`, limits.maxValueBytes).toString('utf8').split('\0'));
  }
  if (at !== block.length) throw new HeaderBlockError(`${block.length - at} bytes after the last header`);
  return headers;
}

/** The first value of `name`, or undefined. */
export function headerValue(headers: Headers, name: string): string | undefined {
  return headers.get(name.toLowerCase())?.[0];
}

/** Feeds `input` through a zlib stream and collects what one sync flush yields, at most `maxBytes`; `count` sees each chunk's size. */
function flushThrough(stream: Deflate | Inflate, input: Buffer, maxBytes: number, count: (bytes: number) => void = () => undefined): Promise<Buffer> {
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
      count(chunk.length);
      if (size > maxBytes) {
        cleanup();
        stream.destroy();
        reject(new HeaderBlockError(`header block inflates to more than ${maxBytes} bytes`, true));
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
  private inflated = 0;

  constructor(private readonly limits: HeaderLimits = DEFAULT_HEADER_LIMITS) {
    this.inflate.on('error', () => undefined);
  }

  /** Bytes inflated so far, over every block (what a bomb costs before it is refused). */
  get bytesInflated(): number {
    return this.inflated;
  }

  decompress(compressed: Buffer): Promise<Headers> {
    const result = this.queue.then(async () => {
      if (this.inflate.destroyed) throw new HeaderBlockError('header compression state is broken by an earlier block');
      if (compressed.length > this.limits.maxCompressedBytes) {
        this.inflate.destroy();
        throw new HeaderBlockError(`compressed header block of ${compressed.length} bytes, more than ${this.limits.maxCompressedBytes}`, true);
      }
      const block = await flushThrough(this.inflate, compressed, this.limits.maxBytes, (n) => (this.inflated += n));
      try {
        return decodeHeaders(block, this.limits);
      } catch (error) {
        // The connection ends on any bad block; the context goes with it, so later blocks fail too.
        this.inflate.destroy();
        throw error;
      }
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  close(): void {
    this.inflate.destroy();
  }
}
