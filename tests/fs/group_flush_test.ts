import assert from "node:assert/strict";
import { flushCounts, flushPath } from "../../lib/fs/group_flush.ts";
import { tempDir } from "../helpers/temp.ts";

/** A flush the test finishes by hand, recording what each flush saw written when it started. */
function manualSync(written: () => number) {
  const started: { saw: number; finish: () => void; fail: (err: Error) => void }[] = [];
  const sync = (_path: string) => {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    started.push({ saw: written(), finish: resolve, fail: reject });
    return promise;
  };
  return { sync, started };
}

/** Settles pending promise callbacks. */
const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("a caller is answered only by a flush that started after its call", async () => {
  let written = 0;
  const { sync, started } = manualSync(() => written);
  const answered: number[] = [];
  const call = (n: number) => {
    written = n; // what the caller wrote before asking
    return flushPath("/virtual/a", sync).then(() => answered.push(n));
  };
  const first = call(1);
  assert.equal(started.length, 1, "the first caller's flush starts at once");
  // These arrive while the first flush is in flight: it started before they wrote.
  const second = call(2);
  const third = call(3);
  assert.equal(started.length, 1, "one flush in flight at a time");
  started[0]!.finish();
  await first;
  await tick();
  assert.deepEqual(answered, [1], "the flush in flight answers only the call it started for");
  assert.equal(started.length, 2, "the waiting callers' flush starts when the first ends");
  assert.ok(started[1]!.saw >= 3, "…and it covers what both wrote");
  started[1]!.finish();
  await Promise.all([second, third]);
  assert.deepEqual(answered, [1, 2, 3]);
});

Deno.test("a failed flush fails every caller it covers, and the next callers get a new flush", async () => {
  const { sync, started } = manualSync(() => 0);
  const a = flushPath("/virtual/b", sync);
  const b = flushPath("/virtual/b", sync);
  const c = flushPath("/virtual/b", sync);
  started[0]!.finish();
  await a;
  await tick();
  started[1]!.fail(new Error("EIO"));
  await assert.rejects(b, /EIO/);
  await assert.rejects(c, /EIO/);
  const d = flushPath("/virtual/b", sync);
  assert.equal(started.length, 3);
  started[2]!.finish();
  await d;
});

Deno.test("paths are flushed independently", async () => {
  const { sync, started } = manualSync(() => 0);
  const a = flushPath("/virtual/c", sync);
  const b = flushPath("/virtual/d", sync);
  assert.equal(started.length, 2, "a flush of one path does not hold another's");
  for (const s of started) s.finish();
  await Promise.all([a, b]);
});

Deno.test("a real file and a real folder are flushed, and concurrent callers share flushes", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/log`;
  await Deno.writeTextFile(file, "frame\n");
  const before = flushCounts();
  await Promise.all(Array.from({ length: 20 }, () => flushPath(file)));
  await flushPath(tmp.path);
  const after = flushCounts();
  assert.equal(after.requests - before.requests, 21);
  // The first call's flush, then one for the 19 that arrived while it ran, then the folder's.
  assert.equal(after.flushes - before.flushes, 3);
  await assert.rejects(flushPath(`${tmp.path}/missing`), Deno.errors.NotFound);
});

Deno.test("a flush is under way when flushPath returns: its path opened in the caller's turn", async () => {
  await using tmp = await tempDir();
  const file = `${tmp.path}/log`;
  await Deno.writeTextFile(file, "frame\n");
  /** Whether this process has the file open (Linux lists its descriptors in /proc). */
  const opened = () =>
    [...Deno.readDirSync("/proc/self/fd")].some((e) => {
      try {
        return Deno.readLinkSync(`/proc/self/fd/${e.name}`) === file;
      } catch {
        return false; // the listing's own descriptor, closed since
      }
    });
  if (Deno.build.os !== "linux") return;
  const flushed = flushPath(file);
  // Before any await: the descriptor is open and the flush dispatched.
  assert.ok(opened());
  await flushed;
  assert.ok(!opened());
  // A path that cannot be opened rejects the call's promise; nothing is thrown at the caller.
  let promise: Promise<void> | undefined;
  assert.doesNotThrow(() => (promise = flushPath(`${tmp.path}/missing`)));
  await assert.rejects(promise!, Deno.errors.NotFound);
});
