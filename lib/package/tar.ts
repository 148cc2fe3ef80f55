/**
 * A small ustar (POSIX tar) writer and reader for packages: regular files only, paths up to 255
 * bytes (name and prefix fields), gzip through the platform's compression streams. Enough for what
 * `framework package` writes and `tar -x` reads, and nothing that could write outside the folder it
 * is unpacked into (no links, no absolute or `..` paths).
 *
 * The reader accepts exactly what the writer makes, so that it never reads an archive differently
 * from `tar -x`: every header must be byte for byte the one the writer would write for its path,
 * size, mode and time (no base-256 numbers, no old-GNU or pax headers, no other type, no owner
 * names), padding is zeros, and the archive ends with two zero blocks and nothing after them. It
 * streams: memory stays bounded by a decompressed chunk whatever the archive holds, and an archive
 * that unpacks to more than {@link MAX_PACKAGE_BYTES} (or holds a file over
 * {@link MAX_PACKAGE_FILE_BYTES}) is refused as it is read, as the writer refuses to make one.
 *
 * @module
 */

import { badInput } from "../errors.ts";

/** One file of an archive. */
export interface TarFile {
  path: string;
  bytes: Uint8Array;
  /** Unix mode (default 0o644). */
  mode?: number;
  /** Modification time, seconds (default 0: reproducible archives). */
  mtime?: number;
}

/** A file's header as the reader found it. */
export interface TarEntry {
  path: string;
  size: number;
  mode: number;
  mtime: number;
}

/** The largest file a package holds (64 MiB). */
export const MAX_PACKAGE_FILE_BYTES = 64 * 1024 * 1024;

/** The most a package unpacks to, headers and padding included (256 MiB). */
export const MAX_PACKAGE_BYTES = 256 * 1024 * 1024;

const BLOCK = 512;
/** The magic and version of a POSIX ustar header: `ustar\0` then `00`. */
const USTAR = new TextEncoder().encode("ustar\u000000");
const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function splitPath(path: string): { name: string; prefix: string } {
  const bytes = encoder.encode(path);
  if (bytes.length <= 100) return { name: path, prefix: "" };
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== "/") continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100) {
      return { name, prefix };
    }
  }
  throw badInput(`The path ${JSON.stringify(path)} is too long for a package (255 bytes at most)`);
}

/** The fields of a ustar header, by offset, to name the one that differs. */
const FIELDS: readonly [number, string][] = [
  [0, "name"],
  [100, "mode"],
  [108, "uid"],
  [116, "gid"],
  [124, "size"],
  [136, "mtime"],
  [148, "checksum"],
  [156, "type"],
  [157, "link name"],
  [257, "magic"],
  [263, "version"],
  [265, "owner name"],
  [297, "group name"],
  [329, "device numbers"],
  [345, "prefix"],
  [500, "padding"],
];

function header(entry: TarEntry): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const put = (text: string, at: number, width: number) =>
    h.set(encoder.encode(text).subarray(0, width), at);
  const { name, prefix } = splitPath(entry.path);
  put(name, 0, 100);
  put(octal(entry.mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(entry.size, 12), 124, 12);
  put(octal(entry.mtime, 12), 136, 12);
  put("        ", 148, 8); // checksum counted as spaces
  put("0", 156, 1);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}

/**
 * How many bytes an archive of files unpacks to: a header and whole blocks per file, and the two
 * zero blocks at the end.
 *
 * @param sizes The files' sizes.
 * @returns The unpacked size.
 */
export function tarSize(sizes: readonly number[]): number {
  return sizes.reduce((sum, s) => sum + BLOCK + Math.ceil(s / BLOCK) * BLOCK, 2 * BLOCK);
}

/**
 * The per-file limit of a package, as the writer and the reader both apply it.
 *
 * @param path A file's path.
 * @param size Its size.
 * @throws `bad_input` for a file over {@link MAX_PACKAGE_FILE_BYTES}.
 */
export function checkFileSize(path: string, size: number): void {
  if (size > MAX_PACKAGE_FILE_BYTES) {
    throw badInput(
      `${path} is ${mib(size)}; a package holds files of ${
        mib(MAX_PACKAGE_FILE_BYTES)
      } at most: keep large files out of the harness folder`,
      { path, bytes: size, limit: MAX_PACKAGE_FILE_BYTES },
    );
  }
}

function tooBig(): Error {
  return badInput(
    `The package unpacks to more than ${
      mib(MAX_PACKAGE_BYTES)
    }, the most a package holds: keep large files out of the harness folder`,
    { limit: MAX_PACKAGE_BYTES },
  );
}

/**
 * A gzip-compressed ustar archive of the files, in the given order.
 *
 * @param files The files.
 * @returns The `.tar.gz` bytes.
 * @throws `bad_input` for a file or an archive over the package limits.
 */
export async function tarGz(files: readonly TarFile[]): Promise<Uint8Array> {
  for (const f of files) checkFileSize(f.path, f.bytes.length);
  if (tarSize(files.map((f) => f.bytes.length)) > MAX_PACKAGE_BYTES) throw tooBig();
  const parts: Uint8Array[] = [];
  for (const f of files) {
    parts.push(
      header({ path: f.path, size: f.bytes.length, mode: f.mode ?? 0o644, mtime: f.mtime ?? 0 }),
      f.bytes,
    );
    const pad = (BLOCK - (f.bytes.length % BLOCK)) % BLOCK;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  const tar = new Blob(parts as BlobPart[]);
  const gz = tar.stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gz).arrayBuffer());
}

function notOurs(why: string): Error {
  return badInput(
    `The package is not one framework package writes: ${why}. Make it again with framework package`,
  );
}

/** Reads a header field up to its first NUL, refusing bytes that are not UTF-8. */
function text(h: Uint8Array, from: number, width: number, at: number): string {
  const raw = h.subarray(from, from + width);
  const end = raw.indexOf(0);
  try {
    return strictDecoder.decode(end < 0 ? raw : raw.subarray(0, end));
  } catch {
    throw notOurs(`the header at byte ${at} holds a name that is not UTF-8`);
  }
}

/** Reads an octal number field as the writer writes it (digits, then a NUL). */
function number(h: Uint8Array, from: number, width: number): number {
  const raw = h.subarray(from, from + width - 1);
  let n = 0;
  for (const b of raw) {
    if (b < 0x30 || b > 0x37) return NaN; // base-256, spaces, signs: never written
    n = n * 8 + (b - 0x30);
  }
  return h[from + width - 1] === 0 ? n : NaN;
}

function checkPath(path: string): void {
  const segments = path.split("/");
  if (path.startsWith("/") || segments.includes("..")) {
    throw badInput(`The package holds a path outside its folder: ${JSON.stringify(path)}`);
  }
  if (segments.some((s) => s === "" || s === ".")) {
    throw notOurs(`it holds the path ${JSON.stringify(path)}, which is not in its plain form`);
  }
}

/**
 * Parses one header, refusing every form the writer does not make.
 *
 * @param h The 512 bytes.
 * @param at Where they start in the unpacked archive.
 * @returns The entry.
 */
function parseHeader(h: Uint8Array, at: number): TarEntry {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  const stored = new TextDecoder().decode(h.subarray(148, 156)).replace(/[\0 ]/g, "");
  if (!/^[0-7]+$/.test(stored) || parseInt(stored, 8) !== sum) {
    throw badInput(`The package is damaged: a bad header checksum at byte ${at}`);
  }
  // Old GNU and v7 headers have no prefix field (bytes 345.. are times there): tar would name the
  // file otherwise than a ustar reading does.
  if (!USTAR.every((b, i) => h[257 + i] === b)) {
    throw notOurs(
      `the header at byte ${at} is not a POSIX ustar header (old GNU, v7 or another form)`,
    );
  }
  const name = text(h, 0, 100, at);
  const prefix = text(h, 345, 155, at);
  const path = prefix ? `${prefix}/${name}` : name;
  const shown = JSON.stringify(path);
  const type = h[156];
  if (type !== 0x30) {
    throw badInput(
      `The package holds ${shown}, which is not a regular file (only files are packaged)`,
    );
  }
  checkPath(path);
  const entry = {
    path,
    size: number(h, 124, 12),
    mode: number(h, 100, 8),
    mtime: number(h, 136, 12),
  };
  for (
    const [field, value] of [["size", entry.size], ["mode", entry.mode], ["mtime", entry.mtime]]
  ) {
    if (Number.isNaN(value)) {
      throw notOurs(
        `the ${field} of ${shown} (header at byte ${at}) is not written in octal digits`,
      );
    }
  }
  let expected: Uint8Array;
  try {
    expected = header(entry);
  } catch {
    throw notOurs(`the path ${shown} is split in a way the writer never splits it`);
  }
  // The checksum follows from the other bytes: name the field that differs, the checksum last.
  const checksum = (i: number) => i >= 148 && i < 156;
  const differs = [...expected.keys()].sort((a, b) => Number(checksum(a)) - Number(checksum(b)))
    .find((i) => expected[i] !== h[i]);
  if (differs !== undefined) {
    const field = FIELDS.findLast(([offset]) => offset <= differs)![1];
    throw notOurs(`the header of ${shown} at byte ${at} differs in its ${field} field`);
  }
  checkFileSize(path, entry.size);
  return entry;
}

/** Compressed bytes fed to the decompressor at a time (see {@link smallPieces}). */
const PIECE = 4096;

/**
 * Cuts compressed chunks into small pieces: the decompressor turns each piece it is given into one
 * output chunk, and 64 KiB of a gzip bomb is 64 MiB of output at once; 4 KiB is at most 4 MiB.
 */
function smallPieces(): TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  return new TransformStream({
    transform(chunk, out) {
      for (let i = 0; i < chunk.length; i += PIECE) out.enqueue(chunk.subarray(i, i + PIECE));
    },
  });
}

/**
 * Reads a `.tar.gz` stream entry by entry, in archive order. For each file, `visit` gets its header
 * and its bytes as chunks (read them, or not: what is left is skipped). Nothing is held in memory
 * beyond a decompressed chunk; the stream is cancelled when reading stops early.
 *
 * @param source The compressed bytes.
 * @param visit Called for each file in turn.
 * @throws `bad_input` for a damaged archive, one the writer would not make, a link, a path that
 *   leaves the folder, or one over the package limits.
 */
export async function readTarGz(
  source: ReadableStream<Uint8Array<ArrayBuffer>>,
  visit: (entry: TarEntry, data: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  const reader = source.pipeThrough(smallPieces()).pipeThrough(new DecompressionStream("gzip"))
    .getReader();
  let pending: Uint8Array = new Uint8Array(0);
  let unpacked = 0; // bytes decompressed so far
  let offset = 0; // bytes of the archive consumed so far
  const more = async (): Promise<boolean> => {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw badInput(
        "The package is not a gzip archive, or it is damaged (or holds data after its end)",
      );
    }
    if (chunk.done) return false;
    unpacked += chunk.value.length;
    if (unpacked > MAX_PACKAGE_BYTES) throw tooBig();
    if (pending.length === 0) pending = chunk.value;
    else {
      const joined = new Uint8Array(pending.length + chunk.value.length);
      joined.set(pending);
      joined.set(chunk.value, pending.length);
      pending = joined;
    }
    return true;
  };
  const take = (n: number): Uint8Array => {
    const part = pending.subarray(0, n);
    pending = pending.subarray(n);
    offset += n;
    return part;
  };
  const block = async (): Promise<Uint8Array | null> => {
    while (pending.length < BLOCK) {
      if (!(await more())) {
        if (pending.length) throw badInput("The package is damaged: it ends inside a header");
        return null;
      }
    }
    return take(BLOCK).slice();
  };
  let left = 0; // bytes of the current file not read yet
  const next = async (): Promise<Uint8Array> => {
    if (pending.length === 0 && !(await more())) {
      throw badInput("The package is damaged: a file is cut short");
    }
    const part = take(Math.min(left, pending.length));
    left -= part.length;
    return part;
  };
  const data: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      while (left > 0) yield await next();
    },
  };
  try {
    while (true) {
      const at = offset;
      const h = await block();
      if (h === null) throw notOurs("it does not end with two zero blocks");
      if (h.every((b) => b === 0)) break;
      const entry = parseHeader(h, at);
      left = entry.size;
      await visit(entry, data);
      while (left > 0) await next(); // what the visitor left unread is skipped
      left = (BLOCK - (entry.size % BLOCK)) % BLOCK;
      while (left > 0) {
        if ((await next()).some((b) => b !== 0)) {
          throw notOurs(`the padding after ${JSON.stringify(entry.path)} is not zeros`);
        }
      }
    }
    const second = await block();
    if (second === null || second.some((b) => b !== 0)) {
      throw notOurs("its end marker is not two zero blocks");
    }
    if (pending.length || await more()) throw notOurs("it holds data after its end marker");
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * The files of a `.tar.gz` archive, read into memory (regular files only; anything else is refused).
 *
 * @param bytes The archive.
 * @returns The files.
 * @throws `bad_input` as {@link readTarGz}.
 */
export async function untarGz(bytes: Uint8Array): Promise<TarFile[]> {
  const files: TarFile[] = [];
  await readTarGz(new Blob([bytes as BlobPart]).stream(), async (entry, data) => {
    const content = new Uint8Array(entry.size);
    let at = 0;
    for await (const part of data) {
      content.set(part, at);
      at += part.length;
    }
    files.push({ path: entry.path, bytes: content, mode: entry.mode, mtime: entry.mtime });
  });
  return files;
}
