import assert from "node:assert/strict";
import { verifyJournalFile } from "../../lib/journal/verify.ts";
import { createJournal } from "../../lib/journal/writer.ts";
import {
  keepSpareJournals,
  openSpare,
  SPARE_FOLDER,
  spareFillsSettled,
  SPARES_PER_FOLDER,
} from "../../lib/journal/spare_files.ts";
import { tempDir } from "../helpers/temp.ts";

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

/** Makes the folder's spares: the first journal registers the folder, the fill makes them. */
async function primed(traces: string): Promise<void> {
  const first = createJournal(`${traces}/run_first.jsonl`);
  await first.close();
  await spareFillsSettled();
}

Deno.test("a server's journals are linked from spares made ahead, and no spare outlives it", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const stop = keepSpareJournals();
  try {
    await primed(traces);
    const spares = names(`${traces}/${SPARE_FOLDER}`);
    assert.equal(spares.length, SPARES_PER_FOLDER, "the folder keeps its spares");
    const inodes = new Map(
      spares.map((name) => [Deno.statSync(`${traces}/${SPARE_FOLDER}/${name}`).ino, name]),
    );

    const j = createJournal(`${traces}/run_a.jsonl`);
    j.append("run_started", { input: "hi" });
    j.append("run_finished", { output: "done" });
    await j.close();
    const info = Deno.statSync(`${traces}/run_a.jsonl`);
    const taken = inodes.get(info.ino!);
    assert.ok(taken, "the journal is a spare, linked under its name");
    if (Deno.build.os !== "windows") assert.equal(info.mode! & 0o777, 0o600);
    const verdict = await verifyJournalFile(`${traces}/run_a.jsonl`);
    assert.equal(verdict.ok, true);
    assert.equal(verdict.checked, 2);
    await spareFillsSettled();
    assert.equal(
      names(`${traces}/${SPARE_FOLDER}`).includes(taken),
      false,
      "its spare name is gone",
    );
    // Taken spares are made again once the folder runs low (half of them gone, run_a's included).
    for (let i = 1; i < SPARES_PER_FOLDER / 2; i++) {
      const more = createJournal(`${traces}/run_more_${String(i).padStart(2, "0")}.jsonl`);
      await more.close();
    }
    await spareFillsSettled();
    assert.equal(
      names(`${traces}/${SPARE_FOLDER}`).length,
      SPARES_PER_FOLDER,
      "the spares taken are made again",
    );
  } finally {
    await stop();
  }
  assert.deepEqual(
    names(`${traces}/${SPARE_FOLDER}`),
    [],
    "the last user's stop removes the spares",
  );
  assert.deepEqual(names(traces).filter((n) => !n.startsWith("run_more_")), [
    SPARE_FOLDER,
    "run_a.jsonl",
    "run_first.jsonl",
  ]);
  assert.equal(openSpare(`${traces}/run_b.jsonl`), undefined, "no spares once stopped");
});

Deno.test("a spare never replaces an existing journal, and is kept for the next one", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const stop = keepSpareJournals();
  try {
    await primed(traces);
    await Deno.writeTextFile(`${traces}/run_taken.jsonl`, "kept\n");
    assert.throws(() => createJournal(`${traces}/run_taken.jsonl`), Deno.errors.AlreadyExists);
    assert.equal(await Deno.readTextFile(`${traces}/run_taken.jsonl`), "kept\n");
    assert.equal(names(`${traces}/${SPARE_FOLDER}`).length, SPARES_PER_FOLDER);
    const j = createJournal(`${traces}/run_next.jsonl`);
    await j.close();
  } finally {
    await stop();
  }
});

Deno.test("a spare removed by someone else is dropped and the journal is created directly", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const stop = keepSpareJournals();
  try {
    await primed(traces);
    for (const name of names(`${traces}/${SPARE_FOLDER}`)) {
      await Deno.remove(`${traces}/${SPARE_FOLDER}/${name}`);
    }
    const j = createJournal(`${traces}/run_a.jsonl`);
    j.append("run_started", {});
    await j.close();
    assert.equal((await verifyJournalFile(`${traces}/run_a.jsonl`)).ok, true);
  } finally {
    await stop();
  }
});

Deno.test("spares left by a process that is gone are swept; a removed trace folder is not made again", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const spareDir = `${traces}/${SPARE_FOLDER}`;
  await Deno.mkdir(spareDir, { recursive: true });
  await Deno.writeTextFile(`${spareDir}/old`, "");
  await Deno.writeTextFile(`${spareDir}/recent`, "");
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  await Deno.utime(`${spareDir}/old`, twoHoursAgo, twoHoursAgo);
  const stop = keepSpareJournals();
  try {
    await primed(traces);
    const left = names(spareDir);
    assert.equal(left.includes("old"), false, "an hour-old spare is swept");
    assert.equal(left.includes("recent"), true, "a recent one may be another server's");

    await Deno.remove(traces, { recursive: true });
    // The spares' names are gone: the next journal is created directly, its folder made again by
    // the create (as without spares), and the fill does not make the folder on its own.
    const j = createJournal(`${traces}/run_a.jsonl`);
    await j.close();
    await spareFillsSettled();
    await Deno.remove(traces, { recursive: true });
    assert.equal(openSpare(`${traces}/run_b.jsonl`), undefined);
    await spareFillsSettled();
    await assert.rejects(Deno.stat(traces), Deno.errors.NotFound);
  } finally {
    await stop();
  }
});

Deno.test("without a server keeping spares, a journal makes no spare folder", async () => {
  await using tmp = await tempDir();
  const j = createJournal(`${tmp.path}/traces/run_a.jsonl`);
  await j.close();
  assert.deepEqual(names(`${tmp.path}/traces`), ["run_a.jsonl"]);
});

Deno.test("spares are kept while any user still wants them", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const stopA = keepSpareJournals();
  const stopB = keepSpareJournals();
  try {
    await primed(traces);
    await stopA();
    await stopA(); // a second call is a no-op, not another user's share
    assert.equal(names(`${traces}/${SPARE_FOLDER}`).length, SPARES_PER_FOLDER);
    const j = createJournal(`${traces}/run_a.jsonl`);
    await j.close();
  } finally {
    await stopB();
  }
  assert.deepEqual(names(`${traces}/${SPARE_FOLDER}`), []);
});

Deno.test("a .spare that is not a real folder is never used: journals are created directly", async () => {
  await using tmp = await tempDir();
  const traces = `${tmp.path}/traces`;
  const elsewhere = `${tmp.path}/elsewhere`;
  await Deno.mkdir(traces);
  await Deno.mkdir(elsewhere);
  await Deno.symlink(elsewhere, `${traces}/${SPARE_FOLDER}`);
  const stop = keepSpareJournals();
  try {
    await primed(traces);
    const j = createJournal(`${traces}/run_a.jsonl`);
    await j.close();
    assert.deepEqual(names(elsewhere), [], "nothing is made through the link");
    assert.deepEqual(names(traces), [SPARE_FOLDER, "run_a.jsonl", "run_first.jsonl"]);
  } finally {
    await stop();
  }
});

Deno.test("only the most recently used trace folders keep spares, so open files stay bounded", async () => {
  await using tmp = await tempDir();
  // The files this test's folders hold open (the runtime's own descriptors come and go with the
  // machine's load, so they are not counted).
  const openFiles = () => {
    if (Deno.build.os !== "linux") return 0;
    let n = 0;
    for (const fd of Deno.readDirSync("/proc/self/fd")) {
      try {
        if (Deno.readLinkSync(`/proc/self/fd/${fd.name}`).startsWith(tmp.path)) n++;
      } catch { /* closed meanwhile */ }
    }
    return n;
  };
  const before = openFiles();
  const stop = keepSpareJournals();
  try {
    // As a workbench measuring versions does: a new folder each time, deleted later.
    for (let i = 0; i < 20; i++) {
      const traces = `${tmp.path}/copy_${i}/traces`;
      await primed(traces);
      await Deno.remove(`${tmp.path}/copy_${i}`, { recursive: true });
    }
    assert.ok(
      openFiles() - before <= 8 * SPARES_PER_FOLDER,
      `${openFiles() - before} files open beyond the start`,
    );
    const kept = [];
    for (let i = 0; i < 12; i++) {
      const traces = `${tmp.path}/kept_${i}/traces`;
      await primed(traces);
      kept.push(names(`${traces}/${SPARE_FOLDER}`).length);
    }
    await spareFillsSettled();
    const now = Array.from(
      { length: 12 },
      (_, i) => names(`${tmp.path}/kept_${i}/traces/${SPARE_FOLDER}`).length,
    );
    const full = SPARES_PER_FOLDER;
    assert.deepEqual(now, [0, 0, 0, 0, ...Array(8).fill(full)], "the four oldest gave theirs up");
    assert.deepEqual(kept, Array(12).fill(full));
  } finally {
    await stop();
  }
  assert.equal(openFiles(), before, "nothing stays open after the stop");
});
