/**
 * Harness code cannot read the sensitive paths in either sandbox: the child process (deny list) and
 * the Worker of a compiled binary (`FRAMEWORK_SANDBOX=worker`: an explicit allow-list). Tried with
 * `.env`, `.ENV.local`, a nested `sub/.env`, `.framework/`, a trace folder inside the harness, a
 * symlink to `.env` and a hard link to it, beside ordinary files that must stay readable.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createSandbox, type SandboxMode } from "../../lib/tools/sandbox.ts";
import { harnessReads } from "../../lib/tools/sandbox_reads.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const SECRET = "sk-sandbox-secret";

const PROBE = `
export function probe(args: { paths: string[] }) {
  const out: Record<string, string> = {};
  for (const p of args.paths) {
    try {
      out[p] = Deno.readTextFileSync(p);
    } catch (err) {
      out[p] = "DENIED:" + (err as Error).name;
    }
  }
  return out;
}
`;

const SENSITIVE = [
  ".env",
  ".ENV.local",
  "sub/.env",
  ".framework/secret.txt",
  "logs/traces/run_x.jsonl",
  "link-to-env",
  "hard-to-env.txt",
  "sub/deeper/link-up",
];
const ORDINARY = ["notes.txt", "sub/data.txt", "workspace/made-before.txt", "tools/probe.ts"];

/** A harness folder laid out with secrets and ordinary files. */
async function layout(root: string): Promise<string> {
  const dir = await writeHarness(root, "probe", {
    model: scripted([{ text: "ok" }]),
    logging: { trace_dir: "logs/traces" },
    tools: [{ code: "tools/probe.ts#probe" }],
  }, {
    ".env": SECRET,
    ".ENV.local": SECRET,
    "sub/.env": SECRET,
    ".framework/secret.txt": SECRET,
    "logs/traces/run_x.jsonl": SECRET,
    "notes.txt": "notes",
    "sub/data.txt": "data",
    "sub/deeper/keep.txt": "keep",
    "workspace/made-before.txt": "made",
    "tools/probe.ts": PROBE,
  });
  await Deno.symlink(".env", join(dir, "link-to-env"));
  await Deno.symlink("../../.env", join(dir, "sub/deeper/link-up"));
  await Deno.link(join(dir, ".env"), join(dir, "hard-to-env.txt"));
  return dir;
}

for (const mode of ["process", "worker"] as SandboxMode[]) {
  Deno.test(`sandbox (${mode}): code cannot read sensitive paths, and reads the rest`, async () => {
    await using root = await tempDir();
    const dir = await layout(root.path);
    const box = createSandbox(dir, {}, [join(dir, "logs/traces")], mode);
    try {
      const paths = [...SENSITIVE, ...ORDINARY].map((p) => join(dir, p));
      const { value } = await box.call("tools/probe.ts#probe", { paths }, {}, 20_000);
      const read = value as Record<string, string>;
      for (const p of SENSITIVE) {
        assert.match(read[join(dir, p)]!, /^DENIED:/, `${mode}: ${p} must not be readable`);
      }
      for (const p of ORDINARY) {
        assert.doesNotMatch(read[join(dir, p)]!, /^DENIED:/, `${mode}: ${p} stays readable`);
      }
      assert.ok(!JSON.stringify(read).includes(SECRET));
    } finally {
      await box.close();
    }
  });
}

Deno.test("harnessReads() lists sensitive paths and covers the rest with the fewest paths", async () => {
  await using root = await tempDir();
  const dir = await layout(root.path);
  const { deny, allow } = harnessReads(dir, [join(dir, "logs/traces")]);
  const rel = (list: string[]) => list.map((p) => p.slice(dir.length + 1)).sort();
  assert.deepEqual(
    rel(deny),
    [
      ".ENV.local",
      ".env",
      ".framework",
      "hard-to-env.txt",
      "link-to-env",
      "logs/traces",
      "sub/.env",
      "sub/deeper/link-up",
    ],
  );
  // Clean folders are allowed whole; folders holding a sensitive entry are expanded.
  assert.ok(rel(allow).includes("tools"));
  assert.ok(rel(allow).includes("workspace"));
  assert.ok(rel(allow).includes("sub/data.txt"));
  assert.ok(rel(allow).includes("sub/deeper/keep.txt"));
  assert.ok(!rel(allow).includes("sub"));
  for (const d of deny) assert.ok(!allow.some((a) => d === a || d.startsWith(a + "/")), d);
});

Deno.test("a run in the Worker sandbox (FRAMEWORK_SANDBOX=worker) cannot read .env", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "worker-run", {
    model: scripted([
      { tool_calls: [{ name: "probe", arguments: { paths: [".env", "notes.txt"] } }] },
      { text: "done" },
    ]),
    tools: [{ code: "tools/probe.ts#probe" }],
  }, {
    ".env": SECRET,
    "notes.txt": "notes",
    "tools/probe.ts": PROBE.replace(
      "Deno.readTextFileSync(p)",
      "Deno.readTextFileSync(new URL(p, import.meta.url.replace(/tools\\/probe\\.ts$/, '')))",
    ),
  });
  const r = jsonOk(
    await runCli(["run", dir, "--input", "probe", "--approve", "--json"], {
      home: home.path,
      env: { FRAMEWORK_SANDBOX: "worker" },
    }),
  );
  assert.equal(r.status, "success");
  const trace = jsonOk(await runCli(["trace", r.run_id, "--json"], { home: home.path }));
  const result = trace.events.find((e: { type: string }) => e.type === "tool_result");
  const text = JSON.stringify(result.payload);
  assert.ok(!text.includes(SECRET), text);
  assert.match(text, /DENIED/);
  assert.match(text, /notes/);
});
