/**
 * The files a shell command sees: an interface the interpreter uses, and `MemoryFileSystem`, an
 * in-memory one made of mounts. Read-only files come from the container's view (ConfigMap,
 * Secret, downward-API volumes); writable stores (`MemoryStore`) are mounted at directories (an
 * emptyDir shared by a pod's containers and kept across restarts, `/tmp`) or at single files
 * (`/dev/termination-log`). Every store has a byte cap, so hostile writes fail with
 * "No space left on device" instead of growing the node's memory. Errors are the strings a
 * shell prints after `cmd: path: `.
 */

export interface ShellFileSystem {
  /** The file's content, or undefined when there is no such file (or it is a directory). */
  read(path: string): string | undefined;
  /** Writes (or appends to) the file; returns an error such as "Read-only file system", else undefined. */
  write(path: string, content: string, options?: { readonly append?: boolean }): string | undefined;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** The names directly inside a directory, sorted; undefined when it is not one. */
  list(path: string): string[] | undefined;
  /** Removes a file (or, with `recursive`, a directory and what it holds); an error string, else undefined. */
  remove(path: string, options?: { readonly recursive?: boolean }): string | undefined;
  /** Creates a directory (with `parents`, each missing one above it and no error if it exists). */
  makeDirectory(path: string, options?: { readonly parents?: boolean }): string | undefined;
}

export const READ_ONLY = 'Read-only file system';
export const NO_SPACE = 'No space left on device';
export const NOT_FOUND = 'No such file or directory';
export const IS_DIRECTORY = 'Is a directory';

/** `path` made absolute against `cwd`, with `.`, `..` and repeated slashes resolved. */
export function normalizePath(path: string, cwd = '/'): string {
  const segments: string[] = [];
  for (const segment of `${path.startsWith('/') ? '' : `${cwd}/`}${path}`.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

export interface StoreLimits {
  /** Bytes of one file. */
  readonly fileBytes: number;
  /** Bytes of the whole store: contents plus path names, so many empty files count too. */
  readonly totalBytes: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = { fileBytes: 1024 * 1024, totalBytes: 8 * 1024 * 1024 };
/** A container's private `/tmp` (and small files such as its termination message). */
export const TMP_STORE_LIMITS: StoreLimits = { fileBytes: 256 * 1024, totalBytes: 1024 * 1024 };

/**
 * Writable files by path relative to the store's mount ('' is the mount itself, for a store
 * mounted as one file). Shared by whoever holds it: mount the same store in several file systems
 * and they see each other's writes.
 */
export class MemoryStore {
  private readonly files = new Map<string, string>();
  private readonly directories = new Set<string>();
  private bytes = 0;

  constructor(readonly limits: StoreLimits = DEFAULT_STORE_LIMITS) {}

  get usedBytes(): number {
    return this.bytes;
  }

  read(rel: string): string | undefined {
    return this.files.get(rel);
  }

  isDirectory(rel: string): boolean {
    if (rel === '' || this.directories.has(rel)) return true;
    const prefix = `${rel}/`;
    for (const key of this.files.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  write(rel: string, content: string, append: boolean): string | undefined {
    const before = this.files.get(rel);
    const next = append && before !== undefined ? before + content : content;
    const size = Buffer.byteLength(next);
    const delta = size + (before === undefined ? Buffer.byteLength(rel) : -Buffer.byteLength(before));
    if (size > this.limits.fileBytes || this.bytes + delta > this.limits.totalBytes) return NO_SPACE;
    this.files.set(rel, next);
    this.bytes += delta;
    return undefined;
  }

  makeDirectory(rel: string): string | undefined {
    if (this.directories.has(rel) || rel === '') return undefined;
    const size = Buffer.byteLength(rel);
    if (this.bytes + size > this.limits.totalBytes) return NO_SPACE;
    this.directories.add(rel);
    this.bytes += size;
    return undefined;
  }

  remove(rel: string, recursive: boolean): string | undefined {
    const content = this.files.get(rel);
    if (content !== undefined) {
      this.files.delete(rel);
      this.bytes -= Buffer.byteLength(content) + Buffer.byteLength(rel);
      return undefined;
    }
    if (!this.isDirectory(rel)) return NOT_FOUND;
    if (!recursive) return IS_DIRECTORY;
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const [key, value] of [...this.files]) if (key.startsWith(prefix)) {
      this.files.delete(key);
      this.bytes -= Buffer.byteLength(value) + Buffer.byteLength(key);
    }
    for (const dir of [...this.directories]) if (dir === rel || dir.startsWith(prefix)) {
      this.directories.delete(dir);
      this.bytes -= Buffer.byteLength(dir);
    }
    return undefined;
  }

  /** Every file and directory path in the store. */
  paths(): string[] {
    return [...this.files.keys(), ...this.directories];
  }
}

export interface Mount {
  /** Absolute path of the mount point. */
  readonly path: string;
  readonly store: MemoryStore;
  /** A store mounted as one file (its content is the store's '' entry), like /dev/termination-log. */
  readonly file?: boolean;
  readonly readOnly?: boolean;
}

export interface MemoryFileSystemOptions {
  /** Read-only files by absolute path (the container view's volumes). */
  readonly files?: ReadonlyMap<string, string>;
  readonly mounts?: readonly Mount[];
  /** A writable root; without one, writes outside the mounts fail with "Read-only file system". */
  readonly root?: MemoryStore;
}

/** Names directly below `dir` among absolute `paths`. */
function childrenOf(paths: Iterable<string>, dir: string): string[] {
  const prefix = dir === '/' ? '/' : `${dir}/`;
  const out: string[] = [];
  for (const path of paths) if (path.startsWith(prefix) && path.length > prefix.length) out.push(path.slice(prefix.length).split('/')[0] as string);
  return out;
}

export class MemoryFileSystem implements ShellFileSystem {
  private readonly files: ReadonlyMap<string, string>;
  private readonly mounts: Mount[];

  constructor(private readonly options: MemoryFileSystemOptions = {}) {
    this.files = options.files ?? new Map();
    // The deepest mount wins, as in a real mount table.
    this.mounts = [...(options.mounts ?? [])].map((m) => ({ ...m, path: normalizePath(m.path) })).sort((a, b) => b.path.length - a.path.length);
  }

  private resolve(path: string): { mount: Mount; rel: string } | undefined {
    const abs = normalizePath(path);
    for (const mount of this.mounts) {
      if (abs === mount.path) return { mount, rel: '' };
      if (!mount.file && abs.startsWith(mount.path === '/' ? '/' : `${mount.path}/`)) return { mount, rel: abs.slice(mount.path.length).replace(/^\//, '') };
    }
    return undefined;
  }

  read(path: string): string | undefined {
    const abs = normalizePath(path);
    if (abs === '/dev/null') return '';
    const hit = this.resolve(abs);
    if (hit) return hit.mount.store.read(hit.rel);
    return this.files.get(abs) ?? this.options.root?.read(abs.slice(1));
  }

  isDirectory(path: string): boolean {
    const abs = normalizePath(path);
    if (abs === '/' || abs === '/dev') return true;
    const hit = this.resolve(abs);
    if (hit) return !hit.mount.file && hit.mount.store.isDirectory(hit.rel);
    if (this.mounts.some((m) => m.path.startsWith(`${abs}/`))) return true;
    if (childrenOf(this.files.keys(), abs).length > 0) return true;
    return this.options.root?.isDirectory(abs.slice(1)) ?? false;
  }

  exists(path: string): boolean {
    return this.read(path) !== undefined || this.isDirectory(path);
  }

  list(path: string): string[] | undefined {
    const abs = normalizePath(path);
    if (!this.isDirectory(abs)) return undefined;
    const names = new Set<string>(abs === '/dev' ? ['null'] : []);
    const hit = this.resolve(abs);
    if (hit) for (const name of childrenOf(hit.mount.store.paths().map((p) => `/${p}`), hit.rel === '' ? '/' : `/${hit.rel}`)) names.add(name);
    else {
      for (const name of childrenOf(this.files.keys(), abs)) names.add(name);
      for (const name of childrenOf((this.options.root?.paths() ?? []).map((p) => `/${p}`), abs)) names.add(name);
    }
    for (const name of childrenOf(this.mounts.map((m) => m.path), abs)) names.add(name);
    return [...names].sort();
  }

  write(path: string, content: string, options?: { readonly append?: boolean }): string | undefined {
    const abs = normalizePath(path);
    if (abs === '/dev/null') return undefined;
    if (this.isDirectory(abs)) return IS_DIRECTORY;
    const hit = this.resolve(abs);
    const parent = abs.slice(0, abs.lastIndexOf('/')) || '/';
    if (!this.isDirectory(parent)) return NOT_FOUND;
    if (hit) return hit.mount.readOnly ? READ_ONLY : hit.mount.store.write(hit.rel, content, options?.append === true);
    if (this.files.has(abs) || !this.options.root) return READ_ONLY;
    return this.options.root.write(abs.slice(1), content, options?.append === true);
  }

  remove(path: string, options?: { readonly recursive?: boolean }): string | undefined {
    const abs = normalizePath(path);
    if (!this.exists(abs)) return NOT_FOUND;
    const hit = this.resolve(abs);
    if (hit && hit.rel !== '') return hit.mount.readOnly ? READ_ONLY : hit.mount.store.remove(hit.rel, options?.recursive === true);
    if (hit || this.files.has(abs) || this.mounts.some((m) => m.path.startsWith(`${abs}/`)) || !this.options.root) {
      return this.isDirectory(abs) && options?.recursive !== true ? IS_DIRECTORY : hit ? 'Device or resource busy' : READ_ONLY;
    }
    return this.options.root.remove(abs.slice(1), options?.recursive === true);
  }

  makeDirectory(path: string, options?: { readonly parents?: boolean }): string | undefined {
    const abs = normalizePath(path);
    if (this.isDirectory(abs)) return options?.parents ? undefined : 'File exists';
    if (this.read(abs) !== undefined) return 'File exists';
    const parent = abs.slice(0, abs.lastIndexOf('/')) || '/';
    if (!this.isDirectory(parent)) {
      if (!options?.parents) return NOT_FOUND;
      const failed = this.makeDirectory(parent, options);
      if (failed !== undefined) return failed;
    }
    const hit = this.resolve(abs);
    if (hit) return hit.mount.readOnly || hit.mount.file ? READ_ONLY : hit.mount.store.makeDirectory(hit.rel);
    if (!this.options.root) return READ_ONLY;
    return this.options.root.makeDirectory(abs.slice(1));
  }
}
