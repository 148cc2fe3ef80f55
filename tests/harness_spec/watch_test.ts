import assert from "node:assert/strict";
import { writeFileAtomic } from "../../lib/fs/atomic_write.ts";
import { noteSpecWritten, watchSpec } from "../../lib/harness_spec/watch.ts";

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("watchSpec: a rename-write of harness.yaml moves the generation; other files do not", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(`${dir}/harness.yaml`, "id: a\n");
  const watch = watchSpec(dir);
  try {
    await new Promise((r) => setTimeout(r, 50));
    const g0 = watch.generation();
    assert.equal(watch.generation(), g0, "stable while nothing changes");
    await Deno.writeTextFile(`${dir}/notes.txt`, "x");
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(watch.generation(), g0, "another file is not the spec");
    await writeFileAtomic(`${dir}/harness.yaml`, "id: b\n");
    await until(() => watch.generation() !== g0);
  } finally {
    watch.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("watchSpec: this process's own write is seen at once, before any file event", () => {
  const dir = Deno.makeTempDirSync();
  const watch = watchSpec(Deno.realPathSync(dir));
  try {
    const g0 = watch.generation();
    noteSpecWritten();
    assert.notEqual(watch.generation(), g0);
  } finally {
    watch.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("watchSpec: a folder that cannot be watched always reports a possible change", () => {
  const watch = watchSpec("/nonexistent/harness-folder");
  const g0 = watch.generation();
  assert.notEqual(watch.generation(), g0);
  watch.close();
  const closed = watchSpec(Deno.cwd());
  closed.close();
  const g1 = closed.generation();
  assert.notEqual(closed.generation(), g1, "a closed watch no longer vouches for anything");
});
