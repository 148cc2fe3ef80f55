/**
 * A small ustar (POSIX tar) writer and reader for packages: regular files only, paths up to 255
 * bytes (name and prefix fields), gzip through the platform's compression streams. Enough for what
 * `framework package` writes and `tar -x` reads, and nothing that could write outside the folder it
 * is unpacked into (no links, no absolute or `..` paths).
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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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

function header(file: TarFile): Uint8Array {
  const h = new Uint8Array(512);
  const put = (text: string, at: number, width: number) =>
    h.set(encoder.encode(text).subarray(0, width), at);
  const { name, prefix } = splitPath(file.path);
  put(name, 0, 100);
  put(octal(file.mode ?? 0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(file.bytes.length, 12), 124, 12);
  put(octal(file.mtime ?? 0, 12), 136, 12);
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
 * A gzip-compressed ustar archive of the files, in the given order.
 *
 * @param files The files.
 * @returns The `.tar.gz` bytes.
 */
export async function tarGz(files: readonly TarFile[]): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (const f of files) {
    parts.push(header(f), f.bytes);
    const pad = (512 - (f.bytes.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024));
  const tar = new Blob(parts as BlobPart[]);
  const gz = tar.stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gz).arrayBuffer());
}

/**
 * The files of a `.tar.gz` archive (regular files only; anything else is refused).
 *
 * @param bytes The archive.
 * @returns The files.
 * @throws `bad_input` for a damaged archive, a link, or a path that leaves the folder.
 */
export async function untarGz(bytes: Uint8Array): Promise<TarFile[]> {
  let tar: Uint8Array;
  try {
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
      new DecompressionStream("gzip"),
    );
    tar = new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    throw badInput("The package is not a gzip archive, or it is damaged");
  }
  const files: TarFile[] = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const field = (from: number, width: number) =>
      decoder.decode(h.subarray(from, from + width)).replace(/\0.*$/s, "");
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (parseInt(field(148, 8).trim(), 8) !== sum) {
      throw badInput(`The package is damaged: a bad header at byte ${at}`);
    }
    const type = field(156, 1) || "0";
    const prefix = field(345, 155);
    const path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    if (type !== "0") {
      throw badInput(`The package holds ${JSON.stringify(path)}, which is not a file`);
    }
    if (path.startsWith("/") || path.split("/").includes("..")) {
      throw badInput(`The package holds a path outside its folder: ${JSON.stringify(path)}`);
    }
    const start = at + 512;
    if (start + size > tar.length) throw badInput("The package is damaged: a file is cut short");
    files.push({ path, bytes: tar.slice(start, start + size), mode: parseInt(field(100, 8), 8) });
    at = start + Math.ceil(size / 512) * 512;
  }
  return files;
}
