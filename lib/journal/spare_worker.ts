/**
 * The spare journals' thread (see spare_files.ts): it makes spare files and removes the names of
 * those taken, with blocking calls on a thread of its own, so that the event loop pays for neither
 * (a file's creation costs up to a millisecond on the file systems that need spares, and each
 * asynchronous call costs the loop a turn). Requests are served in the order they come; each gets
 * one answer.
 *
 * @module
 */

import { join } from "node:path";
import { parentPort } from "node:worker_threads";
import type { SpareAnswer, SpareRequest } from "./spare_files.ts";

/** A spare older than this is left over by a process that is gone, and is removed. */
const STALE_MS = 60 * 60 * 1000;

/** Spare folders made (or found) as real folders and swept. */
const ready = new Set<string>();

/** Removes spares left over by processes that are gone (older than {@link STALE_MS}). */
function sweep(spareDir: string): void {
  const now = Date.now();
  for (const entry of Deno.readDirSync(spareDir)) {
    if (!entry.isFile) continue;
    const name = join(spareDir, entry.name);
    try {
      const mtime = Deno.lstatSync(name).mtime;
      if (mtime && now - mtime.getTime() > STALE_MS) Deno.removeSync(name);
    } catch { /* gone meanwhile */ }
  }
}

/** Makes `count` spares in `spareDir` (made, never recursively, when missing). */
function fill(request: Extract<SpareRequest, { kind: "fill" }>): SpareAnswer {
  const { id, spareDir, count } = request;
  const names: string[] = [];
  try {
    if (!ready.has(spareDir)) {
      // Never made recursively: a trace folder removed meanwhile is not brought back.
      try {
        Deno.mkdirSync(spareDir, { mode: 0o700 });
      } catch (err) {
        if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
      }
      // Only a real folder: a link placed there could lead the spares (and their removal) away.
      if (!Deno.lstatSync(spareDir).isDirectory) return { kind: "made", id, names, outcome: "off" };
      sweep(spareDir);
      ready.add(spareDir);
    }
    for (let i = 0; i < count; i++) {
      const name = join(spareDir, crypto.randomUUID());
      Deno.openSync(name, { createNew: true, append: true, mode: 0o600 }).close();
      names.push(name);
    }
    return { kind: "made", id, names, outcome: "ok" };
  } catch (err) {
    ready.delete(spareDir);
    // The trace folder is gone: it starts over at its next journal. Anything else: no spares there.
    return {
      kind: "made",
      id,
      names,
      outcome: err instanceof Deno.errors.NotFound ? "gone" : "off",
    };
  }
}

parentPort!.on("message", (request: SpareRequest) => {
  if (request.kind === "fill") {
    parentPort!.postMessage(fill(request));
    return;
  }
  for (const name of request.names) {
    try {
      Deno.removeSync(name);
    } catch { /* already gone */ }
  }
  parentPort!.postMessage({ kind: "removed" } satisfies SpareAnswer);
});
