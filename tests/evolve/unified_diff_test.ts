import assert from "node:assert/strict";
import { unifiedDiff } from "../../lib/evolve/unified_diff.ts";
import { tempDir } from "../helpers/temp.ts";

/** A small seeded generator, so a failing case can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function mutate(lines: string[], rand: () => number): string[] {
  const out = [...lines];
  const edits = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rand() * (out.length + 1));
    const r = rand();
    if (r < 0.33 && out.length) out.splice(at % out.length, 1);
    else if (r < 0.66) out.splice(at, 0, `inserted ${Math.floor(rand() * 1000)}`);
    else if (out.length) out[at % out.length] = `changed ${Math.floor(rand() * 1000)}`;
  }
  return out;
}

Deno.test("unifiedDiff() output applies with patch(1) and reproduces the new text", async () => {
  await using tmp = await tempDir();
  for (let seed = 1; seed <= 40; seed++) {
    const rand = rng(seed);
    const before = Array.from(
      { length: Math.floor(rand() * 30) },
      (_, i) => `line ${i} ${Math.floor(rand() * 5)}`,
    );
    const after = mutate(before, rand);
    const a = before.length ? before.join("\n") + "\n" : "";
    const b = after.length ? after.join("\n") + "\n" : "";
    await Deno.writeTextFile(`${tmp.path}/f.txt`, a);
    const diff = unifiedDiff("f.txt", a, b);
    if (a === b) {
      assert.equal(diff, "", `seed ${seed}`);
      continue;
    }
    await Deno.writeTextFile(`${tmp.path}/d.patch`, diff);
    const out = await new Deno.Command("patch", {
      args: ["-s", "-p1", "-i", "d.patch"],
      cwd: tmp.path,
      stdout: "piped",
      stderr: "piped",
    }).output();
    // patch -p1 strips "a/" and "b/": apply to f.txt in the folder.
    assert.equal(out.code, 0, `seed ${seed}: ${new TextDecoder().decode(out.stderr)}\n${diff}`);
    assert.equal(await Deno.readTextFile(`${tmp.path}/f.txt`), b, `seed ${seed}`);
  }
});

Deno.test("unifiedDiff() of a new file and of identical texts", () => {
  assert.equal(
    unifiedDiff("n.ts", null, "a\nb\n"),
    "--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+a\n+b\n",
  );
  assert.equal(unifiedDiff("s.ts", "same\n", "same\n"), "");
  assert.match(unifiedDiff("e.ts", "a\n", "a"), /No newline at end of file/);
});
