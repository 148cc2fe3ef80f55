import assert from "node:assert/strict";
import { requestLine, requestLog } from "../../lib/http/request_log.ts";

Deno.test("requestLog: lines are written in order, batched, and flush waits for them", async () => {
  const chunks: string[] = [];
  const log = requestLog({
    write: async (bytes) => {
      await new Promise((r) => setTimeout(r, 5));
      chunks.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
  });
  for (let i = 0; i < 5; i++) log.line(`line ${i}`);
  await log.flush();
  assert.equal(chunks.join(""), "line 0\nline 1\nline 2\nline 3\nline 4\n");
  assert.ok(chunks.length < 5, `queued lines are written together (${chunks.length} writes)`);
});

Deno.test("requestLog: a reader that stops reading never blocks the caller; drops are counted", async () => {
  let release!: () => void;
  const blocked = new Promise<void>((r) => release = r);
  const chunks: string[] = [];
  const log = requestLog({
    write: async (bytes) => {
      await blocked;
      chunks.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
  });
  const t0 = performance.now();
  for (let i = 0; i < 10_500; i++) log.line(`l${i}`);
  assert.ok(performance.now() - t0 < 5_000, "line() returned while the writer was stuck");
  release();
  await log.flush();
  const text = chunks.join("");
  assert.match(text, /^l0\n/);
  assert.match(text, /\(\d+ request log lines dropped: stderr was not being read\)\n$/);
  const dropped = Number(/\((\d+) request log lines dropped/.exec(text)![1]);
  const written = text.split("\n").filter((l) => /^l\d+$/.test(l)).length;
  assert.equal(written + dropped, 10_500, "every line is either written or counted");
});

Deno.test("requestLog: a closed stderr stops logging without throwing", async () => {
  const log = requestLog({ write: () => Promise.reject(new Error("broken pipe")) });
  log.line("a");
  await log.flush();
  log.line("b");
  await log.flush();
});

Deno.test("requestLine: time, method, path, status, rounded duration, key", () => {
  assert.match(
    requestLine("GET", "/stats", 200, 1.6, "k_1"),
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/stats 200 2ms key=k_1$/,
  );
  assert.match(requestLine("GET", "/health", 200, 0, undefined), / key=-$/);
});

Deno.test("requestLine: the time is the current millisecond's, formatted once per millisecond", async () => {
  const at = (line: string) => Date.parse(line.split(" ")[0]!);
  const before = Date.now();
  const first = requestLine("GET", "/health", 200, 0, undefined);
  assert.ok(at(first) >= before && at(first) <= Date.now());
  await new Promise((r) => setTimeout(r, 5));
  const later = requestLine("GET", "/health", 200, 0, undefined);
  assert.ok(at(later) > at(first), "a later line carries a later time");
});

Deno.test("requestLog: lines go out on their own after a few milliseconds, together", async () => {
  const chunks: string[] = [];
  const log = requestLog({
    write: (bytes) => {
      chunks.push(new TextDecoder().decode(bytes));
      return Promise.resolve(bytes.length);
    },
  });
  for (let i = 0; i < 100; i++) log.line(`r${i}`);
  assert.equal(chunks.length, 0, "nothing is written while the lines wait for company");
  for (let waited = 0; chunks.length === 0 && waited < 2_000; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(chunks.length, 1, "the waiting lines are written in one call");
  assert.equal(chunks[0]!.split("\n").length, 101);
  await log.flush();
});
