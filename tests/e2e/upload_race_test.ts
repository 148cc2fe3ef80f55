/**
 * Concurrent uploads of one name through the real workbench: every upload is acknowledged with a
 * path of its own, and every acknowledged path holds exactly that upload's bytes (the name is claimed
 * atomically by `createFileAtomic`, never overwritten — not even through a link planted there).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createFileAtomic } from "../../lib/fs/atomic_write.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("uploads: 12 concurrent uploads of one name keep 12 files, each with its own bytes", async () => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-uploads-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "uploader", {
    model: scripted([{ text: "ok" }]),
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const bodies = Array.from(
    { length: 12 },
    (_, i) => new TextEncoder().encode(`upload ${i}\n`.repeat(20_000 + i * 100)),
  );
  const answers = await Promise.all(bodies.map(async (body) => {
    const res = await fetch(`${wb.url}/api/harnesses/uploader/uploads?name=report.txt`, {
      method: "POST",
      body,
    });
    return { status: res.status, json: await res.json() };
  }));
  for (const a of answers) assert.equal(a.status, 201, JSON.stringify(a.json));
  const paths = answers.map((a) => a.json.data.path as string);
  assert.equal(new Set(paths).size, 12, `each upload has its own path: ${paths}`);
  for (const [i, path] of paths.entries()) {
    assert.match(path, /^workspace\/uploads\/report(-\d+)?\.txt$/);
    assert.equal(answers[i]!.json.data.bytes, bodies[i]!.length);
    assert.deepEqual(await Deno.readFile(join(dir, path)), bodies[i], `${path} holds upload ${i}`);
  }
  const stored = [];
  for await (const e of Deno.readDir(join(dir, "workspace/uploads"))) stored.push(e.name);
  assert.equal(stored.length, 12, `exactly the 12 files, no temporary file left: ${stored}`);
});

Deno.test("createFileAtomic() claims a free name only, and leaves no temporary file", async () => {
  await using root = await tempDir();
  const path = join(root.path, "a.txt");
  assert.equal(await createFileAtomic(path, "first"), true);
  assert.equal(await createFileAtomic(path, "second"), false);
  assert.equal(await Deno.readTextFile(path), "first");
  assert.equal((await Deno.stat(path)).nlink, 1, "one name once created");
  const planted = join(root.path, "planted.txt");
  await Deno.symlink(join(root.path, "elsewhere.txt"), planted);
  assert.equal(await createFileAtomic(planted, "through the link"), false);
  await assert.rejects(Deno.stat(join(root.path, "elsewhere.txt")), Deno.errors.NotFound);
  const names = [];
  for await (const e of Deno.readDir(root.path)) names.push(e.name);
  assert.deepEqual(names.sort(), ["a.txt", "planted.txt"]);
});
