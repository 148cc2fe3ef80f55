/**
 * End-to-end tests of the control plane's status codes against the real server: every row of the
 * spec's Errors table (200 for the five run results, 400, 401, 403, 404/405, 413, 503, 500) and every
 * numbered rule of its Endpoints section (1: a run keeps its spec snapshot; 2: nothing else waits for
 * run capacity; 3: frozen roots; 4: harness binding; 5: literal input and the sensitive-path check).
 *
 * Each test has its own FRAMEWORK_HOME and starts `framework control-plane` as a subprocess on
 * 127.0.0.1 (tests/helpers/control_plane.ts); requests are plain `fetch` calls, and every response
 * body is checked to be JSON in the ok wrapper (docs/http-contract.md, The ok wrapper).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { readKeyFile } from "../../lib/keys/key_files.ts";
import { toBase64Url } from "../../lib/keys/key_material.ts";
import { runCli } from "../helpers/cli.ts";
import {
  memberToken,
  readSse,
  type RunningControlPlane,
  type SseTestFrame,
  startControlPlane,
} from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A response read by {@link call}: status, headers and the parsed ok wrapper. */
interface Reply {
  status: number;
  headers: Headers;
  body: Json;
}

/** Options of {@link call}. */
interface CallOptions {
  token?: string;
  /** A JSON value sent as the body. */
  json?: unknown;
  /** A raw body sent as is. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

const HEX64 = /^[0-9a-f]{64}$/;
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
/** The run result fields (docs/http-contract.md, The run result; `POST /run`). */
const RUN_RESULT_FIELDS = [
  "run_id",
  "harness_id",
  "status",
  "output",
  "cost_usd",
  "turns",
  "started_at",
  "ended_at",
  "duration_ms",
  "spec_version",
];

/** Environment of every server: a value in the runner's environment must not move the key store. */
const SERVER_ENV = { FRAMEWORK_AUTHORIZED_KEYS: "" };

/** Starts the real server for a harness with a home. */
function serve(dir: string, home: string, args: string[] = []): Promise<RunningControlPlane> {
  return startControlPlane(dir, { home, args, env: SERVER_ENV });
}

/** Checks a body is the ok wrapper, matching the status (200 → ok true, otherwise ok false). */
function assertWrapper(body: Json, status: number, what: string): void {
  assert.ok(body && typeof body === "object" && !Array.isArray(body), `${what}: a JSON object`);
  if (status >= 200 && status < 300) {
    assert.deepEqual(Object.keys(body).sort(), ["data", "ok"], `${what}: {ok, data}`);
    assert.equal(body.ok, true, what);
    return;
  }
  assert.deepEqual(Object.keys(body).sort(), ["error", "ok"], `${what}: {ok, error}`);
  assert.equal(body.ok, false, what);
  const e = body.error;
  assert.deepEqual(Object.keys(e).sort(), ["details", "kind", "message"], `${what}: error fields`);
  assert.ok(ERROR_KINDS.includes(e.kind), `${what}: known kind ${e.kind}`);
  assert.equal(typeof e.message, "string", what);
  assert.ok(e.message.length > 0, `${what}: a message`);
  assert.ok(
    e.details && typeof e.details === "object" && !Array.isArray(e.details),
    `${what}: details is an object`,
  );
}

/** Sends a request and reads its JSON body in the ok wrapper (the body is always consumed). */
async function call(
  server: RunningControlPlane,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  const what = `${method} ${path} → ${res.status} ${text.slice(0, 300)}`;
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${what}: JSON`);
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    assert.fail(`${what}: the body is not JSON`);
  }
  assertWrapper(parsed, res.status, what);
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Asserts a successful reply and returns its data. */
function ok(reply: Reply, what = ""): Json {
  assert.equal(reply.status, 200, `${what} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
}

/** Asserts a failed reply with a status and kind; returns the error. */
function fails(reply: Reply, status: number, kind: string, what = ""): Json {
  assert.equal(reply.status, status, `${what} ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.error.kind, kind, `${what} ${JSON.stringify(reply.body)}`);
  return reply.body.error;
}

/** Checks a run result has the documented shape and the expected status. */
function assertRunResult(r: Json, status: string, harnessId: string, specVersion: string): void {
  for (const f of RUN_RESULT_FIELDS) assert.ok(f in r, `run result has ${f}: ${JSON.stringify(r)}`);
  assert.equal(r.status, status, JSON.stringify(r));
  assert.equal(typeof r.run_id, "string");
  assert.ok(r.run_id.length > 0);
  assert.equal(r.harness_id, harnessId);
  assert.equal(typeof r.output, "string");
  assert.equal(typeof r.cost_usd, "number");
  assert.ok(r.cost_usd >= 0);
  assert.ok(Number.isInteger(r.turns) && r.turns >= 0, `turns ${r.turns}`);
  for (const t of ["started_at", "ended_at"]) {
    assert.equal(typeof r[t], "string");
    assert.ok(!Number.isNaN(Date.parse(r[t])), `${t} is a time`);
  }
  assert.ok(typeof r.duration_ms === "number" && r.duration_ms >= 0);
  assert.equal(r.spec_version, specVersion);
}

/** Reads a file's bytes. */
function bytesOf(path: string): Promise<Uint8Array> {
  return Deno.readFile(path);
}

/** Reads a file's bytes, or null when it does not exist. */
async function maybeBytes(path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Waits until stderr holds a line matching `re` (the request log is written after the response). */
async function waitForLog(server: RunningControlPlane, re: RegExp): Promise<string> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const line = server.stderr().find((l) => re.test(l));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`no stderr line matches ${re}:\n${server.stderr().join("\n")}`);
}

/** Escapes a string for a regular expression. */
function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Reads SSE frames from a response body one at a time. */
async function* sseFrames(res: Response): AsyncGenerator<SseTestFrame> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  try {
    while (true) {
      let cut: number;
      while ((cut = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        if (!block.trim() || block.startsWith(":")) continue;
        const frame: SseTestFrame = { event: "message", data: undefined };
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
          else if (line.startsWith("id: ")) frame.id = line.slice(4);
        }
        yield frame;
      }
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Signs a JWT by hand with a key file (not through lib/keys/tokens.ts): any header and claims; the
 * key id goes into `kid` unless `withKid` is false.
 */
async function forgeToken(
  keyPath: string,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  withKid = true,
): Promise<string> {
  const key = await readKeyFile(keyPath);
  const enc = (v: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(v)));
  const input = `${enc(withKid ? { ...header, kid: key.key_id } : header)}.${enc(claims)}`;
  const sig = await crypto.subtle.sign("Ed25519", key.privateKey, new TextEncoder().encode(input));
  return `${input}.${toBase64Url(new Uint8Array(sig))}`;
}

// ---------------------------------------------------------------------------------------------

Deno.test("POST /run: the five results are 200, input is literal, input_file and bodies are checked (400)", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const loop = { tool_calls: [{ name: "list_files", arguments: { path: "." } }] };
  const dir = await writeHarness(root.path, "runner", {
    name: "Runner",
    model: scripted([{ text: "done" }], {
      max_retries: 0,
      scenarios: [
        { match: "^verify", replies: [{ text: "nope" }] },
        { match: "^loop", replies: [loop, loop, loop] },
        { match: "^fail", replies: [{ error: { status: 500, message: "upstream exploded" } }] },
      ],
    }),
    limits: { max_turns: 2 },
    tools: [{ builtin: "list_files" }],
    guardrails: [{ builtin: "deny_pattern", pattern: "forbidden-word", flags: "i", on: ["input"] }],
    verify: { validators: [{ builtin: "contains", text: "done" }] },
    logging: { trace_dir: "traces" },
  }, {
    "notes.txt": "FILE CONTENT: done",
    ".env": "SECRET=1\n",
    ".ENV.local": "SECRET=2\n",
    "config/.env.production": "SECRET=3\n",
  });
  const { token } = await memberToken(dir, home.path, "runner-admin", ["run", "read"]);
  await using server = await serve(dir, home.path);
  const health = ok(await call(server, "GET", "/health"));
  const version = health.spec_version;
  assert.match(version, HEX64);
  const run = (body: unknown) => call(server, "POST", "/run", { token, json: body });
  const runIds: Record<string, string> = {};

  await t.step("success: 200 with the documented run result", async () => {
    const r = ok(await run({ input: "hello" }));
    assertRunResult(r, "success", "runner", version);
    assert.equal(r.output, "done");
    assert.equal(r.turns, 1);
    runIds.success = r.run_id;
  });

  await t.step("verify_failed (a validator fails): 200", async () => {
    const r = ok(await run({ input: "verify this" }));
    assertRunResult(r, "verify_failed", "runner", version);
    assert.equal(r.output, "nope");
    runIds.verify_failed = r.run_id;
  });

  await t.step("guardrail_halt (deny_pattern on the input): 200", async () => {
    const r = ok(await run({ input: "please say FORBIDDEN-WORD" }));
    assertRunResult(r, "guardrail_halt", "runner", version);
    assert.equal(r.turns, 0);
    runIds.guardrail_halt = r.run_id;
  });

  await t.step("max_turns (the model keeps calling tools): 200", async () => {
    const r = ok(await run({ input: "loop forever" }));
    assertRunResult(r, "max_turns", "runner", version);
    assert.equal(r.turns, 2);
    runIds.max_turns = r.run_id;
  });

  await t.step("error (the provider answers 500, no retries): 200", async () => {
    const r = ok(await run({ input: "fail now" }));
    assertRunResult(r, "error", "runner", version);
    runIds.error = r.run_id;
  });

  await t.step("each run's trace reports its status with an intact hash chain", async () => {
    for (const [status, id] of Object.entries(runIds)) {
      const tr = ok(await call(server, "GET", `/trace/${id}`, { token }));
      assert.equal(tr.run_id, id);
      assert.equal(tr.harness_id, "runner");
      assert.equal(tr.status, status);
      assert.equal(tr.integrity.ok, true, JSON.stringify(tr.integrity));
      assert.ok(Array.isArray(tr.events) && tr.events.length >= 2);
    }
  });

  await t.step("rule 5: `input` naming a real file is sent as literal text", async () => {
    const r = ok(await run({ input: "notes.txt" }));
    assertRunResult(r, "success", "runner", version);
    const tr = ok(await call(server, "GET", `/trace/${r.run_id}`, { token }));
    const started = tr.events.find((e: Json) => e.type === "run_started");
    assert.equal(started.payload.input, "notes.txt");
    assert.equal(started.payload.input_file, undefined);
    const firstCall = tr.events.find((e: Json) => e.type === "model_call");
    const sent = JSON.stringify(firstCall.payload);
    assert.ok(sent.includes("notes.txt"), sent);
    assert.ok(!sent.includes("FILE CONTENT"), `the file was not read: ${sent}`);
  });

  await t.step("input_file inside the folder is read (control)", async () => {
    const r = ok(await run({ input_file: "notes.txt" }));
    assertRunResult(r, "success", "runner", version);
    const tr = ok(await call(server, "GET", `/trace/${r.run_id}`, { token }));
    const started = tr.events.find((e: Json) => e.type === "run_started");
    assert.equal(started.payload.input, "FILE CONTENT: done");
  });

  await t.step("input_file that escapes or names a sensitive path: 400, nothing runs", async () => {
    const traceFile = `traces/${runIds.success}.jsonl`;
    await Deno.stat(join(dir, traceFile)); // the trace folder really moved outside .framework
    const before = ok(await call(server, "GET", "/stats", { token })).runs.total;
    const refused = [
      "../x",
      "../runner-other/notes.txt",
      "workspace/../../x",
      "/etc/passwd",
      join(dir, "notes.txt"),
      ".framework/authorized_keys.json",
      ".FRAMEWORK/authorized_keys.json",
      "./.framework/construction.log",
      ".env",
      ".ENV.local",
      "config/.env.production",
      traceFile,
      traceFile.toUpperCase(),
      "traces",
    ];
    for (const path of refused) {
      const e = fails(await run({ input_file: path }), 400, "bad_input", path);
      assert.match(e.message, /Refused path/, `${path}: ${e.message}`);
      assert.ok(!e.message.includes("SECRET"), e.message);
    }
    const e = fails(await run({ input: "literal", input_file: ".env" }), 400, "bad_input");
    assert.match(e.message, /Refused path/);
    assert.equal(ok(await call(server, "GET", "/stats", { token })).runs.total, before);
  });

  await t.step("malformed bodies: 400 bad_input", async () => {
    const cases: [string, CallOptions][] = [
      ["empty body", { raw: "" }],
      ["blank body", { raw: "  \n" }],
      ["no body at all", {}],
      ["not JSON", { raw: "{input: hello", headers: { "content-type": "application/json" } }],
      ["a JSON array", { json: [{ input: "hi" }] }],
      ["JSON null", { raw: "null" }],
      ["a JSON string", { json: "hello" }],
      ["input is a number", { json: { input: 42 } }],
      ["input is an object", { json: { input: { text: "hi" } } }],
      ["input_file is a number", { json: { input_file: 7 } }],
      ["neither input nor input_file", { json: {} }],
      ["not UTF-8", { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }],
    ];
    for (const [what, options] of cases) {
      fails(await call(server, "POST", "/run", { token, ...options }), 400, "bad_input", what);
    }
  });
});

Deno.test("construction over HTTP: 400 for bad values, 403 for frozen roots, /add/skill works, the file is untouched when refused", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "builder", {
    name: "Builder",
    model: scripted([{ text: "ok" }]),
    instructions: "Be brief.",
    limits: { max_turns: 4 },
    tools: [{ builtin: "file_read" }],
    guardrails: [{ builtin: "deny_pattern", pattern: "password", flags: "i" }],
    verify: { validators: [{ builtin: "non_empty" }] },
    skills: [{ name: "refunds", description: "Refunds", instructions: "Ask for the order id." }],
    hooks: [],
    extensions: { team: "support" },
    mcp_servers: [],
    logging: { redact: { patterns: ["sk-[a-z0-9]+"] } },
    evolution: { auto_propose: false, trace_excerpts: false, objectives: ["be brief"] },
  }, { "hooks/audit.ts": "export function audit() {}\n" });
  const spec = join(dir, "harness.yaml");
  const log = join(dir, ".framework", "construction.log");
  const admin = await memberToken(dir, home.path, "builder-admin", ["*"]);
  const token = admin.token;
  await using server = await serve(dir, home.path);

  /** Asserts a refused change left harness.yaml and the construction log byte-identical. */
  const unchanged = async (
    what: string,
    send: () => Promise<Reply>,
    status: number,
    kind: string,
  ) => {
    const spec0 = await bytesOf(spec);
    const log0 = await maybeBytes(log);
    const e = fails(await send(), status, kind, what);
    assert.deepEqual(await bytesOf(spec), spec0, `${what}: harness.yaml is byte-identical`);
    assert.deepEqual(await maybeBytes(log), log0, `${what}: nothing was logged`);
    return e;
  };
  const set = (path: string, value: unknown) =>
    call(server, "POST", "/set", { token, json: { path, value } });
  const remove = (body: unknown) => call(server, "POST", "/remove", { token, json: body });
  const add = (kind: string, item: unknown) =>
    call(server, "POST", `/add/${kind}`, { token, json: item });

  let version = "";

  await t.step(
    "GET /health needs no token: {id, name, spec_version, evolved, otel_dropped, spec_drift}",
    async () => {
      const h = ok(await call(server, "GET", "/health"));
      assert.deepEqual(Object.keys(h).sort(), [
        "evolved",
        "id",
        "name",
        "otel_dropped",
        "spec_drift",
        "spec_version",
      ]);
      assert.equal(h.otel_dropped, 0);
      assert.equal(h.spec_drift, false);
      assert.equal(h.id, "builder");
      assert.equal(h.name, "Builder");
      assert.match(h.spec_version, HEX64);
      assert.equal(h.evolved, 0);
      version = h.spec_version;
    },
  );

  await t.step("POST /validate: 200 {valid: true, issues: [...]}", async () => {
    const v = ok(await call(server, "POST", "/validate", { token }));
    assert.equal(v.valid, true);
    assert.ok(Array.isArray(v.issues), JSON.stringify(v));
    for (const i of v.issues) assert.notEqual(i.severity, "error", JSON.stringify(i));
  });

  await t.step(
    "/set with typed JSON: 200 {path, old, new, spec_version}; /health follows",
    async () => {
      const r = ok(await set("limits.max_turns", 12));
      assert.equal(r.path, "limits.max_turns");
      assert.equal(r.old, 4);
      assert.equal(r.new, 12);
      assert.match(r.spec_version, HEX64);
      assert.notEqual(r.spec_version, version);
      const onDisk = parseYaml(await Deno.readTextFile(spec));
      assert.equal(onDisk.limits.max_turns, 12, "a number stays a number");
      const h = ok(await call(server, "GET", "/health"));
      assert.equal(h.spec_version, r.spec_version);
      const last = (await Deno.readTextFile(log)).trim().split("\n").pop()!;
      assert.equal(JSON.parse(last).actor, `http:${admin.key_id}`);
      version = r.spec_version;
    },
  );

  await t.step("/set and /remove with bad values: 400 bad_input, file untouched", async () => {
    const cases: [string, () => Promise<Reply>][] = [
      ["a string where a number is needed", () => set("limits.max_turns", "12")],
      ["a value that breaks the schema", () => set("limits.max_turns", -3)],
      ["a list where a map is needed", () => set("limits", [1, 2])],
      ["an unknown root", () => set("colour", "blue")],
      ["an unknown nested field", () => set("limits.max_turnz", 3)],
      ["an empty path", () => set("", 3)],
      ["a malformed path", () => set("limits..max_turns", 3)],
      ["a missing value", () => call(server, "POST", "/set", { token, json: { path: "x" } })],
      ["a missing path", () => call(server, "POST", "/set", { token, json: { value: 1 } })],
      ["a body that is not JSON", () => call(server, "POST", "/set", { token, raw: "path=x" })],
      ["an empty body", () => call(server, "POST", "/set", { token, raw: "" })],
      ["a JSON array body", () => call(server, "POST", "/set", { token, json: ["x", 1] })],
      ["/remove of a required field", () => remove({ path: "skills.refunds.instructions" })],
      ["/remove of a field that is not set", () => remove({ path: "limits.timeout_s" })],
      ["/remove of an unknown root", () => remove({ path: "colour" })],
      ["/remove without path or kind", () => remove({ name: "refunds" })],
    ];
    for (const [what, send] of cases) await unchanged(what, send, 400, "bad_input");
  });

  await t.step("/set on every frozen root: 403 forbidden, file untouched", async () => {
    const frozen: [string, unknown][] = [
      ["id", "other-id"],
      ["name", "Renamed"],
      ["model", { provider: "scripted", replies: [{ text: "x" }] }],
      ["guardrails", []],
      ["logging.redact", { patterns: [] }],
      ["extensions", {}],
      ["hooks", [{ code: "hooks/audit.ts#audit", on: "run_end" }]],
      ["mcp_servers", [{ name: "fs", command: "true" }]],
      ["evolution.auto_propose", true],
      ["evolution.trace_excerpts", true],
      ["evolution.objectives", []],
      ["tools", []],
      ["verify.validators", []],
    ];
    for (const [path, value] of frozen) {
      const e = await unchanged(`/set ${path}`, () => set(path, value), 403, "forbidden");
      assert.equal(e.details.frozen_root, path, JSON.stringify(e));
    }
  });

  await t.step("/set on a child or a parent of a frozen root: 403 forbidden", async () => {
    const cases: [string, unknown, string][] = [
      ["model.name", "other-model", "model"],
      ["model.max_retries", 0, "model"],
      ["tools.0", { builtin: "list_files" }, "tools"],
      ["tools.file_read", { builtin: "file_read", max_bytes: 10 }, "tools"],
      ["guardrails.0.pattern", "secret", "guardrails"],
      ["logging.redact.patterns", [], "logging.redact"],
      ["evolution.objectives.0", "be slow", "evolution.objectives"],
      ["logging", {}, "logging.redact"],
      ["evolution", {}, "evolution.auto_propose"],
      ["verify", {}, "verify.validators"],
    ];
    for (const [path, value, frozenRoot] of cases) {
      const e = await unchanged(`/set ${path}`, () => set(path, value), 403, "forbidden");
      assert.equal(e.details.frozen_root, frozenRoot, `${path}: ${JSON.stringify(e)}`);
    }
  });

  await t.step("/remove on frozen roots, their children and parents: 403 forbidden", async () => {
    const cases: unknown[] = [
      { path: "guardrails" },
      { path: "guardrails.deny_pattern" },
      { path: "model.name" },
      { path: "tools.0" },
      { path: "verify.validators.non_empty" },
      { path: "logging.redact" },
      { path: "extensions.team" },
      { path: "evolution" },
      { path: "evolution.objectives" },
      { path: "name" },
      { kind: "tool", name: "file_read" },
      { kind: "guardrail", name: "deny_pattern" },
      { kind: "validator", name: "non_empty" },
    ];
    for (const body of cases) {
      await unchanged(`/remove ${JSON.stringify(body)}`, () => remove(body), 403, "forbidden");
    }
  });

  await t.step("/add/tool, /add/validator, /add/guardrail, /add/hook: always 403", async () => {
    const items: [string, unknown][] = [
      ["tool", { builtin: "list_files" }],
      ["validator", { builtin: "contains", text: "order" }],
      ["guardrail", { builtin: "max_tool_calls", max: 3 }],
      ["hook", { code: "hooks/audit.ts#audit", on: "run_end" }],
    ];
    for (const [kind, item] of items) {
      await unchanged(`/add/${kind}`, () => add(kind, item), 403, "forbidden");
      // Even an empty or malformed item is refused as forbidden, never looked at.
      await unchanged(`/add/${kind} {}`, () => add(kind, {}), 403, "forbidden");
    }
  });

  await t.step("/add/skill: 200 {kind, name, spec_version}; a duplicate is 400", async () => {
    const r = ok(
      await add("skill", {
        name: "greeting",
        description: "How to greet",
        instructions: "Say hello by name.",
      }),
    );
    assert.equal(r.kind, "skill");
    assert.equal(r.name, "greeting");
    assert.match(r.spec_version, HEX64);
    assert.notEqual(r.spec_version, version);
    const onDisk = parseYaml(await Deno.readTextFile(spec));
    assert.deepEqual(onDisk.skills.map((s: Json) => s.name), ["refunds", "greeting"]);
    assert.equal(ok(await call(server, "GET", "/health")).spec_version, r.spec_version);
    await unchanged(
      "duplicate skill",
      () =>
        add("skill", {
          name: "greeting",
          description: "Again",
          instructions: "Again.",
        }),
      400,
      "bad_input",
    );
    await unchanged(
      "skill without instructions",
      () => add("skill", { name: "half", description: "Half" }),
      400,
      "bad_input",
    );
    const removed = ok(await remove({ path: "skills.greeting" }));
    assert.equal(removed.removed, "skills.greeting");
    assert.match(removed.spec_version, HEX64);
  });

  await t.step("scope: a `read` key and a `read` token cannot mutate (403)", async () => {
    const reader = await memberToken(dir, home.path, "builder-reader", ["read"]);
    const readToken = await memberToken(dir, home.path, "builder-admin2", ["*"], ["read"]);
    for (const tok of [reader.token, readToken.token]) {
      await unchanged(
        "/set",
        () =>
          call(server, "POST", "/set", {
            token: tok,
            json: { path: "limits.max_turns", value: 3 },
          }),
        403,
        "forbidden",
      );
      await unchanged(
        "/add/skill",
        () =>
          call(server, "POST", "/add/skill", {
            token: tok,
            json: { name: "s2", description: "d", instructions: "i" },
          }),
        403,
        "forbidden",
      );
      await unchanged(
        "/remove",
        () => call(server, "POST", "/remove", { token: tok, json: { path: "skills.refunds" } }),
        403,
        "forbidden",
      );
      ok(await call(server, "POST", "/validate", { token: tok }), "read still works");
    }
  });
});

Deno.test("authentication: 401 for missing, malformed, expired, over-long, revoked and unknown tokens; 403 for scope; the request log", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "guarded", {
    name: "Guarded",
    model: scripted([{ text: "hi" }]),
  });
  // One key through the real CLI verbs: generate (member), authorize (operator), sign (member).
  const gen = await runCli(["keys", "generate", "carol", "--json"], { home: home.path });
  assert.equal(gen.code, 0, gen.stderr);
  const carol = gen.json().data;
  const auth = await runCli(
    [
      "keys",
      "authorize",
      "--harness",
      dir,
      "--scope",
      "read,run",
      "--json",
      "--",
      "carol",
      carol.public_key,
    ],
    { home: home.path, env: SERVER_ENV },
  );
  assert.equal(auth.code, 0, auth.stderr);
  assert.equal(auth.json().data.key_id, carol.key_id);
  const signed = await runCli(
    ["keys", "sign", "--key", carol.path, "--scope", "read", "--json"],
    { home: home.path },
  );
  assert.equal(signed.code, 0, signed.stderr);
  const carolToken: string = signed.json().data.token;
  // A 1-second token, minted now and used at the end (once it has expired).
  const short = await runCli(["keys", "sign", "--key", carol.path, "--ttl", "1"], {
    home: home.path,
  });
  assert.equal(short.code, 0, short.stderr);
  const shortToken = short.stdout.trim();
  const shortMintedAt = Date.now();

  const admin = await memberToken(dir, home.path, "admin", ["*"]);
  const reader = await memberToken(dir, home.path, "reader", ["read"]);
  const starReadToken = await memberToken(dir, home.path, "star", ["*"], ["read"]);
  const allTokens = [carolToken, shortToken, admin.token, reader.token, starReadToken.token];
  await using server = await serve(dir, home.path);
  const stats = (headers: Record<string, string>) => call(server, "GET", "/stats", { headers });

  await t.step("the CLI-minted token works (control)", async () => {
    const s = ok(await call(server, "GET", "/stats", { token: carolToken }));
    assert.equal(s.harness_id, "guarded");
  });

  await t.step("a missing Authorization header: 401 on every route but /health", async () => {
    const routes: [string, string, unknown?][] = [
      ["POST", "/run", { input: "hi" }],
      ["GET", "/stats"],
      ["GET", "/trace/r_unknown"],
      ["GET", "/runs/r_unknown/events"],
      ["POST", "/validate"],
      ["POST", "/set", { path: "limits.max_turns", value: 3 }],
      ["POST", "/add/skill", { name: "s", description: "d", instructions: "i" }],
      ["POST", "/add/tool", { builtin: "file_read" }],
      ["POST", "/remove", { path: "limits" }],
    ];
    for (const [method, path, json] of routes) {
      const e = fails(
        await call(server, method, path, json === undefined ? {} : { json }),
        401,
        "unauthorized",
        `${method} ${path}`,
      );
      assert.match(e.message, /bearer/i);
    }
    ok(await call(server, "GET", "/health"), "/health needs no token");
  });

  await t.step("evolution routes need a token too (401)", async () => {
    const routes: [string, string][] = [
      ["POST", "/evolve/propose"],
      ["GET", "/proposals"],
      ["GET", "/proposals/p_unknown"],
      ["POST", "/proposals/p_unknown/apply"],
      ["POST", "/proposals/p_unknown/reject"],
    ];
    for (const [method, path] of routes) {
      const options = method === "GET" ? {} : { json: {} };
      fails(await call(server, method, path, options), 401, "unauthorized", path);
    }
  });

  await t.step("non-Bearer and malformed Authorization headers: 401", async () => {
    const headers = [
      `Basic ${btoa("admin:secret")}`,
      `Token ${admin.token}`,
      `${admin.token}`,
      "Bearer",
      "Bearer ",
      `Bearer ${admin.token} extra`,
      "Bearer abc",
      "Bearer a.b",
      "Bearer a.b.c.d",
      "Bearer ..",
      "Bearer !!!.@@@.###",
      `Bearer ${toBase64Url(new TextEncoder().encode("{}"))}.e30.c2ln`,
      `Bearer ${admin.token.split(".").slice(0, 2).join(".")}.`,
      // A valid header and claims with someone else's signature.
      `Bearer ${admin.token.split(".").slice(0, 2).join(".")}.${reader.token.split(".")[2]}`,
      // alg none.
      `Bearer ${toBase64Url(new TextEncoder().encode('{"alg":"none","typ":"JWT"}'))}.${
        admin.token.split(".")[1]
      }.`,
    ];
    for (const h of headers) fails(await stats({ authorization: h }), 401, "unauthorized", h);
  });

  await t.step("a key that is not authorized here: 401", async () => {
    await using other = await tempDir("fw-other-");
    const stranger = await memberToken(other.path, home.path, "stranger", ["*"]);
    fails(await stats({ authorization: `Bearer ${stranger.token}` }), 401, "unauthorized");
    // The same key without kid, tried against every stored key: still refused.
    const now = Math.floor(Date.now() / 1000);
    const noKid = await forgeToken(
      stranger.keyPath,
      { alg: "EdDSA", typ: "JWT" },
      { scope: "*", iat: now, exp: now + 60 },
      false,
    );
    fails(await stats({ authorization: `Bearer ${noKid}` }), 401, "unauthorized");
    // Control: a kid-less token of an authorized key is accepted.
    const adminNoKid = await forgeToken(
      admin.keyPath,
      { alg: "EdDSA", typ: "JWT" },
      { scope: "*", iat: now, exp: now + 60 },
      false,
    );
    ok(await stats({ authorization: `Bearer ${adminNoKid}` }));
    allTokens.push(stranger.token, noKid, adminNoKid);
  });

  await t.step("a token whose ttl exceeds 7 days: 401 at verify, refused at mint", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: "admin", scope: "*", iat: now, jti: crypto.randomUUID() };
    const atCeiling = await forgeToken(admin.keyPath, { alg: "EdDSA", typ: "JWT" }, {
      ...claims,
      exp: now + 604_800,
    });
    ok(await stats({ authorization: `Bearer ${atCeiling}` }), "exactly 7 days is accepted");
    const overCeiling = await forgeToken(admin.keyPath, { alg: "EdDSA", typ: "JWT" }, {
      ...claims,
      exp: now + 604_801,
    });
    const e = fails(await stats({ authorization: `Bearer ${overCeiling}` }), 401, "unauthorized");
    assert.match(e.message, /7-day|604800/);
    allTokens.push(atCeiling, overCeiling);
    const mint = await runCli(
      ["keys", "sign", "--key", admin.keyPath, "--ttl", "604801", "--json"],
      { home: home.path },
    );
    assert.equal(mint.code, 2, mint.stdout + mint.stderr);
    assert.equal(mint.json().error?.kind, "bad_input");
  });

  await t.step(
    "insufficient scope: 403 (a `read` key, a `*` key with a `read` token)",
    async () => {
      for (const tok of [reader.token, starReadToken.token]) {
        const e = fails(
          await call(server, "POST", "/run", { token: tok, json: { input: "hi" } }),
          403,
          "forbidden",
          "/run",
        );
        assert.equal(e.details.required_scope, "run");
        fails(
          await call(server, "POST", "/set", {
            token: tok,
            json: { path: "limits.max_turns", value: 3 },
          }),
          403,
          "forbidden",
          "/set",
        );
        fails(
          await call(server, "POST", "/add/skill", {
            token: tok,
            json: { name: "s", description: "d", instructions: "i" },
          }),
          403,
          "forbidden",
          "/add/skill",
        );
        fails(
          await call(server, "POST", "/remove", { token: tok, json: { path: "limits" } }),
          403,
          "forbidden",
          "/remove",
        );
        ok(await call(server, "GET", "/stats", { token: tok }), "read is enough for /stats");
      }
      // The CLI-minted token of a `read,run` key carries only `read`: a token never exceeds itself.
      fails(
        await call(server, "POST", "/run", { token: carolToken, json: { input: "hi" } }),
        403,
        "forbidden",
      );
    },
  );

  await t.step("`evolve` routes with a `read` key or a `read` token: 403", async () => {
    const routes: [string, unknown][] = [
      ["/evolve/propose", {}],
      ["/proposals/p_unknown/apply", { approve_code: [], apply_yaml: true }],
      ["/proposals/p_unknown/reject", { reason: "not now" }],
    ];
    for (const tok of [reader.token, starReadToken.token]) {
      for (const [path, json] of routes) {
        const e = fails(
          await call(server, "POST", path, { token: tok, json }),
          403,
          "forbidden",
          path,
        );
        assert.equal(e.details.required_scope, "evolve");
      }
      ok(await call(server, "GET", "/proposals", { token: tok }), "read lists proposals");
    }
  });

  await t.step(
    "a key revoked with `framework keys revoke`: 401 from the very next request",
    async () => {
      ok(await call(server, "GET", "/stats", { token: carolToken }));
      const revoke = await runCli(
        ["keys", "revoke", "--harness", dir, "--json", "--", carol.key_id],
        { home: home.path, env: SERVER_ENV },
      );
      assert.equal(revoke.code, 0, revoke.stderr);
      assert.equal(revoke.json().data.key_id, carol.key_id);
      const e = fails(
        await call(server, "GET", "/stats", { token: carolToken }),
        401,
        "unauthorized",
      );
      assert.match(e.message, /revoked/);
      ok(await call(server, "GET", "/stats", { token: admin.token }), "other keys still work");
    },
  );

  await t.step("an expired token (1-second ttl): 401", async () => {
    const wait = shortMintedAt + 2100 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const e = fails(
      await call(server, "GET", "/stats", { token: shortToken }),
      401,
      "unauthorized",
    );
    assert.match(e.message, /expired|revoked/);
  });

  await t.step(
    "the request log: one line per request with method, path, status, key id; never a token",
    async () => {
      ok(await call(server, "GET", "/stats", { token: admin.token }));
      fails(
        await call(server, "POST", "/add/tool", {
          token: admin.token,
          json: { builtin: "file_read" },
        }),
        403,
        "forbidden",
      );
      await waitForLog(server, new RegExp(` GET /stats 200 \\d+ms key=${esc(admin.key_id)}$`));
      await waitForLog(server, new RegExp(` POST /add/tool 403 \\d+ms key=${esc(admin.key_id)}$`));
      await waitForLog(server, new RegExp(` GET /stats 200 \\d+ms key=${esc(carol.key_id)}$`));
      await waitForLog(server, / GET \/stats 401 \d+ms key=-$/);
      await waitForLog(server, / GET \/health 200 \d+ms key=-$/);
      // One line per request.
      const healthLines = () => server.stderr().filter((l) => / GET \/health 200 /.test(l)).length;
      const n = healthLines();
      for (let i = 0; i < 3; i++) ok(await call(server, "GET", "/health"));
      const deadline = Date.now() + 5000;
      while (healthLines() < n + 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(healthLines(), n + 3);
      const stderr = server.stderr().join("\n");
      for (const tok of allTokens) {
        assert.ok(!stderr.includes(tok), "a token appears in stderr");
        assert.ok(!stderr.includes(tok.split(".")[2]!), "a token signature appears in stderr");
      }
    },
  );

  await t.step({
    name: "a request refused for scope (403) is logged with the key that made it",
    // authenticate() throws `forbidden` after the signature verified: the key id is still logged.
    fn: async () => {
      await waitForLog(server, new RegExp(` POST /run 403 \\d+ms key=${esc(reader.key_id)}$`));
    },
  });
});

Deno.test("harness binding and routing: 404 for unknown runs, another harness's runs and unknown routes; 405 with Allow", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const alpha = await writeHarness(root.path, "alpha", { model: scripted([{ text: "a" }]) });
  const beta = await writeHarness(root.path, "beta", { model: scripted([{ text: "b" }]) });
  const ran = await runCli(["run", beta, "--input", "x", "--approve", "--json"], {
    home: home.path,
  });
  assert.equal(ran.code, 0, ran.stderr);
  const betaRun: string = ran.json().data.run_id;
  const { token } = await memberToken(alpha, home.path, "alpha-admin", ["*"]);
  const reader = await memberToken(alpha, home.path, "alpha-reader", ["read"]);
  await using server = await serve(alpha, home.path);
  const alphaRun = ok(await call(server, "POST", "/run", { token, json: { input: "hi" } })).run_id;

  await t.step("the served harness's own run is found (control)", async () => {
    ok(await call(server, "GET", `/trace/${alphaRun}`, { token }));
    const res = await fetch(`${server.url}/runs/${alphaRun}/events`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    const frames = await readSse(res);
    assert.equal(frames.at(-1)?.event, "run_result");
    assert.equal(frames.at(-1)?.data.run_id, alphaRun);
  });

  await t.step("an unknown run id: 404 not_found on /trace and /runs/{id}/events", async () => {
    for (const id of ["r_does_not_exist", "00000000-0000-0000-0000-000000000000", "%2e%2e"]) {
      fails(await call(server, "GET", `/runs/${id}/events`, { token }), 404, "not_found", id);
      if (id === "%2e%2e") continue; // `/trace/..` is `/`, the harness's page (control_plane page)
      fails(await call(server, "GET", `/trace/${id}`, { token }), 404, "not_found", id);
    }
    const dotted = await fetch(`${server.url}/trace/%2e%2e`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.match(dotted.headers.get("content-type") ?? "", /^text\/html/);
    assert.doesNotMatch(await dotted.text(), /run_id|"events"/, "the page, never a trace");
  });

  await t.step("another harness's run id: a plain 404, never 403, indistinguishable", async () => {
    const unknownId = "r_does_not_exist";
    for (const tok of [token, reader.token]) {
      for (const route of ["/trace/", "/runs/"]) {
        const suffix = route === "/runs/" ? "/events" : "";
        const theirs = fails(
          await call(server, "GET", `${route}${betaRun}${suffix}`, { token: tok }),
          404,
          "not_found",
          `${route}${betaRun}`,
        );
        const none = fails(
          await call(server, "GET", `${route}${unknownId}${suffix}`, { token: tok }),
          404,
          "not_found",
        );
        assert.equal(
          theirs.message.replaceAll(betaRun, "ID"),
          none.message.replaceAll(unknownId, "ID"),
          "no confirmation that it exists elsewhere",
        );
        assert.equal(
          JSON.stringify(theirs.details).replaceAll(betaRun, "ID"),
          JSON.stringify(none.details).replaceAll(unknownId, "ID"),
        );
        assert.ok(!theirs.message.includes("beta"), theirs.message);
      }
    }
  });

  await t.step("an unknown proposal id: 404 not_found (show, apply, reject)", async () => {
    const id = "p_does_not_exist";
    fails(await call(server, "GET", `/proposals/${id}`, { token }), 404, "not_found", "show");
    fails(
      await call(server, "POST", `/proposals/${id}/apply`, {
        token,
        json: { approve_code: [], apply_yaml: true },
      }),
      404,
      "not_found",
      "apply",
    );
    fails(
      await call(server, "POST", `/proposals/${id}/reject`, { token, json: { reason: "no" } }),
      404,
      "not_found",
      "reject",
    );
  });

  await t.step("an unknown route: 404 not_found", async () => {
    for (
      const [method, path] of [
        ["GET", "/nope"],
        ["POST", "/runs"],
        ["GET", "/trace"],
        ["POST", "/add"],
        ["GET", "/health/extra"],
      ]
    ) {
      fails(await call(server, method!, path!, { token }), 404, "not_found", `${method} ${path}`);
    }
  });

  await t.step("a wrong method on a known path: 405 with Allow", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/health", "GET"],
      ["DELETE", "/health", "GET"],
      ["GET", "/run", "POST"],
      ["PUT", "/set", "POST"],
      ["GET", "/validate", "POST"],
      ["POST", "/stats", "GET"],
      ["DELETE", `/trace/${alphaRun}`, "GET"],
      ["GET", "/add/skill", "POST"],
      ["GET", "/remove", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const r = await call(server, method, path, { token });
      assert.equal(r.status, 405, `${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.headers.get("allow"), allow, `${method} ${path}`);
    }
  });
});

Deno.test("capacity and size: 503 with Retry-After, other endpoints never wait (rule 2), a run keeps its spec snapshot (rule 1), 413", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "busy", {
    model: scripted([{ text: "quick" }], {
      scenarios: [{ match: "^slow", replies: [{ text: "slow answer", delay_ms: 1500 }] }],
    }),
    limits: { max_turns: 3 },
  });
  const { token } = await memberToken(dir, home.path, "busy-admin", ["*"]);
  await using server = await serve(dir, home.path, [
    "--max-concurrent-runs",
    "1",
    "--max-queued-runs",
    "0",
    "--max-body-bytes",
    "1000",
  ]);
  const fast = ok(await call(server, "POST", "/run", { token, json: { input: "hi" } }));
  const before = ok(await call(server, "GET", "/health")).spec_version;
  assert.equal(fast.spec_version, before);

  await t.step(
    "while the only slot is busy: 503 + Retry-After for /run, everything else answers, a /set does not touch the running run",
    async () => {
      const res = await fetch(`${server.url}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "slow please" }),
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
      const frames = sseFrames(res);
      const accepted = await frames.next();
      assert.equal(accepted.value?.event, "run_accepted");
      const slowId = accepted.value?.data.run_id;
      let finished = false;
      const rest = (async () => {
        const out: SseTestFrame[] = [];
        for await (const f of frames) out.push(f);
        finished = true;
        return out;
      })();
      try {
        // Capacity reached: the next run is refused at once.
        for (const body of [{ input: "hi" }, { input: "slow again" }]) {
          const busy = await call(server, "POST", "/run", { token, json: body });
          const e = fails(busy, 503, "over_capacity");
          const retry = busy.headers.get("retry-after");
          assert.match(retry ?? "", /^\d+$/, `Retry-After in whole seconds: ${retry}`);
          assert.ok(Number(retry) >= 1);
          assert.equal(e.details.retry_after_s, Number(retry));
        }
        // Rule 2: nothing else waits for run capacity.
        ok(await call(server, "GET", "/health"));
        ok(await call(server, "GET", "/stats", { token }));
        assert.equal(ok(await call(server, "POST", "/validate", { token })).valid, true);
        ok(await call(server, "GET", `/trace/${fast.run_id}`, { token }));
        // Rule 1: a mutation during the run changes later runs only.
        const changed = ok(
          await call(server, "POST", "/set", {
            token,
            json: { path: "limits.max_turns", value: 5 },
          }),
        );
        assert.notEqual(changed.spec_version, before);
        assert.equal(ok(await call(server, "GET", "/health")).spec_version, changed.spec_version);
        assert.equal(finished, false, "all of the above answered while the slow run was running");

        const all = await rest;
        const result = all.at(-1)!;
        assert.equal(result.event, "run_result");
        assert.equal(result.data.run_id, slowId);
        assert.equal(result.data.status, "success");
        assert.equal(result.data.output, "slow answer");
        assert.equal(result.data.spec_version, before, "the run kept the snapshot it started with");
        assert.ok(all.some((f) => f.event === "trace" && f.data.type === "run_started"));

        // The slot is free again; a later run gets the new spec.
        const after = ok(await call(server, "POST", "/run", { token, json: { input: "hi" } }));
        assert.equal(after.status, "success");
        assert.equal(after.spec_version, changed.spec_version);
        const tr = ok(await call(server, "GET", `/trace/${slowId}`, { token }));
        const started = tr.events.find((e: Json) => e.type === "run_started");
        assert.equal(started.payload.spec_version, before);
        assert.equal(started.payload.limits.max_turns, 3);
      } finally {
        await rest.catch(() => {});
      }
    },
  );

  await t.step("a body over --max-body-bytes: 413 in the ok wrapper", async () => {
    const big = "x".repeat(2000);
    const spec0 = await bytesOf(join(dir, "harness.yaml"));
    for (const path of ["/run", "/set", "/add/skill", "/remove"]) {
      const r = await call(server, "POST", path, {
        token,
        json: { input: big, path: "limits.max_turns", value: big, name: big },
      });
      assert.equal(r.status, 413, `${path}: ${JSON.stringify(r.body)}`);
      // The body is read while the token is checked, but the token's verdict comes first.
      const anonymous = await call(server, "POST", path, { json: { input: big } });
      assert.equal(
        anonymous.status,
        401,
        `${path} without a token: ${JSON.stringify(anonymous.body)}`,
      );
    }
    const garbled = await fetch(`${server.url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(garbled.status, 401, await garbled.text());
    // Without Content-Length (a streamed body): still cut at the limit.
    const chunks = [new TextEncoder().encode('{"input": "'), new TextEncoder().encode(big + '"}')];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const res = await fetch(`${server.url}/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: stream,
    });
    const text = await res.text();
    assert.equal(res.status, 413, text);
    assertWrapper(JSON.parse(text), 413, "streamed body");
    // A body under the limit still works.
    ok(await call(server, "POST", "/run", { token, json: { input: "x".repeat(500) } }));
    assert.deepEqual(await bytesOf(join(dir, "harness.yaml")), spec0);
  });
});

Deno.test("a corrupt key store: every authenticated request is 500 internal without paths or stacks, the file is kept, /health answers", async (t) => {
  await using home = await tempDir("fw-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "fragile", { model: scripted([{ text: "ok" }]) });
  const { token } = await memberToken(dir, home.path, "fragile-admin", ["*"]);
  const store = join(dir, ".framework", "authorized_keys.json");
  await using server = await serve(dir, home.path);
  const good = await bytesOf(store);
  ok(await call(server, "GET", "/stats", { token }), "before the corruption");

  await t.step("garbage in the store: 500 kind internal on every authenticated route", async () => {
    const garbage = new TextEncoder().encode('{"version": 1, "keys": [ this is not json');
    await Deno.writeFile(store, garbage);
    const routes: [string, string, unknown?][] = [
      ["GET", "/stats"],
      ["POST", "/run", { input: "hi" }],
      ["GET", "/trace/r_unknown"],
      ["POST", "/validate"],
      ["POST", "/set", { path: "limits.max_turns", value: 3 }],
      ["POST", "/add/skill", { name: "s", description: "d", instructions: "i" }],
      ["POST", "/remove", { path: "limits" }],
    ];
    for (const [method, path, json] of routes) {
      const e = fails(
        await call(server, method, path, json === undefined ? { token } : { token, json }),
        500,
        "internal",
        `${method} ${path}`,
      );
      assert.ok(!e.message.includes(dir), `no path in ${e.message}`);
      assert.ok(!e.message.includes("authorized_keys"), `no file name in ${e.message}`);
      assert.ok(!/\/[\w.-]+\//.test(e.message), `no path in ${e.message}`);
      assert.ok(!/\n\s+at |:\d+:\d+/.test(e.message), `no stack in ${e.message}`);
      assert.ok(!JSON.stringify(e.details).includes(dir), "no path in details");
    }
    assert.deepEqual(await bytesOf(store), garbage, "the store is never replaced");
    const wrongShape = new TextEncoder().encode('{"version": 2, "keys": []}');
    await Deno.writeFile(store, wrongShape);
    fails(await call(server, "GET", "/stats", { token }), 500, "internal", "wrong shape");
    assert.deepEqual(await bytesOf(store), wrongShape);
  });

  await t.step("/health still answers 200 without a token", async () => {
    const h = ok(await call(server, "GET", "/health"));
    assert.equal(h.id, "fragile");
  });

  await t.step("the failure is logged on stderr", async () => {
    await waitForLog(server, /authorized-key store .* is unusable/);
    await waitForLog(server, / GET \/stats 500 \d+ms key=-$/);
  });

  await t.step("once an operator restores the store, requests pass again", async () => {
    await Deno.writeFile(store, good);
    ok(await call(server, "GET", "/stats", { token }));
  });
});
