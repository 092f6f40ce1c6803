import type { ServerResponse } from 'node:http';

/**
 * Writes one chunk of a streamed response and waits while the socket's buffer is full (or the
 * client went away), so a slow reader of a long log or a 100k-actor tree never makes the process
 * buffer the whole thing.
 */
export async function writeChunk(res: ServerResponse, chunk: string): Promise<void> {
  if (res.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
