/**
 * Load, concurrency, fuzz and shutdown tests of the REAL control plane (`framework control-plane`
 * started as a subprocess on a free port of 127.0.0.1): run capacity (503 with Retry-After, FIFO
 * queue, other endpoints never wait for run capacity), concurrent spec mutations (one lock, a valid
 * file, one construction-log line each, running runs keep their spec snapshot), 2,000 malformed
 * requests (never a 500, always the ok wrapper), a streaming client that disconnects mid-run, and
 * SIGTERM with a run in flight.
 *
 * Every test has its own FRAMEWORK_HOME and harness folder. Timing assertions compare events of the
 * same test with each other (never absolute durations): the machine is shared and noisy.
 *
 * The fuzz test is seeded: `FUZZ_SEED=<n> deno test -A tests/e2e/control_plane_load_test.ts` replays
 * a failing run (the seed is printed in every failure message).
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { SPARE_FOLDER } from "../../lib/journal/spare_files.ts";
import { verifyJournalFile } from "../../lib/journal/verify.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import {
  memberToken,
  readSse,
  type RunningControlPlane,
  startControlPlane,
} from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ERROR_KINDS = [
  "bad_input",
  "unauthorized",
  "forbidden",
  "not_found",
  "over_capacity",
  "untrusted",
  "conflict",
  "internal",
];

/** One HTTP answer, body read in full. */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
  /** `performance.now()` when the request was sent. */
  sentAt: number;
  /** `performance.now()` when the body was read. */
  at: number;
}

/** Sends a request to the control plane and reads the whole body. */
async function call(
  plane: RunningControlPlane,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; client?: Deno.HttpClient } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  const sentAt = performance.now();
  const res = await fetch(plane.url + path, { method, headers, body, client: opts.client });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: parsed,
    sentAt,
    at: performance.now(),
  };
}

/** Asserts a 200 ok-wrapped answer and returns `data`. */
function okData(a: Answer, what: string): Json {
  assert.equal(a.status, 200, `${what}: HTTP ${a.status} ${a.text.slice(0, 500)}`);
  assert.equal(a.body?.ok, true, `${what}: ${a.text.slice(0, 500)}`);
  return a.body.data;
}

/** Asserts an ok-wrapped error answer with a status and kind; returns `error`. */
function errorOf(a: Answer, status: number, kind: string, what: string): Json {
  assert.equal(a.status, status, `${what}: HTTP ${a.status} ${a.text.slice(0, 500)}`);
  assert.equal(a.body?.ok, false, `${what}: ${a.text.slice(0, 500)}`);
  assert.equal(a.body.error?.kind, kind, `${what}: ${a.text.slice(0, 500)}`);
  assert.equal(typeof a.body.error.message, "string");
  return a.body.error;
}

/** Polls until `fn` returns a value (not undefined/false), or fails after `timeoutMs`. */
async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  stepMs = 25,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (true) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (performance.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The number of runs of the served harness still going, from `GET /stats`. */
async function running(plane: RunningControlPlane, token: string): Promise<number> {
  const stats = okData(await call(plane, "GET", "/stats", { token }), "GET /stats");
  assert.equal(typeof stats.runs.running, "number", "stats.runs.running");
  return stats.runs.running;
}

/**
 * A scripted model: the default reply waits `delayMs` and answers; inputs starting with `quick`
 * answer at once; inputs starting with `tool` call `list_files`, then answer (each call waits).
 */
function model(delayMs: number): Record<string, unknown> {
  const usage = { input_tokens: 20, output_tokens: 5 };
  return scripted([{ text: "slow answer", delay_ms: delayMs, usage }], {
    max_retries: 0,
    scenarios: [
      { match: "^quick", replies: [{ text: "quick answer", usage }] },
      {
        match: "^tool",
        replies: [
          {
            text: "looking",
            tool_calls: [{ name: "list_files", arguments: {} }],
            delay_ms: delayMs,
            usage,
          },
          { text: "tool answer", delay_ms: delayMs, usage },
        ],
      },
    ],
  });
}

/** Writes the test harness `<root>/bot`. */
function harness(root: string, delayMs: number, extra: Record<string, unknown> = {}) {
  return writeHarness(root, "bot", {
    name: "Load bot",
    instructions: "Answer briefly.",
    model: model(delayMs),
    limits: { max_turns: 4, timeout_s: 120 },
    tools: [{ builtin: "list_files" }],
    ...extra,
  }, { "notes.txt": "some notes\n" });
}

/** Internal-error lines the server wrote on stderr. */
function internalErrors(plane: RunningControlPlane): string[] {
  return plane.stderr().filter((l) => /internal error/i.test(l));
}

// ------------------------------------------------------------------------------------------------
// 1. Run capacity
// ------------------------------------------------------------------------------------------------

Deno.test("capacity: 2 running + 3 queued, 503 beyond with Retry-After, FIFO, others never wait", async () => {
  await using root = await tempDir();
  await using home = await tempDir("fw-home-");
  const dir = await harness(root.path, 2000);
  const { token } = await memberToken(dir, home.path, "ops", ["run", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "2", "--max-queued-runs", "3"],
  });

  // An earlier, finished run whose trace is read during the burst.
  const earlier = okData(
    await call(plane, "POST", "/run", { token, body: { input: "quick one" } }),
    "quick run",
  );
  assert.equal(earlier.status, "success");

  const burstAt = performance.now();
  const burst = Array.from(
    { length: 10 },
    (_, i) => call(plane, "POST", "/run", { token, body: { input: `slow ${i}` } }),
  );
  let rejected = 0;
  for (const p of burst) p.then((a) => a.status === 503 && rejected++, () => {});

  // While the runs are still going: stats says 2 running; health, stats and an earlier trace answer.
  await waitFor("two runs running", async () => (await running(plane, token)) === 2);
  const health = await call(plane, "GET", "/health");
  const trace = await call(plane, "GET", `/trace/${earlier.run_id}`, { token });
  const stats = await call(plane, "GET", "/stats", { token });
  assert.equal(okData(health, "GET /health").id, "bot");
  const traceData = okData(trace, "GET /trace of the earlier run");
  assert.equal(traceData.status, "success");
  assert.equal(traceData.integrity.ok, true);
  const statsData = okData(stats, "GET /stats");
  assert.equal(statsData.runs.running, 2, "the slow runs are still going after the probes");

  const answers = await Promise.all(burst);
  const successes = answers.filter((a) => a.status === 200);
  const overs = answers.filter((a) => a.status === 503);
  assert.equal(
    successes.length,
    5,
    `5 runs admitted: ${answers.map((a) => `${a.status} ${a.text.slice(0, 120)}`).join("\n")}`,
  );
  assert.equal(overs.length, 5, "5 runs refused");
  assert.equal(rejected, 5);
  for (const a of overs) {
    const err = errorOf(a, 503, "over_capacity", "refused run");
    const retry = a.headers.get("retry-after");
    assert.match(retry ?? "", /^[1-9]\d*$/, `Retry-After is whole seconds >= 1: ${retry}`);
    assert.equal(err.details?.retry_after_s, Number(retry));
  }
  for (const a of successes) assert.equal(okData(a, "admitted run").status, "success");

  // The probes answered well before the first slow run finished.
  const firstResult = Math.min(...successes.map((a) => a.at));
  for (const [name, probe] of [["health", health], ["trace", trace], ["stats", stats]] as const) {
    assert.ok(
      probe.at < firstResult,
      `${name} answered ${Math.round(probe.at - burstAt)} ms after the burst, ` +
        `the first run result ${Math.round(firstResult - burstAt)} ms`,
    );
    assert.ok(
      probe.at - probe.sentAt < (firstResult - burstAt) / 2,
      `${name} took ${Math.round(probe.at - probe.sentAt)} ms, ` +
        `the first run result came ${Math.round(firstResult - burstAt)} ms after the burst`,
    );
  }
  // The refusals are decided at once, not after a run finishes.
  for (const a of overs) assert.ok(a.at < firstResult, "a 503 is answered before any run ends");

  // FIFO: run ids are allocated in admission order (no I/O between allocation and admission);
  // start times follow that order, and at most 2 runs overlap at any moment.
  const runs = successes.map((a) => a.body.data).sort((a: Json, b: Json) =>
    a.run_id < b.run_id ? -1 : 1
  );
  const starts = runs.map((r: Json) => Date.parse(r.started_at));
  const ends = runs.map((r: Json) => Date.parse(r.ended_at));
  for (let i = 1; i < runs.length; i++) {
    assert.ok(
      starts[i]! >= starts[i - 1]!,
      `run ${i} (admitted later) started before run ${i - 1}: ${
        runs.map((r: Json) => `${r.run_id} ${r.started_at}`).join(", ")
      }`,
    );
  }
  for (let i = 0; i < runs.length; i++) {
    const overlapping = runs.filter((_: Json, j: number) =>
      starts[j]! <= starts[i]! && starts[i]! < ends[j]!
    ).length;
    assert.ok(overlapping <= 2, `at most 2 runs at once (run ${i} overlaps ${overlapping})`);
  }
  // The queued ones (admitted 3rd to 5th) started only when a slot was freed.
  assert.ok(starts[2]! >= Math.min(ends[0]!, ends[1]!), "3rd run waited for a slot");
  assert.ok(starts[4]! >= Math.min(ends[2]!, ends[3]!), "5th run waited for the 3rd or 4th");

  // After the burst a new run is accepted again; the refused runs were never recorded.
  const after = okData(
    await call(plane, "POST", "/run", { token, body: { input: "quick again" } }),
    "run after the burst",
  );
  assert.equal(after.status, "success");
  const final = okData(await call(plane, "GET", "/stats", { token }), "GET /stats");
  assert.equal(final.runs.running, 0);
  assert.equal(final.runs.total, 7, "1 + 5 + 1 runs recorded; refused runs are not");
  assert.equal(final.runs.by_status.success, 7);
  assert.deepEqual(internalErrors(plane), []);
});

// ------------------------------------------------------------------------------------------------
// 2. Concurrent mutations
// ------------------------------------------------------------------------------------------------

Deno.test("mutations: 50 concurrent /add/skill and 50 concurrent /set all land, one log line each", async (t) => {
  await using root = await tempDir();
  await using home = await tempDir("fw-home-");
  const dir = await harness(root.path, 2500);
  const { token, key_id } = await memberToken(dir, home.path, "builder", [
    "run",
    "read",
    "mutate",
  ]);
  await using plane = await startControlPlane(dir, { home: home.path });
  const N = 50;
  const name = (i: number) => `skill-${i}`;

  await t.step("50 concurrent /add/skill", async () => {
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        call(plane, "POST", "/add/skill", {
          token,
          body: { name: name(i), description: `Skill ${i}`, instructions: `Do thing ${i}.` },
        })),
    );
    answers.forEach((a, i) => {
      const data = okData(a, `add ${name(i)}`);
      assert.equal(data.kind, "skill");
      assert.equal(data.name, name(i));
      assert.match(data.spec_version, /^[0-9a-f]{64}$/);
    });
    const versions = new Set(answers.map((a) => a.body.data.spec_version));
    assert.equal(versions.size, N, "every add produced its own spec version");
  });

  await t.step("50 concurrent /set of the skills' descriptions", async () => {
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        call(plane, "POST", "/set", {
          token,
          body: { path: `skills.${name(i)}.description`, value: `Updated skill ${i}` },
        })),
    );
    answers.forEach((a, i) => {
      const data = okData(a, `set skills.${name(i)}.description`);
      assert.equal(data.path, `skills.${name(i)}.description`);
      assert.equal(data.old, `Skill ${i}`);
      assert.equal(data.new, `Updated skill ${i}`);
    });
  });

  await t.step("the file is valid and holds every change", async () => {
    const validated = jsonOk(await runCli(["validate", dir, "--json"], { home: home.path }));
    assert.equal(validated.valid, true, JSON.stringify(validated.issues));
    const remote = okData(await call(plane, "POST", "/validate", { token }), "POST /validate");
    assert.equal(remote.valid, true, JSON.stringify(remote.issues));
    const spec = parse(await Deno.readTextFile(`${dir}/harness.yaml`));
    assert.equal(spec.skills.length, N);
    const byName = new Map(spec.skills.map((s: Json) => [s.name, s]));
    for (let i = 0; i < N; i++) {
      const skill = byName.get(name(i)) as Json;
      assert.ok(skill, `skill ${name(i)} is in harness.yaml`);
      assert.equal(skill.description, `Updated skill ${i}`);
      assert.equal(skill.instructions, `Do thing ${i}.`);
    }
    assert.equal(spec.instructions, "Answer briefly.", "untouched fields stay");

    const lines = (await Deno.readTextFile(`${dir}/.framework/construction.log`)).trim()
      .split("\n").map((l) => JSON.parse(l));
    const sets = lines.filter((l) => l.op === "set");
    const adds = lines.filter((l) => l.op === "add");
    assert.equal(sets.length, N, "50 set lines");
    assert.equal(adds.length, N, "50 add lines");
    for (const l of [...sets, ...adds]) assert.equal(l.actor, `http:${key_id}`);
    assert.deepEqual(
      new Set(sets.map((l) => l.path)),
      new Set(Array.from({ length: N }, (_, i) => `skills.${name(i)}.description`)),
    );
  });

  await t.step("a /set during a slow run leaves that run's spec_version alone", async () => {
    const before = okData(await call(plane, "GET", "/health"), "GET /health").spec_version;
    const slow = call(plane, "POST", "/run", { token, body: { input: "slow one" } });
    await waitFor("the slow run to be running", async () => (await running(plane, token)) === 1);
    const set = okData(
      await call(plane, "POST", "/set", { token, body: { path: "limits.max_turns", value: 6 } }),
      "set limits.max_turns",
    );
    const afterHealth = okData(await call(plane, "GET", "/health"), "GET /health");
    assert.notEqual(afterHealth.spec_version, before, "the set changed the spec version");
    assert.equal(afterHealth.spec_version, set.spec_version);
    assert.equal(await running(plane, token), 1, "the slow run was still going during the set");
    const result = okData(await slow, "slow run");
    assert.equal(result.status, "success");
    assert.equal(result.spec_version, before, "the run kept the snapshot it started with");
    const next = okData(
      await call(plane, "POST", "/run", { token, body: { input: "quick after" } }),
      "run after the set",
    );
    assert.equal(next.spec_version, set.spec_version, "later runs see the change");
  });
  assert.deepEqual(internalErrors(plane), []);
});

// ------------------------------------------------------------------------------------------------
// 3. Fuzz
// ------------------------------------------------------------------------------------------------

/** mulberry32: a small seeded pseudo-random generator. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random helpers over one generator. Lone UTF-16 surrogates and values nested over ~1,000 levels are
 * left out of the bodies: both are known bugs with steps of their own (ignored until fixed).
 */
class Dice {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(0, 255);
    return out;
  }
  /** A string from ASCII, control characters, unicode, lone surrogates and path tricks. */
  text(max = 40): string {
    const parts = [
      () => String.fromCharCode(this.int(32, 126)),
      () => String.fromCharCode(this.int(0, 31)),
      () => this.pick(["é", "ß", "漢", "😀", "\u202e", "\u0000", "\ufeff", "\uffff", "\u{10ffff}"]),
      () => this.pick(["..", "/", "\\", "%", "%00", "%2e%2e", "~", "$", "{", "'", '"', "\n"]),
    ];
    let s = "";
    const n = this.int(0, max);
    for (let i = 0; i < n; i++) s += this.pick(parts)();
    return s;
  }
  base64url(n: number): string {
    const abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let s = "";
    for (let i = 0; i < n; i++) s += abc[this.int(0, 63)];
    return s;
  }
  /** Random JSON, at most `depth` levels deep. */
  json(depth = 4): unknown {
    const kind = this.int(0, depth > 0 ? 7 : 4);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, this.int(-1e6, 1e6)]);
      case 3:
      case 4:
        return this.text();
      case 5:
      case 6: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(0, 5); i > 0; i--) own(o, this.key(), this.json(depth - 1));
        return o;
      }
      default:
        return Array.from({ length: this.int(0, 5) }, () => this.json(depth - 1));
    }
  }
  key(): string {
    return this.chance(0.6)
      ? this.pick([
        "input",
        "input_file",
        "path",
        "value",
        "name",
        "description",
        "instructions",
        "kind",
        "approve_code",
        "apply_yaml",
        "reason",
        "objective",
        "runs",
        "__proto__",
        "constructor",
      ])
      : this.text(12);
  }
}

/** Sets an own property (also `__proto__`, so it reaches the wire as a key). */
function own(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Route templates the fuzzer aims at (with random parameters) and the method each accepts. */
const ROUTES: [string, (d: Dice) => string][] = [
  ["GET", () => "/health"],
  ["POST", () => "/run"],
  ["GET", () => "/stats"],
  ["POST", () => "/validate"],
  ["POST", () => "/set"],
  ["POST", () => "/remove"],
  ["GET", () => "/proposals"],
  ["POST", () => "/evolve/propose"],
  [
    "POST",
    (d) => `/add/${d.pick(["skill", "skill", "tool", "validator", "hook", "Skill", "", "x"])}`,
  ],
  ["GET", (d) => `/trace/${d.pick([`run_${d.base64url(26).toUpperCase()}`, seg(d), "..", "%"])}`],
  ["GET", (d) => `/runs/${d.pick([`run_${d.base64url(26).toUpperCase()}`, seg(d)])}/events`],
  ["GET", (d) => `/proposals/${seg(d)}`],
  ["POST", (d) => `/proposals/${seg(d)}/${d.pick(["apply", "reject", "x"])}`],
];

/** A random path segment (encoded for a URL, so fetch sends it unchanged). */
function seg(d: Dice): string {
  switch (d.int(0, 6)) {
    case 0:
      return d.pick(["%E0%A4%A", "%", "%zz", "%00", "%C0%AF", "%2e%2e", "%2F", "%ff%fe", "%u202e"]);
    case 1:
      return encodeURIComponent(d.text(20));
    case 2:
      return "a".repeat(d.int(1000, 8000));
    case 3:
      return d.pick(["..", ".", "...", "~root", "*", ";", ",", "@", "!"]);
    default:
      return d.base64url(d.int(0, 30));
  }
}

/** A random query string. */
function query(d: Dice): string {
  if (d.chance(0.6)) return "";
  const parts = Array.from({ length: d.int(1, 4) }, () =>
    d.pick([
      "stream=true",
      "stream=1",
      `status=${seg(d)}`,
      `last_event_id=${d.pick(["-1", "1e99", "abc", "99999999999999999999"])}`,
      `${seg(d)}=${seg(d)}`,
      "%ZZ=%E0%A4%A",
      "&&=",
      "a".repeat(d.int(100, 3000)),
    ]));
  return `?${parts.join("&")}`;
}

/** A token that fails in some way, or (sometimes) a real one. */
function authorization(d: Dice, real: string): string | undefined {
  const b64 = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const [h, p, s] = real.split(".") as [string, string, string];
  const flip = (tok: string) => {
    const i = d.int(0, tok.length - 1);
    const c = tok[i] === "A" ? "B" : "A";
    return tok.slice(0, i) + c + tok.slice(i + 1);
  };
  const printable = () => {
    let out = "";
    for (let i = d.int(0, 200); i > 0; i--) out += String.fromCharCode(d.int(32, 126));
    return out;
  };
  switch (d.int(0, 17)) {
    case 0:
      return undefined;
    case 1:
      return printable();
    case 2:
      return `Bearer ${d.base64url(d.int(0, 400))}`;
    case 3:
      return `Bearer ${d.base64url(20)}.${d.base64url(40)}.${d.base64url(86)}`;
    case 4:
      return `Bearer ${real.slice(0, d.int(0, real.length - 1))}`;
    case 5:
      return `Bearer ${flip(real)}`;
    case 6:
      return `Bearer ${b64({ alg: "none", typ: "JWT" })}.${p}.`;
    case 7:
      return `Bearer ${
        b64({ alg: d.pick(["HS256", "RS256", "none", "ES256"]), kid: "x" })
      }.${p}.${s}`;
    case 8:
      return `Bearer ${
        b64({ alg: "EdDSA", kid: d.pick(["../../etc/passwd", "", "%00", null, 1, {}]) })
      }.${p}.${s}`;
    case 9:
      return `Bearer ${
        b64({ alg: "EdDSA", jwk: { kty: "OKP", crv: "Ed25519", x: d.base64url(43) } })
      }.${p}.${s}`;
    case 10:
      return `${d.pick(["bearer", "BEARER", "Basic", "Bearer  ", "Token"])} ${real}${
        d.pick(["", " ", "\t", " x"])
      }`;
    case 11:
      return `Bearer ${h}.${p}.${s}.${d.base64url(4)}`;
    default:
      return `Bearer ${real}`;
  }
}

/** One planned fuzz request. */
interface FuzzRequest {
  i: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Sent over a raw TCP connection (for targets fetch would normalise). */
  raw: boolean;
}

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----x",
  "application/octet-stream",
  "*/*",
  ";;;",
];

/** Plans request `i` from the generator. */
function planRequest(d: Dice, i: number, token: string): FuzzRequest {
  const route = d.pick(ROUTES);
  const aimed = d.chance(0.7);
  // Mostly the route's own method, so requests get past 405 into authentication and the body.
  let method = aimed && d.chance(0.7) ? route[0] : d.pick(METHODS);
  const raw = d.chance(0.1);
  let path: string;
  if (raw) {
    path = d.pick([
      "/trace/../stats",
      "/./health",
      "/run/../set",
      "//health",
      "/health/..",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/trace/..%2f..%2fstats",
      `/trace/${d.text(10).replace(/[^\x21-\x7e]/g, "é")}`,
      '/a"b<c>{|}^`\\',
      "http://evil.example/health",
      "*",
    ]);
    if (path === "*") method = "OPTIONS";
  } else if (aimed) {
    path = route[1](d);
  } else {
    path = Array.from({ length: d.int(1, 5) }, () => seg(d)).map((s) => `/${s}`).join("");
  }
  if (path !== "*") path += query(d); // the asterisk form takes no query
  const headers: Record<string, string> = {};
  const auth = authorization(d, token);
  if (auth !== undefined) headers.authorization = auth;
  let body: Uint8Array | undefined;
  if (method !== "GET" && method !== "HEAD" && !d.chance(0.1)) {
    const enc = new TextEncoder();
    switch (d.int(0, 5)) {
      case 0:
        body = d.bytes(d.chance(0.1) ? d.int(16000, 20000) : d.int(0, 3000));
        break;
      case 1:
        body = enc.encode(JSON.stringify(d.json(3)));
        break;
      case 2: {
        const o: Record<string, unknown> = {};
        for (let k = d.int(1, 4); k > 0; k--) own(o, d.key(), d.json(2));
        body = enc.encode(JSON.stringify(o));
        break;
      }
      case 3: {
        // Plausible bodies that reach deeper into the routes.
        const o = d.pick<Record<string, unknown>>([
          {
            input: d.text(),
            input_file: d.pick(["../x", ".env", ".framework/trace", "notes.txt"]),
          },
          {
            input_file: d.pick([".ENV.local", "./.Framework/authorized_keys.json", "/etc/passwd"]),
          },
          { path: d.pick(["limits.max_turns", "instructions", "model", "logging", "", "a..b"]) },
          { path: d.pick(["skills.x", "limits.max_turns", "tools.0"]), value: d.json(2) },
          { name: d.text(8), description: d.json(1), instructions: d.json(1) },
          { kind: d.pick(["skill", "tool", d.text(5)]), name: d.text(8) },
          { approve_code: d.json(1), apply_yaml: d.json(1) },
        ]);
        body = enc.encode(JSON.stringify(o));
        break;
      }
      case 4:
        body = enc.encode(
          d.pick([
            "{",
            "[]",
            "null",
            '"x"',
            "{}",
            '{"input":',
            "\ufeff{}",
            '{"a":1}garbage',
            "1e999",
            "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
          ]),
        );
        break;
      default:
        // Invalid UTF-8 around JSON.
        body = new Uint8Array([0x7b, 0xff, 0xfe, 0xc0, 0xaf, 0x7d]);
    }
    if (d.chance(0.85)) headers["content-type"] = d.pick(CONTENT_TYPES);
  }
  return { i, method, path, headers, body, raw };
}

/** What one fuzz request produced. */
interface FuzzAnswer {
  status: number;
  contentType: string;
  body: Uint8Array;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Sends a well-framed HTTP/1.1 request with a raw request target and reads the answer. */
async function rawHttp(port: number, r: FuzzRequest, timeoutMs: number): Promise<FuzzAnswer> {
  const enc = new TextEncoder();
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `host: 127.0.0.1:${port}`, "connection: close"];
  for (const [k, v] of Object.entries(r.headers)) lines.push(`${k}: ${v}`);
  if (r.body) lines.push(`content-length: ${r.body.length}`);
  const head = enc.encode(lines.join("\r\n") + "\r\n\r\n");
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), timeoutMs);
  const chunks: Uint8Array[] = [];
  try {
    const out = concat(r.body ? [head, r.body] : [head]);
    for (let at = 0; at < out.length;) at += await conn.write(out.subarray(at));
    const buf = new Uint8Array(64 * 1024);
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  const all = concat(chunks);
  const text = new TextDecoder("latin1").decode(all);
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 200))}`);
  const headLines = text.slice(0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headLines[0]!)?.[1]);
  const headers = new Map(
    headLines.slice(1).map((l) => {
      const c = l.indexOf(":");
      return [l.slice(0, c).trim().toLowerCase(), l.slice(c + 1).trim()] as const;
    }),
  );
  let body = all.subarray(end + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    const parts: Uint8Array[] = [];
    let at = 0;
    const latin = new TextDecoder("latin1");
    while (at < body.length) {
      const lineEnd = latin.decode(body.subarray(at)).indexOf("\r\n");
      const size = parseInt(latin.decode(body.subarray(at, at + lineEnd)), 16);
      if (!size) break;
      parts.push(body.subarray(at + lineEnd + 2, at + lineEnd + 2 + size));
      at += lineEnd + 2 + size + 2;
    }
    body = concat(parts);
  } else if (headers.has("content-length")) {
    body = body.subarray(0, Number(headers.get("content-length")));
  }
  return { status, contentType: headers.get("content-type") ?? "", body };
}

/** Sends one planned request. */
async function sendFuzz(plane: RunningControlPlane, r: FuzzRequest): Promise<FuzzAnswer> {
  const timeoutMs = 20_000;
  if (r.raw) return await rawHttp(Number(new URL(plane.url).port), r, timeoutMs);
  const res = await fetch(plane.url + r.path, {
    method: r.method,
    headers: r.headers,
    body: r.body as BodyInit | undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    body: new Uint8Array(await res.arrayBuffer()),
  };
}

/** Checks one answer; returns what is wrong, or undefined. */
function checkFuzz(r: FuzzRequest, a: FuzzAnswer): string | undefined {
  if (a.status >= 500 && a.status !== 503) return `HTTP ${a.status}`;
  if (r.method === "HEAD") return a.body.length ? "a HEAD answer has a body" : undefined;
  const text = new TextDecoder().decode(a.body);
  // `GET /` (also `/x/..`, which URLs normalize to it) is the harness's page, HTML on purpose.
  if (
    r.method === "GET" && a.status === 200 && a.contentType.startsWith("text/html") &&
    URL.parse(r.path, "http://h")?.pathname === "/"
  ) {
    return text.startsWith("<!doctype html>") ? undefined : "a page that is not the harness's page";
  }
  if (a.status === 200 && a.contentType.startsWith("text/event-stream")) {
    // A valid streaming run: the frames are JSON and end with run_result.
    const events = [...text.matchAll(/^event: (.*)$/gm)].map((m) => m[1]);
    if (events[0] !== "run_accepted" || events.at(-1) !== "run_result") {
      return `bad SSE stream: ${text.slice(0, 300)}`;
    }
    for (const m of text.matchAll(/^data: (.*)$/gm)) {
      try {
        JSON.parse(m[1]!);
      } catch {
        return `SSE data is not JSON: ${m[1]!.slice(0, 200)}`;
      }
    }
    return undefined;
  }
  let doc: Json;
  try {
    doc = JSON.parse(text);
  } catch {
    return `HTTP ${a.status}, body is not JSON: ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (!doc || typeof doc !== "object" || typeof doc.ok !== "boolean") {
    return `no ok wrapper: ${text.slice(0, 200)}`;
  }
  if (doc.ok) {
    if (a.status >= 300 || !("data" in doc)) return `ok:true with HTTP ${a.status}`;
    return undefined;
  }
  if (a.status < 400) return `ok:false with HTTP ${a.status}`;
  const e = doc.error;
  if (!e || !ERROR_KINDS.includes(e.kind) || typeof e.message !== "string") {
    return `bad error body: ${text.slice(0, 200)}`;
  }
  if (e.kind === "internal") return `kind internal: ${text.slice(0, 200)}`;
  if (a.status === 503 && e.kind !== "over_capacity") return `503 of kind ${e.kind}`;
  return undefined;
}

/** A short description of a request, for failure messages. */
function describe(r: FuzzRequest): string {
  const body = r.body ? new TextDecoder().decode(r.body.subarray(0, 120)) : "";
  return `#${r.i} ${r.method} ${r.path.slice(0, 150)}${r.path.length > 150 ? "…" : ""}${
    r.raw ? " (raw)" : ""
  } auth=${JSON.stringify((r.headers.authorization ?? "").slice(0, 60))} ct=${
    r.headers["content-type"] ?? "-"
  } body=${JSON.stringify(body)}`;
}

Deno.test("fuzz: malformed requests never get a 500 and always get the ok wrapper", async (t) => {
  await using root = await tempDir();
  await using home = await tempDir("fw-home-");
  const dir = await harness(root.path, 0, {
    skills: [{ name: "x", description: "A skill", instructions: "Use it." }],
  });
  const { token } = await memberToken(dir, home.path, "fuzz", ["run", "read", "mutate"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-body-bytes", "16384"],
  });
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  const replay = `seed ${seed} (replay: FUZZ_SEED=${seed} deno test -A ${
    new URL(import.meta.url).pathname
  })`;

  await t.step("2,000 malformed requests, 20 at a time", async () => {
    const d = new Dice(prng(seed));
    const total = 2000;
    const plan = Array.from({ length: total }, (_, i) => planRequest(d, i, token));
    const failures: string[] = [];
    const counts = new Map<number, number>();
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < plan.length) {
        const r = plan[next++]!;
        try {
          const a = await sendFuzz(plane, r);
          counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
          const wrong = checkFuzz(r, a);
          if (wrong) failures.push(`${wrong}\n    ${describe(r)}`);
        } catch (err) {
          failures.push(`request failed: ${(err as Error).message}\n    ${describe(r)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, worker));
    const elapsed = performance.now() - started;
    assert.deepEqual(
      failures,
      [],
      `${failures.length} bad answers, ${replay}:\n${failures.slice(0, 15).join("\n")}`,
    );
    assert.deepEqual(internalErrors(plane), [], `internal errors on stderr, ${replay}`);
    console.log(
      `fuzz ${replay}: ${total} requests in ${Math.round(elapsed)} ms; statuses ${
        JSON.stringify(Object.fromEntries([...counts].sort((a, b) => a[0] - b[0])))
      }`,
    );

    // Still alive.
    const health = okData(await call(plane, "GET", "/health"), `GET /health after fuzz, ${replay}`);
    assert.equal(health.id, "bot");
    const stats = okData(
      await call(plane, "GET", "/stats", { token }),
      `GET /stats after fuzz, ${replay}`,
    );
    assert.equal(stats.harness_id, "bot");
    const validated = jsonOk(await runCli(["validate", dir, "--json"], { home: home.path }));
    assert.equal(validated.valid, true, `harness.yaml stays valid, ${replay}`);
  });

  await t.step({
    name: "deeply nested JSON values are bad input, not a 500",
    fn: async () => {
      const deepList = (n: number) => "[".repeat(n) + "]".repeat(n);
      const deepMap = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
      for (
        const [path, body] of [
          ["/set", `{"path":"instructions","value":${deepMap(1500)}}`],
          ["/set", `{"path":"instructions","value":${deepList(3000)}}`],
          ["/add/skill", `{"name":"deep","description":${deepList(3000)},"instructions":"x"}`],
        ]
      ) {
        const res = await fetch(plane.url + path!, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
        const text = await res.text();
        assert.equal(res.status, 400, `${path}: ${text.slice(0, 300)}`);
        assert.equal(JSON.parse(text).error.kind, "bad_input");
      }
    },
  });

  await t.step({
    name: "strings with a lone UTF-16 surrogate are bad input, not a 500 or a broken journal",
    fn: async () => {
      const send = async (path: string, body: string) => {
        const res = await fetch(plane.url + path, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
        const text = await res.text();
        return { status: res.status, text, doc: JSON.parse(text) };
      };
      for (
        const [path, body] of [
          ["/set", '{"path":"instructions","value":"a\\ud800b"}'],
          ["/add/skill", '{"name":"lone","description":"\\udfff","instructions":"x"}'],
        ] as const
      ) {
        const a = await send(path, body);
        assert.equal(a.status, 400, `${path}: ${a.text.slice(0, 300)}`);
        assert.equal(a.doc.error.kind, "bad_input");
      }
      const run = await send("/run", '{"input":"quick \\ud800"}');
      if (run.status !== 400) {
        assert.equal(run.status, 200, run.text.slice(0, 300));
        assert.notEqual(run.doc.data.error?.reason, "internal", run.text.slice(0, 300));
        const trace = await call(plane, "GET", `/trace/${run.doc.data.run_id}`, { token });
        assert.equal(okData(trace, "GET /trace").integrity.ok, true, trace.text.slice(0, 300));
      }
    },
  });
});

// ------------------------------------------------------------------------------------------------
// 4. A streaming client that goes away
// ------------------------------------------------------------------------------------------------

Deno.test("streaming: a client that disconnects after run_accepted does not corrupt the run", async () => {
  await using root = await tempDir();
  await using home = await tempDir("fw-home-");
  const dir = await harness(root.path, 600);
  const { token } = await memberToken(dir, home.path, "viewer", ["run", "read"]);
  await using plane = await startControlPlane(dir, { home: home.path });

  const ac = new AbortController();
  const res = await fetch(`${plane.url}/run?stream=true`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ input: "tool then answer" }),
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended before run_accepted: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const first = text.slice(0, text.indexOf("\n\n"));
  assert.match(first, /^event: run_accepted$/m);
  const accepted = JSON.parse(/^data: (.*)$/m.exec(first)![1]!);
  const runId: string = accepted.run_id;
  assert.match(runId, /^run_[0-9A-Z]{26}$/);
  const abortedAt = Date.now();
  ac.abort();
  await reader.cancel().catch(() => {});

  const trace = await waitFor("the run to finish", async () => {
    const a = await call(plane, "GET", `/trace/${runId}`, { token });
    const data = okData(a, "GET /trace");
    return data.status === "running" ? undefined : data;
  });
  assert.equal(trace.status, "success");
  assert.equal(trace.integrity.ok, true, JSON.stringify(trace.integrity));
  assert.ok(trace.events.length >= 3, "the journal has the run's events");
  const lastTs = Date.parse(trace.events.at(-1).ts);
  assert.ok(lastTs > abortedAt, "the run went on after the client left");
  const seqs = trace.events.map((e: Json) => e.seq);
  assert.deepEqual(seqs, seqs.map((_: number, i: number) => i + 1), "events are in order");

  // The server still streams a whole run afterwards.
  const again = await fetch(`${plane.url}/run?stream=true`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ input: "quick after the disconnect" }),
  });
  const frames = await readSse(again);
  assert.equal(frames[0]?.event, "run_accepted");
  assert.equal(frames.at(-1)?.event, "run_result");
  assert.equal(frames.at(-1)?.data.status, "success");
  assert.deepEqual(internalErrors(plane), []);
});

// ------------------------------------------------------------------------------------------------
// 5. SIGTERM with a run in flight
// ------------------------------------------------------------------------------------------------

/** Whether a new TCP connection to the port is refused. */
async function refusesConnections(port: number): Promise<boolean> {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
    return false;
  } catch (err) {
    if (err instanceof Deno.errors.ConnectionRefused) return true;
    throw err;
  }
}

Deno.test("SIGTERM: no new connections, the in-flight run finishes and gets its answer, exit 0", async () => {
  await using root = await tempDir();
  await using home = await tempDir("fw-home-");
  const dir = await harness(root.path, 3000);
  const { token } = await memberToken(dir, home.path, "ops", ["run", "read"]);
  await using plane = await startControlPlane(dir, { home: home.path });
  const port = Number(new URL(plane.url).port);

  let answeredAt = Infinity;
  const inFlight = call(plane, "POST", "/run", { token, body: { input: "slow one" } }).then((a) => {
    answeredAt = performance.now();
    return a;
  });
  await waitFor("the run to be running", async () => (await running(plane, token)) === 1);

  const exited = plane.stop(); // sends SIGTERM now, resolves with the exit code
  await waitFor("the listener to close", () => refusesConnections(port), 10_000, 10);
  const refusedAt = performance.now();
  const client = Deno.createHttpClient({});
  try {
    await assert.rejects(
      () => fetch(`${plane.url}/health`, { client }).then((r) => r.text()),
      "a new request after SIGTERM is not served",
    );
  } finally {
    client.close();
  }
  assert.ok(refusedAt < answeredAt, "connections were refused while the run was still going");

  const answer = await inFlight;
  const result = okData(answer, "the in-flight run");
  assert.equal(result.status, "success");
  assert.equal(result.output, "slow answer");
  assert.equal(await exited, 0, plane.stderr().join("\n"));
  assert.ok(plane.stderr().some((l) => /Shutting down/.test(l)));
  assert.deepEqual(internalErrors(plane), []);
  // The journal is whole, and the spare journal files the server kept are gone with it.
  const traces = `${dir}/.framework/traces`;
  const journal = `${traces}/${result.run_id}.jsonl`;
  assert.equal((await verifyJournalFile(journal)).ok, true);
  assert.deepEqual([...Deno.readDirSync(`${traces}/${SPARE_FOLDER}`)], [], "no spare left behind");
});
