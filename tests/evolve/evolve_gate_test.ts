/**
 * The evolution gate and the human gate, end to end: which YAML and code changes a proposal may carry
 * (frozen roots, unknown paths, escaping and sensitive files), the second check at apply time, the
 * binding of proposal ids to the served harness, and `evolution.auto_propose`.
 *
 * The evolver is the scripted provider of `evolution.model`: its `scenarios` pick the JSON answer by
 * the proposal's objective (the evolver's input), so one harness can be asked for several answers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { settleBackground } from "../../lib/background.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { applyProposal, rejectProposal } from "../../lib/evolve/decide.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { getProposal, listProposals, type Proposal } from "../../lib/hive/proposals.ts";
import { openHive } from "../../lib/hive/open.ts";
import { startRun } from "../../lib/runs/service.ts";
import type { RunResult } from "../../lib/run_types.ts";
import {
  memberToken,
  type RunningControlPlane,
  startControlPlane,
} from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A change the evolver proposes. */
type YamlAnswer = { path: string; op: "set" | "remove"; value?: unknown };

/** The evolver's JSON answer as a scripted reply text. */
function answer(
  yaml_changes: YamlAnswer[],
  code_changes: { path: string; content: string }[] = [],
): string {
  return JSON.stringify({ rationale: "evidence says so", yaml_changes, code_changes });
}

/** A scripted evolver whose answer is chosen by the objective (`^<key>$`). */
function evolver(answers: Record<string, string>, extra: Record<string, unknown> = {}) {
  return {
    provider: "scripted",
    name: "evolver-script",
    max_retries: 0,
    scenarios: Object.entries(answers).map(([key, text]) => ({
      match: `^${key}$`,
      replies: [{ text }],
    })),
    ...extra,
  };
}

/** Awaits a promise that must fail with a FrameworkError of a kind; returns the error. */
async function rejectsWith(p: Promise<unknown>, kind: string, what = ""): Promise<FrameworkError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FrameworkError, `${what}: a FrameworkError, got ${err}`);
    assert.equal(err.kind, kind, `${what}: ${err.message}`);
    return err;
  }
  assert.fail(`${what}: expected a ${kind} failure`);
}

/** A call's status and parsed ok-wrapped body. */
interface Reply {
  status: number;
  body: Json;
}

/** Sends a JSON request to the control plane and reads the ok wrapper. */
async function call(
  server: RunningControlPlane,
  method: string,
  path: string,
  token: string,
  json?: unknown,
): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${method} ${path} → ${res.status}: not JSON: ${text.slice(0, 300)}`);
  }
  assert.equal(typeof body.ok, "boolean", `${method} ${path}: the ok wrapper`);
  return { status: res.status, body };
}

/** Asserts a 200 and returns `data`. */
function ok(reply: Reply, what: string): Json {
  assert.equal(reply.status, 200, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.ok, true, what);
  return reply.body.data;
}

/** Asserts a failure with a status and kind; returns the error. */
function fails(reply: Reply, status: number, kind: string, what: string): Json {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body.ok, false, what);
  assert.equal(reply.body.error.kind, kind, `${what}: ${reply.body.error.message}`);
  return reply.body.error;
}

/** Starts the real control plane for a harness and mints an `evolve`+`read` token. */
async function serveWithToken(
  dir: string,
  home: string,
  keyName: string,
): Promise<{ server: RunningControlPlane; token: string }> {
  const { token } = await memberToken(dir, home, keyName, ["evolve", "read"]);
  const server = await startControlPlane(dir, {
    home,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  return { server, token };
}

/** The status of each YAML change by path (paths are unique in these answers). */
function yamlStatuses(p: Proposal): Record<string, string> {
  return Object.fromEntries(p.yaml_changes.map((c) => [c.path, c.status]));
}

/** Asserts every listed YAML change is blocked with a reason, and the others pending. */
function assertYamlGate(p: Proposal, blocked: string[], pending: string[], what: string): void {
  assert.equal(p.yaml_changes.length, blocked.length + pending.length, what);
  for (const c of p.yaml_changes) {
    if (blocked.includes(c.path)) {
      assert.equal(c.status, "blocked", `${what}: ${c.path} is blocked`);
      assert.equal(typeof c.reason, "string", `${what}: ${c.path} has a reason`);
      assert.match(
        c.reason!,
        c.path === "limits.max_turnz" ? /max_turnz/ : /frozen/,
        `${what}: ${c.path}: the reason`,
      );
    } else {
      assert.ok(pending.includes(c.path), `${what}: unexpected change ${c.path}`);
      assert.equal(c.status, "pending", `${what}: ${c.path} is pending (${c.reason})`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// 1. The gate on YAML changes
// ---------------------------------------------------------------------------------------------------

/** The ten safety roots with a value each, then children and parents of them. */
const SAFETY_CHANGES: YamlAnswer[] = [
  { path: "id", op: "set", value: "someone-else" },
  { path: "guardrails", op: "set", value: [] },
  { path: "model", op: "set", value: { provider: "scripted", replies: [{ text: "pwned" }] } },
  { path: "logging.redact", op: "set", value: { patterns: [] } },
  { path: "extensions", op: "set", value: { evil: true } },
  { path: "hooks", op: "set", value: [] },
  { path: "mcp_servers", op: "set", value: [] },
  { path: "evolution.auto_propose", op: "set", value: false },
  { path: "evolution.trace_excerpts", op: "set", value: true },
  { path: "evolution.objectives", op: "set", value: ["anything goes"] },
  // children
  { path: "model.name", op: "set", value: "other-model" },
  { path: "guardrails.0.pattern", op: "set", value: "nothing" },
  // parents
  { path: "evolution", op: "set", value: {} },
  { path: "logging", op: "set", value: {} },
  // other spellings and ops
  { path: "Model.Name", op: "set", value: "shouty" },
  { path: "guardrails.0", op: "remove" },
];
const SAFETY_PATHS = SAFETY_CHANGES.map((c) => c.path);

/** Allowed for the CLI; `tools`, `verify.validators` and `name` are frozen over HTTP. */
const ALLOWED_CHANGES: YamlAnswer[] = [
  { path: "limits.max_turns", op: "set", value: 12 },
  { path: "instructions", op: "set", value: "Answer in one sentence." },
  { path: "tools.0.description", op: "set", value: "Reads a file of the harness" },
  { path: "name", op: "set", value: "Renamed by a proposal" },
];
const HTTP_FROZEN_CHANGES: YamlAnswer[] = [
  { path: "verify.validators", op: "set", value: [] },
  { path: "verify", op: "set", value: {} },
];
const UNKNOWN_CHANGE: YamlAnswer = { path: "limits.max_turnz", op: "set", value: 99 };

const MIXED = [...SAFETY_CHANGES, ...ALLOWED_CHANGES, ...HTTP_FROZEN_CHANGES, UNKNOWN_CHANGE];

Deno.test("evolution gate: YAML changes (library, CLI and HTTP callers, apply)", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "gate-yaml", {
    name: "Gate yaml",
    model: scripted([{ text: "hello" }]),
    instructions: "Be helpful.",
    limits: { max_turns: 4 },
    tools: [{ builtin: "file_read" }],
    guardrails: [{ builtin: "deny_pattern", pattern: "password", flags: "i" }],
    verify: { validators: [{ builtin: "non_empty" }] },
    logging: { redact: { patterns: ["sk-[a-z0-9]+"] } },
    evolution: {
      objectives: ["fewer failures"],
      model: evolver({
        mixed: answer(MIXED),
        rename: answer([
          { path: "name", op: "set", value: "Renamed over HTTP" },
          { path: "limits.max_turns", op: "set", value: 7 },
        ]),
        "frozen-only": answer([...SAFETY_CHANGES, UNKNOWN_CHANGE]),
      }),
    },
  });
  const specFile = `${dir}/harness.yaml`;
  const original = parseYaml(await Deno.readTextFile(specFile));
  const { server, token } = await serveWithToken(dir, home.path, "evolver");
  await using _server = server;

  let cliMixed: Proposal;
  await t.step(
    "CLI policy: safety roots, their children and parents, unknown paths are blocked",
    async () => {
      cliMixed = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "mixed",
      });
      assert.equal(cliMixed.status, "queued");
      assert.equal(cliMixed.trigger, "cli");
      assert.equal(cliMixed.harness_id, "gate-yaml");
      assertYamlGate(
        cliMixed,
        [...SAFETY_PATHS, UNKNOWN_CHANGE.path],
        [...ALLOWED_CHANGES, ...HTTP_FROZEN_CHANGES].map((c) => c.path),
        "cli",
      );
      const unknown = cliMixed.yaml_changes.find((c) => c.path === "limits.max_turnz")!;
      assert.match(unknown.reason!, /max_turnz/);
      // Proposing never applies anything.
      assert.deepEqual(parseYaml(await Deno.readTextFile(specFile)), original);
    },
  );

  await t.step(
    "HTTP policy (library): tools, verify.validators and name are blocked too",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "http",
        policy: "remote",
        objective: "mixed",
      });
      assertYamlGate(
        p,
        [
          ...SAFETY_PATHS,
          UNKNOWN_CHANGE.path,
          "tools.0.description",
          "name",
          "verify.validators",
          "verify",
        ],
        ["limits.max_turns", "instructions"],
        "remote",
      );
    },
  );

  let httpMixed: Json;
  await t.step("POST /evolve/propose: the thirteen HTTP-frozen roots are blocked", async () => {
    httpMixed = ok(
      await call(server, "POST", "/evolve/propose", token, { objective: "mixed" }),
      "propose",
    );
    assert.equal(httpMixed.trigger, "http");
    assert.equal(httpMixed.status, "queued");
    assertYamlGate(
      httpMixed,
      [
        ...SAFETY_PATHS,
        UNKNOWN_CHANGE.path,
        "tools.0.description",
        "name",
        "verify.validators",
        "verify",
      ],
      ["limits.max_turns", "instructions"],
      "POST /evolve/propose",
    );
    assert.deepEqual(parseYaml(await Deno.readTextFile(specFile)), original, "never applied");
  });

  await t.step("apply (CLI, apply_yaml) applies only the pending changes", async () => {
    const applied = await applyProposal(dir, cliMixed.id, { apply_yaml: true }, {
      policy: "proposal",
    });
    assert.equal(applied.status, "applied");
    const statuses = yamlStatuses(applied);
    for (const path of [...SAFETY_PATHS, UNKNOWN_CHANGE.path]) {
      assert.equal(statuses[path], "blocked", path);
    }
    for (const c of [...ALLOWED_CHANGES, ...HTTP_FROZEN_CHANGES]) {
      assert.equal(statuses[c.path], "applied", c.path);
    }
    const now = parseYaml(await Deno.readTextFile(specFile));
    assert.equal(now.limits.max_turns, 12);
    assert.equal(now.limits.max_turnz, undefined);
    assert.equal(now.instructions, "Answer in one sentence.");
    assert.equal(now.tools[0].description, "Reads a file of the harness");
    assert.equal(now.name, "Renamed by a proposal");
    for (const root of ["id", "model", "guardrails", "logging", "evolution", "hooks"]) {
      assert.deepEqual(now[root], original[root], `${root} is untouched`);
    }
    assert.equal(now.extensions, undefined);
    assert.equal(now.mcp_servers, undefined);
    const stored = getProposal(openHive(), { id: "gate-yaml", dir }, cliMixed.id);
    assert.deepEqual(yamlStatuses(stored), statuses);
  });

  await t.step("apply over HTTP (apply_yaml) never applies the HTTP-blocked changes", async () => {
    const before = parseYaml(await Deno.readTextFile(specFile));
    const applied = ok(
      await call(server, "POST", `/proposals/${httpMixed.id}/apply`, token, {
        approve_code: [],
        apply_yaml: true,
      }),
      "apply",
    );
    assert.equal(applied.status, "applied");
    assert.equal(yamlStatuses(applied)["limits.max_turns"], "applied");
    assert.equal(yamlStatuses(applied)["name"], "blocked");
    assert.equal(yamlStatuses(applied)["verify.validators"], "blocked");
    const now = parseYaml(await Deno.readTextFile(specFile));
    assert.deepEqual(now.verify, before.verify);
    assert.deepEqual(now.tools, before.tools);
    assert.equal(now.name, before.name);
    assert.deepEqual(now.model, original.model);
  });

  await t.step(
    "the gate runs again at apply: a CLI draft applied over HTTP cannot rename",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "rename",
      });
      assert.deepEqual(yamlStatuses(p), { name: "pending", "limits.max_turns": "pending" });
      const nameBefore = parseYaml(await Deno.readTextFile(specFile)).name;
      const applied = ok(
        await call(server, "POST", `/proposals/${p.id}/apply`, token, { apply_yaml: true }),
        "apply",
      );
      assert.deepEqual(yamlStatuses(applied), { name: "blocked", "limits.max_turns": "applied" });
      const now = parseYaml(await Deno.readTextFile(specFile));
      assert.equal(now.name, nameBefore);
      assert.equal(now.limits.max_turns, 7);
    },
  );

  await t.step(
    "everything blocked: apply answers bad input and the file stays byte-identical",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "frozen-only",
      });
      assert.ok(p.yaml_changes.every((c) => c.status === "blocked"), JSON.stringify(p));
      const bytes = await Deno.readFile(specFile);
      const log = await Deno.readFile(`${dir}/.framework/construction.log`);
      await rejectsWith(
        applyProposal(dir, p.id, { apply_yaml: true }, { policy: "proposal" }),
        "bad_input",
        "library apply",
      );
      fails(
        await call(server, "POST", `/proposals/${p.id}/apply`, token, {
          approve_code: [],
          apply_yaml: true,
        }),
        400,
        "bad_input",
        "HTTP apply",
      );
      assert.deepEqual(await Deno.readFile(specFile), bytes, "harness.yaml is byte-identical");
      assert.deepEqual(
        await Deno.readFile(`${dir}/.framework/construction.log`),
        log,
        "nothing logged",
      );
      const stored = getProposal(openHive(), { id: "gate-yaml", dir }, p.id);
      assert.equal(stored.status, "queued");
      assert.ok(stored.yaml_changes.every((c) => c.status === "blocked"));
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// 2. The gate on code changes
// ---------------------------------------------------------------------------------------------------

const SECRETS = {
  env: "API_KEY=sk-live-ENV-SECRET-4242",
  envLocal: "TOKEN=ENVLOCAL-SECRET-777",
  trace: '{"payload":"TRACE-SECRET-31337"}',
  outside: "OUTSIDE-SECRET-9000",
  framework: "FRAMEWORK-SECRET-555",
};

Deno.test("evolution gate: code changes (escaping, sensitive, harness.yaml; diffs)", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using outside = await tempDir("fw-outside-");
  await Deno.writeTextFile(`${outside.path}/secret.txt`, SECRETS.outside + "\n");
  const absolute = `${outside.path}/abs.ts`;

  /** Each blocked path and why (the reason's wording, loosely). */
  const blocked: [string, RegExp][] = [
    ["../x.ts", /escapes/],
    ["workspace/../../y.ts", /escapes/],
    [absolute, /absolute/],
    ["escape/secret.txt", /symlink/],
    ["escape/new.ts", /symlink/],
    ["leak.txt", /symlink/],
    ["dangling.ts", /symlink/],
    ["workspace/a\u0000b.ts", /NUL/],
    [".env", /\.env/],
    [".Env.local", /\.env/],
    ["tools/../.env", /\.env/],
    ["env-link", /\.env/],
    [".framework/evil.ts", /\.framework/],
    [".FRAMEWORK/x", /\.framework/],
    [".framework/notes.txt", /\.framework/],
    ["traces/x.jsonl", /trace folder/],
    ["TRACES/y.jsonl", /trace folder/],
    ["harness.yaml", /harness\.yaml/],
    ["tools/../harness.yaml", /harness\.yaml/],
    ["spec-link.yaml", /harness\.yaml/],
  ];
  const blockedPaths = blocked.map(([path]) => path);
  const pendingPaths = ["tools/new.ts", "workspace/notes.md"];
  const contentOf = (path: string) => `// proposed content for ${path}\nexport const x = 1;\n`;
  const notesAfter = "line one\nline 2\nline three\n";
  const changes = [
    ...blockedPaths.map((path) => ({ path, content: contentOf(path) })),
    { path: "tools/new.ts", content: contentOf("tools/new.ts") },
    { path: "workspace/notes.md", content: notesAfter },
  ];

  const dir = await writeHarness(tmp.path, "gate-code", {
    model: scripted([{ text: "hello" }]),
    logging: { trace_dir: "traces" },
    evolution: { model: evolver({ code: answer([], changes) }) },
  }, {
    ".env": SECRETS.env + "\n",
    ".Env.local": SECRETS.envLocal + "\n",
    "traces/x.jsonl": SECRETS.trace + "\n",
    ".framework/notes.txt": SECRETS.framework + "\n",
    "workspace/notes.md": "line one\nline two\nline three\n",
  });
  await Deno.symlink(outside.path, `${dir}/escape`);
  await Deno.symlink(`${outside.path}/secret.txt`, `${dir}/leak.txt`);
  await Deno.symlink(".env", `${dir}/env-link`);
  await Deno.symlink("harness.yaml", `${dir}/spec-link.yaml`);
  await Deno.symlink(`${outside.path}/not-yet.ts`, `${dir}/dangling.ts`);

  /** Every file under a folder with its content (symlinks not followed). */
  async function snapshot(root: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const walk = async (rel: string) => {
      for await (const e of Deno.readDir(rel ? `${root}/${rel}` : root)) {
        const p = rel ? `${rel}/${e.name}` : e.name;
        if (e.isSymlink) out[p] = `-> ${await Deno.readLink(`${root}/${p}`)}`;
        else if (e.isDirectory) await walk(p);
        else out[p] = await Deno.readTextFile(`${root}/${p}`);
      }
    };
    await walk("");
    return out;
  }
  const ignoreHive = (s: Record<string, string>) => {
    const copy = { ...s };
    for (const k of Object.keys(copy)) if (k.startsWith(".framework/")) delete copy[k];
    return copy;
  };
  const tmpBefore = await snapshot(tmp.path);
  const outsideBefore = await snapshot(outside.path);

  let p: Proposal;
  const byPath = (path: string) => p.code_changes.find((c) => c.path === path)!;

  await t.step("escaping, sensitive and spec paths are blocked with a reason", async () => {
    p = await proposeImprovement(dir, { trigger: "cli", policy: "proposal", objective: "code" });
    assert.equal(p.code_changes.length, changes.length);
    p.code_changes.forEach((c, i) => assert.equal(c.id, `c${i + 1}`));
    for (const [path, why] of blocked) {
      const c = byPath(path);
      assert.equal(c.status, "blocked", `${path}: ${c.reason}`);
      assert.match(c.reason ?? "", why, `${path}: the reason`);
    }
    for (const path of pendingPaths) {
      assert.equal(byPath(path).status, "pending", `${path}: ${byPath(path).reason}`);
    }
    assert.equal(p.status, "queued");
  });

  await t.step("a blocked change's diff never shows the existing sensitive file", () => {
    for (const path of blockedPaths) {
      const c = byPath(path);
      assert.ok(c.diff.startsWith(`--- /dev/null\n+++ b/${path}\n`), `${path}: ${c.diff}`);
      assert.ok(c.diff.includes(`+// proposed content for ${path}`), path);
    }
    const stored = JSON.stringify(getProposal(openHive(), { id: "gate-code", dir }, p.id));
    for (const secret of Object.values(SECRETS)) {
      assert.ok(!stored.includes(secret), `the stored proposal does not contain ${secret}`);
    }
  });

  await t.step("pending changes carry a unified diff against the current file", () => {
    const created = byPath("tools/new.ts");
    assert.equal(
      created.diff,
      [
        "--- /dev/null",
        "+++ b/tools/new.ts",
        "@@ -0,0 +1,2 @@",
        "+// proposed content for tools/new.ts",
        "+export const x = 1;",
        "",
      ].join("\n"),
    );
    const edited = byPath("workspace/notes.md");
    assert.equal(
      edited.diff,
      [
        "--- a/workspace/notes.md",
        "+++ b/workspace/notes.md",
        "@@ -1,3 +1,3 @@",
        " line one",
        "-line two",
        "+line 2",
        " line three",
        "",
      ].join("\n"),
    );
  });

  await t.step("approving a blocked change is refused (bad_input) and writes nothing", async () => {
    for (const path of blockedPaths) {
      const id = byPath(path).id;
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: [id] }, { policy: "proposal" }),
        "bad_input",
        `approve ${path}`,
      );
      // Together with a pending change: still refused as a whole, nothing is written.
      await rejectsWith(
        applyProposal(dir, p.id, {
          approve_code: [byPath("tools/new.ts").id, id],
          apply_yaml: true,
        }, {
          policy: "proposal",
        }),
        "bad_input",
        `approve tools/new.ts and ${path}`,
      );
    }
    assert.deepEqual(ignoreHive(await snapshot(tmp.path)), ignoreHive(tmpBefore));
    assert.deepEqual(await snapshot(outside.path), outsideBefore);
    assert.equal(getProposal(openHive(), { id: "gate-code", dir }, p.id).status, "queued");
  });

  await t.step("approving the pending changes writes exactly them", async () => {
    const applied = await applyProposal(
      dir,
      p.id,
      { approve_code: [byPath("tools/new.ts").id, byPath("workspace/notes.md").id] },
      { policy: "proposal" },
    );
    assert.equal(applied.status, "applied");
    assert.equal(await Deno.readTextFile(`${dir}/tools/new.ts`), contentOf("tools/new.ts"));
    assert.equal(await Deno.readTextFile(`${dir}/workspace/notes.md`), notesAfter);
    for (const c of applied.code_changes) {
      assert.equal(c.status, pendingPaths.includes(c.path) ? "applied" : "blocked", c.path);
    }
    const expected = {
      ...tmpBefore,
      "gate-code/tools/new.ts": contentOf("tools/new.ts"),
      "gate-code/workspace/notes.md": notesAfter,
    };
    assert.deepEqual(ignoreHive(await snapshot(tmp.path)), ignoreHive(expected));
    assert.deepEqual(await snapshot(outside.path), outsideBefore);
    assert.equal(await Deno.readTextFile(`${dir}/.env`), SECRETS.env + "\n");
  });
});

// ---------------------------------------------------------------------------------------------------
// 3. The gate again at apply time; stale code changes
// ---------------------------------------------------------------------------------------------------

Deno.test("evolution gate: checked again at apply; a stale change is a conflict", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using outside = await tempDir("fw-outside-");
  const dir = await writeHarness(tmp.path, "gate-apply", {
    model: scripted([{ text: "hello" }]),
    evolution: {
      model: evolver({
        notes: answer([], [{ path: "notes/x.md", content: "# drafted\n" }]),
        stale: answer([], [{ path: "workspace/a.md", content: "proposed\n" }]),
        "stale-new": answer([], [{ path: "workspace/b.md", content: "proposed\n" }]),
        "trace-moved": answer([], [{ path: "logs/x.jsonl", content: "{}\n" }]),
        directory: answer([{ path: "limits.max_turns", op: "set", value: 9 }], [
          { path: "workspace", content: "not a file\n" },
        ]),
      }),
    },
  }, { "notes/readme.md": "notes\n", "workspace/a.md": "original\n" });

  await t.step(
    "a folder swapped for a symlink outside after drafting: blocked, nothing written",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "notes",
      });
      assert.equal(p.code_changes[0]!.status, "pending");
      assert.ok(p.code_changes[0]!.diff.startsWith("--- /dev/null\n"));
      await Deno.remove(`${dir}/notes`, { recursive: true });
      await Deno.symlink(outside.path, `${dir}/notes`);
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: ["c1"] }, { policy: "proposal" }),
        "bad_input",
        "apply through the symlink",
      );
      const stored = getProposal(openHive(), { id: "gate-apply", dir }, p.id);
      assert.equal(stored.code_changes[0]!.status, "blocked");
      assert.match(stored.code_changes[0]!.reason!, /symlink|outside/);
      assert.notEqual(stored.status, "applied");
      assert.deepEqual([...Deno.readDirSync(outside.path)], [], "nothing written outside");
      // A second attempt is refused: the change is blocked now.
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: ["c1"] }, { policy: "proposal" }),
        "bad_input",
        "approve the blocked change",
      );
      assert.deepEqual([...Deno.readDirSync(outside.path)], []);
    },
  );

  await t.step(
    "the target file edited after drafting: conflict, the user's edit stays",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "stale",
      });
      assert.equal(p.code_changes[0]!.status, "pending");
      assert.ok(p.code_changes[0]!.diff.startsWith("--- a/workspace/a.md\n"));
      await Deno.writeTextFile(`${dir}/workspace/a.md`, "the user's edit\n");
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: ["c1"] }, { policy: "proposal" }),
        "conflict",
        "stale apply",
      );
      assert.equal(await Deno.readTextFile(`${dir}/workspace/a.md`), "the user's edit\n");
      assert.notEqual(
        getProposal(openHive(), { id: "gate-apply", dir }, p.id).code_changes[0]!.status,
        "applied",
      );
    },
  );

  await t.step(
    "a new file created by the user after drafting: conflict, not overwritten",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "stale-new",
      });
      assert.ok(p.code_changes[0]!.diff.startsWith("--- /dev/null\n"));
      await Deno.writeTextFile(`${dir}/workspace/b.md`, "made by hand\n");
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: ["c1"] }, { policy: "proposal" }),
        "conflict",
        "stale apply (new file)",
      );
      assert.equal(await Deno.readTextFile(`${dir}/workspace/b.md`), "made by hand\n");
    },
  );

  await t.step(
    "the trace folder moved onto the target after drafting: blocked at apply",
    async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "trace-moved",
      });
      assert.equal(p.code_changes[0]!.status, "pending");
      const spec = `${dir}/harness.yaml`;
      await Deno.writeTextFile(
        spec,
        (await Deno.readTextFile(spec)) + "logging:\n  trace_dir: logs\n",
      );
      await rejectsWith(
        applyProposal(dir, p.id, { approve_code: ["c1"] }, { policy: "proposal" }),
        "bad_input",
        "apply into the trace folder",
      );
      const stored = getProposal(openHive(), { id: "gate-apply", dir }, p.id).code_changes[0]!;
      assert.equal(stored.status, "blocked");
      assert.match(stored.reason!, /trace folder/);
      await assert.rejects(Deno.stat(`${dir}/logs/x.jsonl`), Deno.errors.NotFound);
    },
  );

  await t.step({
    name: "a code change onto an existing folder leaves harness.yaml and the record in agreement",
    // A code change onto a folder (or through a file) is blocked by the gate, so nothing is half-applied.
    fn: async () => {
      const p = await proposeImprovement(dir, {
        trigger: "cli",
        policy: "proposal",
        objective: "directory",
      });
      assert.equal(p.code_changes[0]!.status, "blocked");
      assert.match(p.code_changes[0]!.reason!, /is a folder/);
      let error: unknown;
      try {
        await applyProposal(dir, p.id, { apply_yaml: true, approve_code: ["c1"] }, {
          policy: "proposal",
        });
      } catch (err) {
        error = err;
      }
      if (error !== undefined) {
        assert.ok(error instanceof FrameworkError, `a FrameworkError, got ${error}`);
      }
      const stored = getProposal(openHive(), { id: "gate-apply", dir }, p.id);
      const maxTurns = parseYaml(await Deno.readTextFile(`${dir}/harness.yaml`)).limits?.max_turns;
      assert.equal(
        stored.yaml_changes[0]!.status === "applied",
        maxTurns === 9,
        `the record (${stored.yaml_changes[0]!.status}) agrees with harness.yaml (${maxTurns})`,
      );
      assert.notEqual(stored.code_changes[0]!.status, "applied");
      assert.ok((await Deno.stat(`${dir}/workspace`)).isDirectory);
    },
  });
});

// ---------------------------------------------------------------------------------------------------
// 4. Harness binding, listing, status filter, conflicts
// ---------------------------------------------------------------------------------------------------

Deno.test("proposals are bound to their harness (control plane and library)", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const evolverModel = evolver({
    ".*": answer([{ path: "limits.max_turns", op: "set", value: 5 }]),
  });
  const a = await writeHarness(tmp.path, "bind-a", {
    model: scripted([{ text: "hello" }]),
    evolution: { model: evolverModel },
  });
  const b = await writeHarness(tmp.path, "bind-b", {
    model: scripted([{ text: "hello" }]),
    evolution: { model: evolverModel },
  });
  const mine: Proposal[] = [];
  for (let i = 0; i < 3; i++) {
    mine.push(await proposeImprovement(a, { trigger: "cli", policy: "proposal" }));
  }
  const theirs = await proposeImprovement(b, { trigger: "cli", policy: "proposal" });
  const unknown = "prop_01JZZZZZZZZZZZZZZZZZZZZZZZ";
  const { server, token } = await serveWithToken(a, home.path, "binder");
  await using _server = server;

  await t.step("another harness's id and an unknown id: 404 not_found on every route", async () => {
    const messages: string[] = [];
    for (const id of [theirs.id, unknown]) {
      const shown = fails(
        await call(server, "GET", `/proposals/${id}`, token),
        404,
        "not_found",
        "show",
      );
      fails(
        await call(server, "POST", `/proposals/${id}/apply`, token, {
          approve_code: [],
          apply_yaml: true,
        }),
        404,
        "not_found",
        "apply",
      );
      fails(
        await call(server, "POST", `/proposals/${id}/reject`, token, { reason: "no" }),
        404,
        "not_found",
        "reject",
      );
      messages.push(shown.message.replaceAll(id, "ID"));
      assert.ok(!shown.message.includes("bind-b"), "no confirmation of the other harness");
    }
    assert.equal(
      messages[0],
      messages[1],
      "another harness's id looks exactly like an unknown one",
    );
    const still = getProposal(openHive(), { id: "bind-b", dir: b }, theirs.id);
    assert.equal(still.status, "queued");
    assert.ok(still.yaml_changes.every((c) => c.status === "pending"));
  });

  await t.step("library: getProposal, applyProposal, rejectProposal answer not_found", async () => {
    for (const id of [theirs.id, unknown]) {
      assert.throws(
        () => getProposal(openHive(), { id: "bind-a", dir: a }, id),
        (err: unknown) => err instanceof FrameworkError && err.kind === "not_found",
      );
      await rejectsWith(
        applyProposal(a, id, { apply_yaml: true }, { policy: "proposal" }),
        "not_found",
        "apply",
      );
      await rejectsWith(rejectProposal(a, id, "no", { policy: "proposal" }), "not_found", "reject");
    }
    assert.equal(getProposal(openHive(), { id: "bind-b", dir: b }, theirs.id).status, "queued");
    assert.equal(parseYaml(await Deno.readTextFile(`${b}/harness.yaml`)).limits, undefined);
  });

  const ids = (r: Reply) => ok(r, "list").proposals.map((p: Proposal) => p.id).sort();

  await t.step("GET /proposals lists only this harness's proposals", async () => {
    const data = ok(await call(server, "GET", "/proposals", token), "list");
    assert.deepEqual(
      data.proposals.map((p: Proposal) => p.id).sort(),
      mine.map((p) => p.id).sort(),
    );
    assert.ok(data.proposals.every((p: Proposal) => p.harness_id === "bind-a"));
  });

  await t.step("apply and reject over HTTP, then ?status= filters", async () => {
    const applied = ok(
      await call(server, "POST", `/proposals/${mine[0]!.id}/apply`, token, {
        approve_code: [],
        apply_yaml: true,
      }),
      "apply",
    );
    assert.equal(applied.status, "applied");
    assert.equal(parseYaml(await Deno.readTextFile(`${a}/harness.yaml`)).limits.max_turns, 5);
    const rejected = ok(
      await call(server, "POST", `/proposals/${mine[1]!.id}/reject`, token, { reason: "not now" }),
      "reject",
    );
    assert.equal(rejected.status, "rejected");
    assert.equal(rejected.reason, "not now");
    assert.deepEqual(ids(await call(server, "GET", "/proposals?status=queued", token)), [
      mine[2]!.id,
    ]);
    assert.deepEqual(ids(await call(server, "GET", "/proposals?status=applied", token)), [
      mine[0]!.id,
    ]);
    assert.deepEqual(ids(await call(server, "GET", "/proposals?status=rejected", token)), [
      mine[1]!.id,
    ]);
    assert.deepEqual(
      ids(await call(server, "GET", "/proposals?status=partially_applied", token)),
      [],
    );
    fails(await call(server, "GET", "/proposals?status=bogus", token), 400, "bad_input", "bogus");
  });

  await t.step("a proposal that is not open: 409 conflict", async () => {
    for (const p of [mine[0]!, mine[1]!]) {
      const e = fails(
        await call(server, "POST", `/proposals/${p.id}/apply`, token, {
          approve_code: [],
          apply_yaml: true,
        }),
        409,
        "conflict",
        "apply again",
      );
      assert.ok(e.message.length > 0);
      fails(
        await call(server, "POST", `/proposals/${p.id}/reject`, token, { reason: "again" }),
        409,
        "conflict",
        "reject again",
      );
      await rejectsWith(
        applyProposal(a, p.id, { apply_yaml: true }, { policy: "proposal" }),
        "conflict",
        "library apply again",
      );
    }
    // The open one can still be shown and is untouched.
    const shown = ok(await call(server, "GET", `/proposals/${mine[2]!.id}`, token), "show");
    assert.equal(shown.status, "queued");
  });
});

// ---------------------------------------------------------------------------------------------------
// 5. evolution.auto_propose
// ---------------------------------------------------------------------------------------------------

/** Runs a harness once and returns its result. */
async function runOnce(dir: string, input = "hello"): Promise<RunResult> {
  const run = await startRun(dir, { input });
  return await run.result;
}

/** A harness whose runs fail verification (and, for inputs starting with `boom`, a provider error). */
function failingSpec(evolution: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    model: scripted([{ text: "hello there" }], {
      max_retries: 0,
      scenarios: [{ match: "^boom", replies: [{ error: { status: 500, message: "x" } }] }],
    }),
    verify: { validators: [{ builtin: "regex", pattern: "never" }] },
    ...(evolution ? { evolution } : {}),
  };
}

const AUTO_ANSWER = answer([{ path: "instructions", op: "set", value: "Say never." }]);

Deno.test("evolution.auto_propose: after N failures of one signature, in the background", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(
    tmp.path,
    "auto-on",
    failingSpec({
      auto_propose: true,
      auto_propose_after: 3,
      model: scripted([{ text: AUTO_ANSWER, delay_ms: 1500 }]),
    }),
  );
  const proposals = () => listProposals(openHive(), { id: "auto-on", dir });

  const firstRuns: RunResult[] = [];
  await t.step("two failures of one signature draft nothing", async () => {
    for (let i = 0; i < 2; i++) {
      const r = await runOnce(dir);
      assert.equal(r.status, "verify_failed");
      assert.ok(r.failure_signature);
      firstRuns.push(r);
      await settleBackground();
    }
    assert.equal(firstRuns[0]!.failure_signature, firstRuns[1]!.failure_signature);
    assert.equal(proposals().length, 0);
  });

  await t.step("the third drafts one proposal (trigger auto) after the result", async () => {
    const r = await runOnce(dir);
    const resultAt = Date.now();
    assert.equal(r.status, "verify_failed");
    assert.equal(r.failure_signature, firstRuns[0]!.failure_signature);
    firstRuns.push(r);
    assert.equal(proposals().length, 0, "the result arrives before the proposal exists");
    await settleBackground();
    assert.ok(Date.now() - resultAt >= 1000, "the evolver's delay came after the result");
    const list = proposals();
    assert.equal(list.length, 1);
    const p = list[0]!;
    assert.equal(p.trigger, "auto");
    assert.equal(p.status, "queued");
    assert.deepEqual([...p.evidence.run_ids].sort(), firstRuns.map((x) => x.run_id).sort());
    assert.deepEqual(p.evidence.failure_signatures.map((s) => s.signature), [
      r.failure_signature,
    ]);
    assert.equal(p.evidence.failure_signatures[0]!.count, 3);
    assert.equal(p.yaml_changes[0]!.status, "pending");
  });

  await t.step(
    "a fourth failure drafts nothing (the count restarts after a proposal)",
    async () => {
      const r = await runOnce(dir);
      assert.equal(r.status, "verify_failed");
      await settleBackground();
      assert.equal(proposals().length, 1);
    },
  );

  await t.step(
    "two more (three since the proposal) draft a second one from those runs",
    async () => {
      const later: RunResult[] = [];
      // The fourth run counts too: it ended after the first proposal.
      const fourth = openHive().prepare(
        "SELECT run_id FROM runs WHERE harness_id = ? ORDER BY run_id DESC LIMIT 1",
      ).get("auto-on") as { run_id: string };
      for (let i = 0; i < 2; i++) {
        later.push(await runOnce(dir));
        await settleBackground();
      }
      const list = proposals();
      assert.equal(list.length, 2);
      const newest = list.find((p) =>
        !firstRuns.some((r) => p.evidence.run_ids.includes(r.run_id))
      )!;
      assert.ok(newest, "the second proposal uses only the runs after the first");
      assert.deepEqual(
        [...newest.evidence.run_ids].sort(),
        [fourth.run_id, ...later.map((r) => r.run_id)].sort(),
      );
    },
  );
});

Deno.test("evolution.auto_propose: signatures are not mixed; successes never count", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();

  await t.step(
    "two failures each of two signatures draft nothing; a third of one does",
    async () => {
      const dir = await writeHarness(
        tmp.path,
        "auto-mixed",
        failingSpec({
          auto_propose: true,
          auto_propose_after: 3,
          model: scripted([{ text: AUTO_ANSWER }]),
        }),
      );
      const verify: RunResult[] = [];
      const errors: RunResult[] = [];
      for (let i = 0; i < 2; i++) {
        verify.push(await runOnce(dir));
        errors.push(await runOnce(dir, "boom"));
        await settleBackground();
      }
      assert.ok(verify.every((r) => r.status === "verify_failed"));
      assert.ok(errors.every((r) => r.status === "error"), JSON.stringify(errors[0]));
      assert.notEqual(verify[0]!.failure_signature, errors[0]!.failure_signature);
      assert.equal(listProposals(openHive(), { id: "auto-mixed", dir }).length, 0);
      verify.push(await runOnce(dir));
      await settleBackground();
      const list = listProposals(openHive(), { id: "auto-mixed", dir });
      assert.equal(list.length, 1);
      assert.deepEqual([...list[0]!.evidence.run_ids].sort(), verify.map((r) => r.run_id).sort());
    },
  );

  await t.step("four failures finishing together draft one proposal", async () => {
    const dir = await writeHarness(
      tmp.path,
      "auto-together",
      failingSpec({
        auto_propose: true,
        auto_propose_after: 3,
        model: scripted([{ text: AUTO_ANSWER, delay_ms: 200 }]),
      }),
    );
    const runs = await Promise.all([0, 1, 2, 3].map(() => startRun(dir, { input: "hello" })));
    const results = await Promise.all(runs.map((r) => r.result));
    assert.ok(results.every((r) => r.status === "verify_failed"));
    await settleBackground();
    assert.equal(listProposals(openHive(), { id: "auto-together", dir }).length, 1);
  });

  await t.step("successful runs never trigger it (auto_propose_after: 1)", async () => {
    const dir = await writeHarness(tmp.path, "auto-success", {
      model: scripted([{ text: "hello" }]),
      evolution: {
        auto_propose: true,
        auto_propose_after: 1,
        model: scripted([{ text: AUTO_ANSWER }]),
      },
    });
    for (let i = 0; i < 3; i++) {
      const r = await runOnce(dir);
      assert.equal(r.status, "success");
      assert.equal(r.failure_signature, null);
    }
    await settleBackground();
    assert.equal(listProposals(openHive(), { id: "auto-success", dir }).length, 0);
  });

  for (
    const [name, evolution] of [
      ["auto-off", { auto_propose: false, auto_propose_after: 3 }],
      ["auto-absent", undefined],
    ] as const
  ) {
    await t.step(`${name}: ten failures draft nothing`, async () => {
      const dir = await writeHarness(
        tmp.path,
        name,
        failingSpec(
          evolution ? { ...evolution, model: scripted([{ text: AUTO_ANSWER }]) } : undefined,
        ),
      );
      for (let i = 0; i < 10; i++) {
        assert.equal((await runOnce(dir)).status, "verify_failed");
      }
      await settleBackground();
      assert.equal(listProposals(openHive(), { id: name, dir }).length, 0);
    });
  }
});
