/**
 * The one sensitive-path rule (`.framework/`, `.env*`, the trace folder wherever it lives, escapes,
 * absolute paths, symlinks leading out) through every policy: `resolveSafePath` itself, the builtin
 * `file_read` / `file_write` / `list_files` tools, and `startRun`'s `input_file`.
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { resolveSafePath } from "../../lib/fs/safe_path.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listRuns } from "../../lib/hive/runs.ts";
import { traceDir as traceDirOf } from "../../lib/paths.ts";
import { startRun } from "../../lib/runs/service.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import type { HarnessSpec } from "../../lib/harness_spec/schema.ts";
import { BUILTIN_TOOLS, type BuiltinTool } from "../../lib/tools/builtin_tools.ts";
import { type ToolContext, ToolError } from "../../lib/tools/tool.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

/** Which `logging.trace_dir` a fixture harness uses. */
type Variant = "plain" | "traces" | "moved";

/** A harness folder with sensitive files, decoys and symlinks, plus what a tool call needs. */
interface Fixture {
  root: string;
  dir: string;
  traceDir: string;
  spec: HarnessSpec;
  ctx: ToolContext;
}

const NOTE = "a normal note\n";
const SECRET = "SECRET outside the harness\n";

/**
 * Lays out, under `root`:
 * - `outside/secret.txt` and `outside-traces/run.jsonl` (outside every harness),
 * - a harness `<variant>/` with `.framework/x`, `.FRAMEWORK/x`, `sub/.Framework/y`, `.env`,
 *   `.Env.local`, `config/.env.production`, decoy names, a normal `workspace/note.txt`, and symlinks
 *   `link-out-file`, `link-out-dir`, `link-fw` (to `.framework`), `link-inside` (to the note),
 *   `link-spec` (to `harness.yaml`) and, for trace variants, `link-traces` (to the trace folder).
 */
async function fixture(root: string, variant: Variant): Promise<Fixture> {
  const logging = variant === "traces"
    ? { logging: { trace_dir: "traces" } }
    : variant === "moved"
    ? { logging: { trace_dir: "../outside-traces" } }
    : {};
  await Deno.mkdir(`${root}/outside`, { recursive: true });
  await Deno.writeTextFile(`${root}/outside/secret.txt`, SECRET);
  await Deno.mkdir(`${root}/outside-traces`, { recursive: true });
  await Deno.writeTextFile(`${root}/outside-traces/run.jsonl`, "{}\n");
  const files: Record<string, string> = {
    "workspace/note.txt": NOTE,
    ".framework/x": "framework state\n",
    ".FRAMEWORK/x": "framework state, upper case\n",
    "sub/.Framework/y": "framework state, mixed case\n",
    ".env": "API_KEY=sk-secret\n",
    ".Env.local": "API_KEY=sk-local\n",
    "config/.env.production": "API_KEY=sk-prod\n",
    "environment.txt": "not a dotenv file\n",
    "my.framework.notes": "not the state folder\n",
    "dotenv.md": "about dotenv\n",
    "traces-old/x": "a sibling of the trace folder\n",
  };
  if (variant === "traces") files["traces/run.jsonl"] = "{}\n";
  const dir = await writeHarness(root, variant, {
    model: scripted([{ text: "ok" }]),
    ...logging,
  }, files);
  await Deno.symlink(`${root}/outside/secret.txt`, `${dir}/link-out-file`);
  await Deno.symlink("../outside", `${dir}/link-out-dir`);
  await Deno.symlink(".framework", `${dir}/link-fw`);
  await Deno.symlink("workspace/note.txt", `${dir}/link-inside`);
  await Deno.symlink("harness.yaml", `${dir}/link-spec`);
  if (variant === "traces") await Deno.symlink("traces", `${dir}/link-traces`);
  if (variant === "moved") await Deno.symlink("../outside-traces", `${dir}/link-traces`);
  const loaded = await loadSpec(dir);
  const traceDir = traceDirOf(loaded.dir, loaded.spec.logging?.trace_dir);
  return {
    root,
    dir: loaded.dir,
    traceDir,
    spec: loaded.spec,
    ctx: {
      harnessDir: loaded.dir,
      traceDirs: [traceDir],
      spec: loaded.spec,
      runId: "run_00000000000000000000000000",
      signal: new AbortController().signal,
    },
  };
}

/** All three fixture harnesses side by side under one root. */
async function fixtures(root: string): Promise<Record<Variant, Fixture>> {
  return {
    plain: await fixture(root, "plain"),
    traces: await fixture(root, "traces"),
    moved: await fixture(root, "moved"),
  };
}

/** A path that must be refused, in the harness of `variant`. */
interface RefusedCase {
  name: string;
  variant: Variant;
  path: string | ((f: Fixture) => string);
  /** The reason the refusal must give. */
  why: RegExp;
}

const ESCAPES = /escapes the harness folder/;
const ABSOLUTE = /absolute paths are not allowed/;
const SYMLINK_OUT = /leads outside the harness folder through a symlink/;
const FRAMEWORK = /inside \.framework\//;
const ENV = /names a \.env file/;
const TRACE = /inside a trace folder/;

const REFUSED: RefusedCase[] = [
  { name: "../x escapes the harness", variant: "plain", path: "../x", why: ESCAPES },
  { name: "a/../../x escapes the harness", variant: "plain", path: "a/../../x", why: ESCAPES },
  {
    name: "../outside/secret.txt escapes the harness",
    variant: "plain",
    path: "../outside/secret.txt",
    why: ESCAPES,
  },
  {
    name: "an absolute path outside the harness",
    variant: "plain",
    path: "/etc/passwd",
    why: ABSOLUTE,
  },
  {
    name: "an absolute path inside the harness",
    variant: "plain",
    path: (f) => `${f.dir}/workspace/note.txt`,
    why: ABSOLUTE,
  },
  {
    name: "a symlink to a file outside",
    variant: "plain",
    path: "link-out-file",
    why: SYMLINK_OUT,
  },
  {
    name: "a symlink to a folder outside",
    variant: "plain",
    path: "link-out-dir/secret.txt",
    why: SYMLINK_OUT,
  },
  {
    name: "a symlinked folder outside, by itself",
    variant: "plain",
    path: "link-out-dir",
    why: SYMLINK_OUT,
  },
  { name: "a symlink to .framework, into it", variant: "plain", path: "link-fw/x", why: FRAMEWORK },
  { name: "a symlink to .framework, by itself", variant: "plain", path: "link-fw", why: FRAMEWORK },
  { name: ".framework/x", variant: "plain", path: ".framework/x", why: FRAMEWORK },
  { name: ".framework itself", variant: "plain", path: ".framework", why: FRAMEWORK },
  {
    name: ".FRAMEWORK/x (case-insensitive)",
    variant: "plain",
    path: ".FRAMEWORK/x",
    why: FRAMEWORK,
  },
  {
    name: "sub/.Framework/y (any segment)",
    variant: "plain",
    path: "sub/.Framework/y",
    why: FRAMEWORK,
  },
  { name: ".env", variant: "plain", path: ".env", why: ENV },
  { name: ".Env.local", variant: "plain", path: ".Env.local", why: ENV },
  { name: "config/.env.production", variant: "plain", path: "config/.env.production", why: ENV },
  { name: "an empty path", variant: "plain", path: "", why: /it is empty/ },
  { name: "a blank path", variant: "plain", path: "   ", why: /it is empty/ },
  {
    name: "a path with a NUL byte",
    variant: "plain",
    path: "workspace/note.txt\0.png",
    why: /NUL character/,
  },
  {
    name: "trace_dir traces: traces/run.jsonl",
    variant: "traces",
    path: "traces/run.jsonl",
    why: TRACE,
  },
  {
    name: "trace_dir traces: TRACES/run.jsonl",
    variant: "traces",
    path: "TRACES/run.jsonl",
    why: TRACE,
  },
  { name: "trace_dir traces: Traces (the folder)", variant: "traces", path: "Traces", why: TRACE },
  {
    name: "trace_dir traces: a/../traces/run.jsonl",
    variant: "traces",
    path: "a/../traces/run.jsonl",
    why: TRACE,
  },
  {
    name: "trace_dir traces: a symlink to it",
    variant: "traces",
    path: "link-traces/run.jsonl",
    why: TRACE,
  },
  {
    name: "trace_dir ../outside-traces: ../outside-traces/run.jsonl",
    variant: "moved",
    path: "../outside-traces/run.jsonl",
    why: ESCAPES,
  },
  {
    name: "trace_dir ../outside-traces: ../OUTSIDE-TRACES/run.jsonl",
    variant: "moved",
    path: "../OUTSIDE-TRACES/run.jsonl",
    why: ESCAPES,
  },
  {
    name: "trace_dir ../outside-traces: a symlink to it",
    variant: "moved",
    path: "link-traces/run.jsonl",
    why: SYMLINK_OUT,
  },
];

function pathOf(c: RefusedCase, f: Fixture): string {
  return typeof c.path === "string" ? c.path : c.path(f);
}

/** Paths that must keep working, with the real relative path they resolve to. */
const ALLOWED: { path: string; relative: string }[] = [
  { path: "workspace/note.txt", relative: "workspace/note.txt" },
  { path: "./workspace/note.txt", relative: "workspace/note.txt" },
  { path: "link-inside", relative: "workspace/note.txt" },
  { path: "environment.txt", relative: "environment.txt" },
  { path: "my.framework.notes", relative: "my.framework.notes" },
  { path: "dotenv.md", relative: "dotenv.md" },
];

function tool(name: string): BuiltinTool {
  const make = BUILTIN_TOOLS[name];
  assert.ok(make, `builtin tool ${name} exists`);
  return make({});
}

async function assertRefused(call: Promise<unknown>, why?: RegExp): Promise<void> {
  await assert.rejects(call, (e) => {
    assert.ok(e instanceof ToolError, `expected a ToolError, got ${e}`);
    assert.equal(e.code, "refused");
    assert.match(e.message, /^Refused path /);
    if (why) assert.match(e.message, why);
    return true;
  });
}

async function assertBadInput(call: Promise<unknown>, why?: RegExp): Promise<void> {
  await assert.rejects(call, (e) => {
    assert.ok(e instanceof FrameworkError, `expected a FrameworkError, got ${e}`);
    assert.equal(e.kind, "bad_input");
    if (why) assert.match(e.message, why);
    return true;
  });
}

/** Every entry under `root` (symlinks not followed) with its content or link target. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string, rel: string) {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      const key = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymlink) out[key] = `-> ${await Deno.readLink(path)}`;
      else if (e.isDirectory) {
        out[key] = "(dir)";
        await walk(path, key);
      } else out[key] = await Deno.readTextFile(path);
    }
  }
  await walk(root, "");
  return out;
}

/** Journal files (`run_*.jsonl`) in a trace folder, which may not exist. */
async function journals(traceDir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(traceDir)) {
      if (e.name.startsWith("run_")) names.push(e.name);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names;
}

Deno.test("resolveSafePath() refuses escapes, absolute paths, outside symlinks and sensitive paths", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  for (const c of REFUSED) {
    await t.step(c.name, async () => {
      const f = fx[c.variant];
      const path = pathOf(c, f);
      await assert.rejects(resolveSafePath(f.dir, path, { traceDirs: [f.traceDir] }), (e) => {
        assert.ok(e instanceof FrameworkError);
        assert.equal(e.kind, "bad_input");
        assert.equal(e.message.startsWith(`Refused path ${JSON.stringify(path)}: `), true);
        assert.equal(e.details.path, path);
        assert.match(String(e.details.reason), c.why);
        return true;
      });
    });
  }
  await t.step("harness.yaml is refused only with protectSpec", async () => {
    const f = fx.plain;
    for (const path of ["harness.yaml", "workspace/../harness.yaml", "link-spec"]) {
      assert.deepEqual(await resolveSafePath(f.dir, path, { traceDirs: [f.traceDir] }), {
        absolute: `${f.dir}/harness.yaml`,
        relative: "harness.yaml",
      });
      await assertBadInput(
        resolveSafePath(f.dir, path, { traceDirs: [f.traceDir], protectSpec: true }),
      );
    }
  });
  await t.step("a symlink loop is refused as bad_input", async () => {
    const f = fx.plain;
    await Deno.symlink("loop", `${f.dir}/loop`);
    await assertBadInput(resolveSafePath(f.dir, "loop/x", { traceDirs: [f.traceDir] }));
    await assertBadInput(resolveSafePath(f.dir, "loop", { traceDirs: [f.traceDir] }));
  });
  await t.step("dangling symlinks are followed to where a write would land", async () => {
    const f = fx.plain;
    await Deno.symlink(`${tmp.path}/nowhere/new.txt`, `${f.dir}/dangling-out`);
    await Deno.symlink(".framework/new-file", `${f.dir}/dangling-fw`);
    await Deno.symlink(`${tmp.path}/missing-dir`, `${f.dir}/dangling-dir`);
    for (const path of ["dangling-out", "dangling-fw", "dangling-dir/x.txt"]) {
      await assertBadInput(
        resolveSafePath(f.dir, path, { traceDirs: [f.traceDir], protectSpec: true }),
      );
    }
    await Deno.symlink("workspace/not-yet.txt", `${f.dir}/dangling-in`);
    assert.equal(
      (await resolveSafePath(f.dir, "dangling-in", { traceDirs: [f.traceDir] })).relative,
      "workspace/not-yet.txt",
    );
  });
});

Deno.test("resolveSafePath() accepts ordinary paths and returns where they really point", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  for (const variant of ["plain", "traces", "moved"] as const) {
    const f = fx[variant];
    for (const { path, relative } of ALLOWED) {
      await t.step(`${variant}: ${path}`, async () => {
        assert.deepEqual(await resolveSafePath(f.dir, path, { traceDirs: [f.traceDir] }), {
          absolute: `${f.dir}/${relative}`,
          relative,
        });
      });
    }
  }
  await t.step("a path that does not exist yet (a/b/c.txt)", async () => {
    const f = fx.plain;
    assert.deepEqual(await resolveSafePath(f.dir, "a/b/c.txt", { traceDirs: [f.traceDir] }), {
      absolute: `${f.dir}/a/b/c.txt`,
      relative: "a/b/c.txt",
    });
  });
  await t.step("a sibling whose name starts like the trace folder (traces-old/x)", async () => {
    const f = fx.traces;
    assert.equal(
      (await resolveSafePath(f.dir, "traces-old/x", { traceDirs: [f.traceDir] })).relative,
      "traces-old/x",
    );
  });
  await t.step("the harness folder itself (.)", async () => {
    const f = fx.plain;
    assert.deepEqual(await resolveSafePath(f.dir, ".", { traceDirs: [f.traceDir] }), {
      absolute: f.dir,
      relative: ".",
    });
  });
});

Deno.test("file_read refuses every sensitive path with code refused", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const read = tool("file_read");
  for (const c of REFUSED) {
    await t.step(c.name, async () => {
      const f = fx[c.variant];
      await assertRefused(read.run({ path: pathOf(c, f) }, f.ctx), c.why);
    });
  }
});

Deno.test("file_read reads ordinary files, inside symlinks, decoy names and harness.yaml", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const read = tool("file_read");
  const f = fx.traces;
  for (const { path, relative } of ALLOWED) {
    await t.step(path, async () => {
      assert.equal(
        await read.run({ path }, f.ctx),
        await Deno.readTextFile(`${f.dir}/${relative}`),
      );
    });
  }
  await t.step("harness.yaml may be read (also through a symlink)", async () => {
    const text = await Deno.readTextFile(`${f.dir}/harness.yaml`);
    assert.match(text, /id: traces/);
    assert.equal(await read.run({ path: "harness.yaml" }, f.ctx), text);
    assert.equal(await read.run({ path: "link-spec" }, f.ctx), text);
  });
});

Deno.test("file_write refuses every sensitive path and changes nothing on disk", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const write = tool("file_write");
  const before = await snapshot(tmp.path);
  for (const c of REFUSED) {
    await t.step(c.name, async () => {
      const f = fx[c.variant];
      await assertRefused(
        write.run({ path: pathOf(c, f), content: "overwritten" }, f.ctx),
        c.why,
      );
    });
  }
  await t.step("harness.yaml, directly, through .. and through a symlink", async () => {
    for (const path of ["harness.yaml", "workspace/../harness.yaml", "link-spec"]) {
      await assertRefused(
        write.run({ path, content: "id: hijacked\n" }, fx.plain.ctx),
        /harness\.yaml is changed through the construction API/,
      );
    }
  });
  await t.step("nothing was created or changed", async () => {
    assert.deepEqual(await snapshot(tmp.path), before);
    assert.equal(await Deno.readTextFile(`${tmp.path}/outside/secret.txt`), SECRET);
  });
});

Deno.test("file_write writes ordinary files, creates folders and follows inside symlinks", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const write = tool("file_write");
  const f = fx.traces;
  await t.step("workspace/note.txt", async () => {
    assert.equal(
      await write.run({ path: "workspace/note.txt", content: "new" }, f.ctx),
      "Wrote 3 bytes to workspace/note.txt",
    );
    assert.equal(await Deno.readTextFile(`${f.dir}/workspace/note.txt`), "new");
  });
  await t.step("a/b/c.txt creates the folders", async () => {
    assert.equal(
      await write.run({ path: "a/b/c.txt", content: "deep" }, f.ctx),
      "Wrote 4 bytes to a/b/c.txt",
    );
    assert.equal(await Deno.readTextFile(`${f.dir}/a/b/c.txt`), "deep");
  });
  await t.step("a symlink to a file inside writes the target and keeps the link", async () => {
    assert.equal(
      await write.run({ path: "link-inside", content: "via link" }, f.ctx),
      "Wrote 8 bytes to workspace/note.txt",
    );
    assert.equal(await Deno.readTextFile(`${f.dir}/workspace/note.txt`), "via link");
    assert.equal((await Deno.lstat(`${f.dir}/link-inside`)).isSymlink, true);
  });
  for (const path of ["environment.txt", "my.framework.notes", "dotenv.md", "traces-old/x"]) {
    await t.step(`${path} (only looks like a sensitive name)`, async () => {
      await write.run({ path, content: "changed" }, f.ctx);
      assert.equal(await Deno.readTextFile(`${f.dir}/${path}`), "changed");
    });
  }
});

Deno.test("list_files hides .framework and .env* entries and refuses sensitive folders", async (t) => {
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const list = tool("list_files");
  const f = fx.plain;
  await t.step("the harness folder", async () => {
    const names = (await list.run({}, f.ctx)).split("\n");
    assert.deepEqual(names, [
      "config/",
      "dotenv.md",
      "environment.txt",
      "harness.yaml",
      "link-fw",
      "link-inside",
      "link-out-dir",
      "link-out-file",
      "link-spec",
      "my.framework.notes",
      "sub/",
      "traces-old/",
      "workspace/",
    ]);
    assert.deepEqual(await list.run({ path: "." }, f.ctx), names.join("\n"));
  });
  await t.step("a folder too large to read on the event loop lists the same way", async () => {
    const big = `${f.dir}/workspace/big`;
    await Deno.mkdir(big);
    const names = Array.from(
      { length: 2000 },
      (_, i) => `entry-${String(i).padStart(4, "0")}-${"x".repeat(30)}`,
    );
    await Promise.all(names.map((n) => Deno.writeTextFile(`${big}/${n}`, "")));
    await Deno.writeTextFile(`${big}/.env`, "SECRET=1");
    // The folder's entry table is over the small-folder size: this listing is read on the pool.
    assert.ok((await Deno.stat(big)).size > 32 * 1024, `size ${(await Deno.stat(big)).size}`);
    const out = (await list.run({ path: "workspace/big" }, f.ctx)).split("\n");
    assert.deepEqual(out.slice(0, 500), names.slice(0, 500));
    assert.equal(out[500], "[1500 more]");
    await Deno.remove(big, { recursive: true });
  });
  await t.step("a folder holding only a .env* file lists as empty", async () => {
    assert.equal(await list.run({ path: "config" }, f.ctx), "(empty)");
  });
  await t.step("a folder holding only a .Framework folder lists as empty", async () => {
    assert.equal(await list.run({ path: "sub" }, f.ctx), "(empty)");
  });
  for (const path of [".framework", ".FRAMEWORK", "link-fw", "link-out-dir", "../outside"]) {
    await t.step(`${path} is refused`, async () => {
      await assertRefused(list.run({ path }, f.ctx));
    });
  }
  await t.step("the trace folder is refused (trace_dir traces)", async () => {
    await assertRefused(list.run({ path: "TRACES" }, fx.traces.ctx));
  });
});

Deno.test("startRun() rejects an unsafe input_file with bad_input before recording a run", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  for (const c of REFUSED) {
    await t.step(c.name, async () => {
      const f = fx[c.variant];
      await assertBadInput(startRun(f.dir, { input_file: pathOf(c, f) }), c.why);
      await assertBadInput(startRun(f.dir, { input: "hello", input_file: pathOf(c, f) }), c.why);
      assert.deepEqual(listRuns(openHive(), byId(f.spec.id)), []);
      assert.deepEqual(await journals(f.traceDir), []);
    });
  }
});

Deno.test("startRun() reads a safe input_file and records its real relative path", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const fx = await fixtures(tmp.path);
  const f = fx.traces;
  const cases = [...ALLOWED, { path: "harness.yaml", relative: "harness.yaml" }];
  for (const { path, relative } of cases) {
    await t.step(path, async () => {
      const run = await startRun(f.dir, { input_file: path });
      const result = await run.result;
      assert.equal(result.status, "success");
      const first = JSON.parse((await Deno.readTextFile(run.trace_path)).split("\n")[0]!);
      assert.equal(first.type, "run_started");
      assert.equal(first.payload.input_file, relative);
      assert.equal(first.payload.input, await Deno.readTextFile(`${f.dir}/${relative}`));
      assert.equal(run.trace_path.startsWith(`${f.traceDir}/`), true);
    });
  }
  await t.step("through a symlinked harness folder", async () => {
    await Deno.symlink(fx.plain.dir, `${tmp.path}/alias`);
    const run = await startRun(`${tmp.path}/alias`, { input_file: "workspace/note.txt" });
    const result = await run.result;
    assert.equal(result.status, "success");
    const first = JSON.parse((await Deno.readTextFile(run.trace_path)).split("\n")[0]!);
    assert.equal(first.payload.input, NOTE);
  });
  await t.step("each run was recorded", () => {
    assert.equal(listRuns(openHive(), byId("traces")).length, cases.length);
    assert.equal(listRuns(openHive(), byId("plain")).length, 1);
  });
});
