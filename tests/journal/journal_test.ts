import assert from "node:assert/strict";
import { eventHash, GENESIS_HASH } from "../../lib/journal/event.ts";
import { foldContext } from "../../lib/journal/fold.ts";
import { makeRedactor, REDACTED } from "../../lib/journal/redact.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { COPY_BATCH_LINES, createJournal } from "../../lib/journal/writer.ts";
import { sha256Hex } from "../../lib/hash.ts";
import canonicalize from "canonicalize";
import { tempDir } from "../helpers/temp.ts";

async function sampleJournal(dir: string, n = 10): Promise<string> {
  const path = `${dir}/run.jsonl`;
  const j = createJournal(path);
  for (let i = 0; i < n; i++) {
    j.append(i === 0 ? "run_started" : "tool_result", { i, text: `event ${i} ünïcode` });
  }
  await j.close();
  return path;
}

function lines(text: string): string[] {
  return text.split("\n").slice(0, -1);
}

Deno.test("createJournal() writes canonical lines whose hashes chain as DESIGN.md says", async () => {
  await using tmp = await tempDir();
  const path = await sampleJournal(tmp.path, 3);
  const text = await Deno.readTextFile(path);
  const events = parseJournal(text);
  assert.equal(events.length, 3);
  let prev = GENESIS_HASH;
  for (const [i, e] of events.entries()) {
    assert.equal(e.seq, i + 1);
    assert.equal(e.prev, prev);
    const jcs = canonicalize({ seq: e.seq, ts: e.ts, type: e.type, payload: e.payload });
    assert.equal(e.hash, sha256Hex(`${prev}\n${jcs}`), "hash = sha256_hex(prev + \\n + JCS(body))");
    assert.equal(e.hash, eventHash(prev, e));
    prev = e.hash;
  }
  assert.equal(events[0]!.prev, "0".repeat(64));
  assert.deepEqual(verifyJournal(text), { ok: true, checked: 3, broken_at: null });
  assert.deepEqual(verifyJournal(await Deno.readFile(path)), {
    ok: true,
    checked: 3,
    broken_at: null,
  });
});

Deno.test("createJournal() never overwrites an existing journal", async () => {
  await using tmp = await tempDir();
  const path = await sampleJournal(tmp.path, 1);
  assert.throws(() => createJournal(path), Deno.errors.AlreadyExists);
});

Deno.test("verifyJournal() names the first broken seq for every kind of tampering", async (t) => {
  await using tmp = await tempDir();
  const text = await Deno.readTextFile(await sampleJournal(tmp.path, 10));
  const ls = lines(text);
  const join = (xs: string[]) => xs.join("\n") + "\n";
  await t.step("one flipped byte in a payload", () => {
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf("event 4");
    bytes[at + 6] = "9".charCodeAt(0); // "event 4" -> "event 9"
    assert.deepEqual(verifyJournal(bytes), { ok: false, checked: 4, broken_at: 5 });
  });
  await t.step("every single byte flipped anywhere is found", () => {
    const bytes = new TextEncoder().encode(text);
    for (let i = 0; i < bytes.length; i += 37) {
      const copy = bytes.slice();
      copy[i] = copy[i]! ^ 0x01;
      const r = verifyJournal(copy);
      assert.equal(r.ok, false, `flip at byte ${i}`);
      const lineNo = new TextDecoder().decode(bytes.subarray(0, i)).split("\n").length;
      assert.ok(r.broken_at! <= lineNo + 1, `flip at byte ${i} found at or before line ${lineNo}`);
    }
  });
  await t.step("a dropped line", () => {
    assert.deepEqual(verifyJournal(join(ls.filter((_, i) => i !== 6))), {
      ok: false,
      checked: 6,
      broken_at: 7,
    });
  });
  await t.step("two swapped lines", () => {
    const swapped = [...ls];
    [swapped[2], swapped[3]] = [swapped[3]!, swapped[2]!];
    assert.deepEqual(verifyJournal(join(swapped)), { ok: false, checked: 2, broken_at: 3 });
  });
  await t.step("an inserted line", () => {
    const inserted = [...ls.slice(0, 5), ls[4]!, ...ls.slice(5)];
    assert.deepEqual(verifyJournal(join(inserted)), { ok: false, checked: 5, broken_at: 6 });
  });
  await t.step("a torn last line", () => {
    assert.deepEqual(verifyJournal(text.slice(0, -20)), { ok: false, checked: 9, broken_at: 10 });
  });
  await t.step("a recomputed hash does not hide an edit (the next prev breaks)", () => {
    const edited = ls.map((l) => JSON.parse(l));
    edited[1].payload.text = "forged";
    edited[1].hash = eventHash(edited[1].prev, edited[1]);
    const forged = join(edited.map((e: unknown) => canonicalize(e)!));
    assert.deepEqual(verifyJournal(forged), { ok: false, checked: 2, broken_at: 3 });
  });
  await t.step("a whitespace change or an extra field is found", () => {
    const spaced = [...ls];
    spaced[0] = spaced[0]!.replace('"seq":1', '"seq": 1');
    assert.equal(verifyJournal(join(spaced)).broken_at, 1);
    const extra = [...ls];
    extra[8] = extra[8]!.replace("{", '{"extra":1,');
    assert.equal(verifyJournal(join(extra)).broken_at, 9);
  });
  await t.step("an empty journal verifies with nothing checked", () => {
    assert.deepEqual(verifyJournal(""), { ok: true, checked: 0, broken_at: null });
  });
});

Deno.test("createJournal() redacts patterns and fields before hashing", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/r.jsonl`;
  const j = createJournal(path, { patterns: ["sk-[A-Za-z0-9]+"], fields: ["password"] });
  j.append("tool_call", {
    arguments: { token: "use sk-abc123 now", Password: "hunter2", nested: [{ password: 1 }] },
  });
  await j.close();
  const text = await Deno.readTextFile(path);
  assert.ok(!text.includes("sk-abc123"));
  assert.ok(!text.includes("hunter2"));
  const [e] = parseJournal(text);
  assert.deepEqual(e!.payload, {
    arguments: {
      token: `use ${REDACTED} now`,
      Password: REDACTED,
      nested: [{ password: REDACTED }],
    },
  });
  assert.equal(verifyJournal(text).ok, true, "the redacted line is what is hashed");
});

Deno.test("createJournal(): an append that cannot be journaled leaves no gap in the chain", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/r.jsonl`;
  const j = createJournal(path, { patterns: [".$"] });
  j.append("a", { n: 1 });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.throws(() => j.append("b", cyclic));
  j.append("c", { note: "ok \u{1f600}" }); // redaction cuts the pair: still canonical
  await j.close();
  const text = await Deno.readTextFile(path);
  assert.deepEqual(verifyJournal(text), { ok: true, checked: 2, broken_at: null });
  assert.deepEqual(parseJournal(text).map((e) => e.seq), [1, 2]);
});

Deno.test("verifyJournal(): a line escaping a lone surrogate is broken, not an error", () => {
  const line = `{"hash":"${"a".repeat(64)}","payload":{"s":"\\ud83d"},"prev":"${
    "0".repeat(64)
  }","seq":1,"ts":"2026-01-01T00:00:00.000Z","type":"x"}`;
  assert.deepEqual(verifyJournal(`${line}\n`), { ok: false, checked: 0, broken_at: 1 });
});

Deno.test("makeRedactor() is the identity without configuration", () => {
  const v = { a: "sk-1" };
  assert.equal(makeRedactor(undefined)(v), v);
});

Deno.test("foldContext() concatenates the messages appended at each model call", () => {
  const mk = (seq: number, type: string, payload: Record<string, unknown>) => ({
    seq,
    ts: "",
    type,
    payload,
    prev: "",
    hash: "",
  });
  const events = [
    mk(1, "run_started", { system: "Be brief." }),
    mk(2, "model_call", {
      turn: 1,
      model: { provider: "scripted", name: "x" },
      tools: ["t"],
      append: [{ role: "user", content: "hi" }],
    }),
    mk(3, "model_response", { turn: 1, text: "" }),
    mk(4, "model_call", {
      turn: 2,
      model: { provider: "scripted", name: "x" },
      tools: ["t"],
      append: [{ role: "assistant", content: "" }, {
        role: "tool",
        tool_call_id: "c",
        name: "t",
        content: "r",
      }],
    }),
    mk(5, "run_finished", {}),
  ];
  const first = foldContext(events, 2);
  assert.equal(first.system, "Be brief.");
  assert.deepEqual(first.messages, [{ role: "user", content: "hi" }]);
  const second = foldContext(events, 4);
  assert.equal(second.turn, 2);
  assert.equal(second.messages.length, 3);
  assert.deepEqual(foldContext(events, 5).seq, 4, "a later seq folds at the last call before it");
  assert.throws(() => foldContext(events, 1), /No model call/);
});

Deno.test("createJournal() keeps its chain when a payload holds a lone surrogate", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/lone.jsonl`;
  const j = createJournal(path);
  j.append("model_response", {
    text: "broken \ud800 text",
    tool_calls: [{ arguments: { ["k\udfff"]: "v" } }],
  });
  await j.close();
  const bytes = await Deno.readFile(path);
  assert.deepEqual(verifyJournal(bytes), { ok: true, checked: 1, broken_at: null });
  assert.equal(parseJournal(bytes)[0]!.payload.text, "broken \ufffd text");
});

Deno.test("createJournal() hands its lines to the hive's copy in batches, all of them by close()", async (t) => {
  await using dir = await tempDir();
  const read = async (path: string) => (await Deno.readTextFile(path)).split("\n").slice(0, -1);

  await t.step("a full batch goes at once; the rest at close, before the flush", async () => {
    const batches: { first: number; lines: string[] }[] = [];
    const path = `${dir.path}/batched.jsonl`;
    const j = createJournal(path, undefined, (first, lines) => batches.push({ first, lines }));
    for (let i = 0; i < COPY_BATCH_LINES + 3; i++) j.append("note", { i });
    assert.deepEqual(batches.map((b) => [b.first, b.lines.length]), [[1, COPY_BATCH_LINES]]);
    await j.close();
    assert.deepEqual(batches.map((b) => [b.first, b.lines.length]), [
      [1, COPY_BATCH_LINES],
      [COPY_BATCH_LINES + 1, 3],
    ]);
    // Byte for byte the file's lines, in order.
    assert.deepEqual(batches.flatMap((b) => b.lines), await read(path));
  });

  await t.step(
    "a batch that does not fill goes on its own, without waiting for more lines",
    async () => {
      const path = `${dir.path}/waiting.jsonl`;
      const handed = Promise.withResolvers<{ first: number; lines: string[] }>();
      const j = createJournal(path, undefined, (first, lines) => handed.resolve({ first, lines }));
      j.append("run_started", { input: "hi" });
      j.append("model_call", { turn: 1 });
      // A live run waiting on its model: another host follows it from the hive's copy.
      const batch = await handed.promise;
      assert.equal(batch.first, 1);
      assert.deepEqual(batch.lines, await read(path));
      await j.close();
    },
  );

  await t.step("a failed copy stops the copy, never the journal", async () => {
    const path = `${dir.path}/failing.jsonl`;
    let calls = 0;
    const j = createJournal(path, undefined, () => {
      calls++;
      throw new Error("the hive's database went away");
    });
    for (let i = 0; i < COPY_BATCH_LINES * 2 + 1; i++) j.append("note", { i });
    await j.close();
    assert.equal(calls, 1, "after the first failure the lines go to the file only");
    assert.equal(j.copyFailed(), true);
    assert.equal((await read(path)).length, COPY_BATCH_LINES * 2 + 1);
  });
});
