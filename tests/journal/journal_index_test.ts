/**
 * Paging a journal: any page equals the same slice of a whole read, the verdict is always the whole
 * file's, and a changed file (grown, edited in place at the same size, torn) is indexed again.
 */
import assert from "node:assert/strict";
import { indexJournal, readEventRange } from "../../lib/journal/journal_index.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { createJournal } from "../../lib/journal/writer.ts";
import { tempDir } from "../helpers/temp.ts";

async function journal(path: string, n: number): Promise<Uint8Array> {
  const j = createJournal(path);
  for (let i = 0; i < n; i++) {
    j.append("tool_result", { i, text: `event ${i} ünïcode 🦀 `.repeat(1 + (i % 40)) });
  }
  await j.close();
  return await Deno.readFile(path);
}

Deno.test("indexJournal + readEventRange: pages equal slices of a whole read, across chunk boundaries", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/run.jsonl`;
  const bytes = await journal(path, 3000);
  assert.ok(bytes.length > 600_000, "lines cross the reader's chunks");
  const all = parseJournal(bytes);
  const index = await indexJournal(path);
  assert.equal(index.lines, 3000);
  assert.deepEqual(index.integrity, verifyJournal(bytes));
  for (const [from, limit] of [[1, 50], [1, 1], [777, 500], [2990, 50], [3000, 1], [3001, 5]]) {
    assert.deepEqual(
      await readEventRange(path, index, from!, limit!),
      all.slice(from! - 1, from! - 1 + limit!),
      `lines ${from}..${from! + limit! - 1}`,
    );
  }
  // A file left alone a while (its times over a second old) is remembered: not scanned again.
  await new Promise((r) => setTimeout(r, 1100));
  const settled = await indexJournal(path);
  assert.equal(await indexJournal(path), settled, "an unchanged file is not read again");
});

Deno.test("indexJournal: a grown, edited or torn journal is indexed and verified again", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/run.jsonl`;
  const bytes = await journal(path, 20);
  await new Promise((r) => setTimeout(r, 1100));
  const first = await indexJournal(path);
  assert.equal(first.integrity.ok, true);
  assert.equal(await indexJournal(path), first, "remembered while unchanged");

  // Edited in place, same size: one character of line 5 changed.
  const edited = bytes.slice();
  const at = new TextDecoder().decode(bytes).indexOf('"i":4') + 5;
  edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
  await Deno.writeFile(path, edited);
  const old = new Date(Date.now() - 5000);
  await Deno.utime(path, old, old); // even with its times put back (ctime still moves)
  const second = await indexJournal(path);
  assert.notEqual(second, first);
  assert.deepEqual(second.integrity, verifyJournal(edited));
  assert.equal(second.integrity.ok, false);
  assert.equal(second.integrity.broken_at, 5);
  assert.equal(second.lines, 20, "every line is still paged after the break");

  // Torn: the last line cut in half; the verdict names it, the earlier lines still page.
  await Deno.writeFile(path, bytes.subarray(0, bytes.length - 40));
  const torn = await indexJournal(path);
  assert.deepEqual(torn.integrity, { ok: false, checked: 19, broken_at: 20 });
  assert.equal(torn.lines, 19);
  assert.equal((await readEventRange(path, torn, 1, 100)).length, 19);

  // Grown (a live run appending): the new lines are counted and verified.
  await Deno.writeFile(path, bytes);
  const again = await indexJournal(path);
  assert.deepEqual(again.integrity, { ok: true, checked: 20, broken_at: null });
});
