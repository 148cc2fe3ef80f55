/**
 * A hard link gives `.env` a second, harmless-looking name (`ln .env notes.txt`); the name-based
 * sensitive-path rules cannot see it. The one sensitive-path function refuses every regular file with
 * more than one name, for `input_file` (over the real control plane), the builtin file tools and the
 * evolver's code changes, so the secret reaches no run, no journal and no proposal diff. Copies
 * apply the same rule to the file they open: `framework package` and `framework fork` (real CLI
 * processes) refuse a hard link to `.env` or to a file outside the folder, instead of giving its
 * bytes an ordinary name in the archive or in the fork.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { FrameworkError } from "../../lib/errors.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { resolveSafePath } from "../../lib/fs/safe_path.ts";
import { startRun } from "../../lib/runs/service.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const SECRET = "OPENAI_API_KEY=sk-hard-linked-secret";

/** A harness with a `.env` and two hard links to it: `notes.txt` and `workspace/copy.txt`. */
async function linkedHarness(root: string, spec: Record<string, unknown>): Promise<string> {
  const dir = await writeHarness(root, "linked", spec, {
    ".env": `${SECRET}\n`,
    "plain.txt": "hi",
  });
  await Deno.mkdir(`${dir}/workspace`, { recursive: true });
  await Deno.link(`${dir}/.env`, `${dir}/notes.txt`);
  await Deno.link(`${dir}/.env`, `${dir}/workspace/copy.txt`);
  return dir;
}

Deno.test("resolveSafePath() refuses a hard-linked file and accepts an ordinary one", async () => {
  await using root = await tempDir();
  const dir = await linkedHarness(root.path, { model: scripted([{ text: "ok" }]) });
  for (const path of ["notes.txt", "workspace/copy.txt", "./workspace/../notes.txt"]) {
    await assert.rejects(
      () => resolveSafePath(dir, path),
      (err: FrameworkError) => err.kind === "bad_input" && /hard link/.test(err.message),
      path,
    );
  }
  assert.equal((await resolveSafePath(dir, "plain.txt")).relative, "plain.txt");
  assert.equal((await resolveSafePath(dir, "workspace")).relative, "workspace", "folders pass");
});

Deno.test("control plane: input_file naming a hard link to .env is 400 and nothing leaks", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await linkedHarness(root.path, { model: scripted([{ text: "ok" }]) });
  const { token } = await memberToken(dir, home.path, "reader", ["run", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const res = await fetch(`${plane.url}/run`, {
    method: "POST",
    headers,
    body: JSON.stringify({ input_file: "notes.txt" }),
  });
  const body = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.match(body.error.message, /hard link/);
  assert.ok(!JSON.stringify(body).includes("sk-hard"));
  const stats = await (await fetch(`${plane.url}/stats`, { headers })).json();
  assert.equal(stats.data.runs.total, 0);
});

Deno.test("file_read and file_write refuse a hard link to .env; the secret stays out of the journal", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await linkedHarness(root.path, {
    model: scripted([
      {
        tool_calls: [
          { name: "file_read", arguments: { path: "notes.txt" } },
          { name: "file_write", arguments: { path: "workspace/copy.txt", content: "overwritten" } },
        ],
      },
      { text: "done" },
    ]),
    tools: [{ builtin: "file_read" }, { builtin: "file_write" }],
  });
  const run = await startRun(dir, { input: "read my notes" });
  const result = await run.result;
  assert.equal(result.status, "success");
  const journal = await Deno.readTextFile(run.trace_path);
  assert.ok(!journal.includes("sk-hard"), "the secret is not in the journal");
  assert.equal((journal.match(/hard link/g) ?? []).length >= 2, true, "both calls were refused");
  assert.equal(await Deno.readTextFile(`${dir}/.env`), `${SECRET}\n`, ".env is unchanged");
});

Deno.test("the evolver cannot read or write a hard link to .env through a code change", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await linkedHarness(root.path, {
    model: scripted([{ text: "ok" }]),
    evolution: {
      model: scripted([{
        text: JSON.stringify({
          rationale: "Tidy the notes.",
          yaml_changes: [],
          code_changes: [{ path: "notes.txt", content: "new notes\n" }],
        }),
      }]),
    },
  });
  const proposal = await proposeImprovement(dir, { trigger: "cli", policy: "proposal" });
  const change = proposal.code_changes[0]!;
  assert.equal(change.status, "blocked");
  assert.ok(!change.diff.includes("sk-hard"), "the diff does not show the linked file");
  assert.equal(await Deno.readTextFile(`${dir}/.env`), `${SECRET}\n`);
});

/**
 * The links a copy must refuse, one at a time: a hard link to `.env` and one to a file outside the
 * folder. Each planter returns how to remove its link.
 */
function linkPlanters(root: string, dir: string): [string, () => Promise<() => Promise<void>>][] {
  const plant = (path: string, target: string) => async () => {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.link(target, join(dir, path));
    return () => Deno.remove(join(dir, path));
  };
  return [
    ["notes/config.txt", plant("notes/config.txt", join(dir, ".env"))],
    ["data/outside.txt", async () => {
      await Deno.writeTextFile(join(root, "outside-secret.txt"), "outside secret sk-outside\n");
      return await plant("data/outside.txt", join(root, "outside-secret.txt"))();
    }],
  ];
}

Deno.test("framework package refuses a hard link to .env or to a file outside; nothing is written", async () => {
  await using home = await tempDir("fw-hl-home-");
  await using root = await tempDir("fw-hl-root-");
  const dir = await writeHarness(root.path, "shipped", { model: scripted([{ text: "ok" }]) }, {
    ".env": `${SECRET}\n`,
    "docs/readme.md": "hi\n",
  });
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: root.path });
  const archive = join(root.path, "out.tar.gz");
  for (const [path, plant] of linkPlanters(root.path, dir)) {
    const unlink = await plant();
    const refused = jsonError(
      await cli(["package", dir, "--out", archive, "--json"]),
      "bad_input",
      2,
    );
    assert.match(refused.message, /hard link/);
    assert.ok(refused.message.includes(JSON.stringify(path)), refused.message);
    assert.ok(!refused.message.includes("sk-"), "the message shows no secret");
    await assert.rejects(() => Deno.lstat(archive), Deno.errors.NotFound, "no archive");
    await unlink();
  }
  const pkg = jsonOk(await cli(["package", dir, "--out", archive, "--json"]));
  assert.deepEqual(pkg.files.map((f: { path: string }) => f.path), [
    "docs/readme.md",
    "harness.yaml",
  ]);
});

Deno.test("framework fork refuses a parent holding a hard link to .env or to a file outside", async () => {
  await using home = await tempDir("fw-hl-home-");
  await using root = await tempDir("fw-hl-root-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: root.path });
  const dir = await writeHarness(root.path, "base", {
    model: scripted([{ tool_calls: [{ name: "file_read", arguments: { path: "plain.txt" } }] }, {
      text: "done",
    }]),
    tools: [{ builtin: "file_read" }],
  }, { ".env": `${SECRET}\n`, "plain.txt": "plain\n" });
  const run = jsonOk(await cli(["run", dir, "--input", "go", "--approve", "--json"]));
  const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
  const at = trace.events.find((e: { type: string }) => e.type === "model_call").seq;
  const fork = () => cli(["fork", run.run_id, "--at", String(at), "--name", "base-fork", "--json"]);
  for (const [path, plant] of linkPlanters(root.path, dir)) {
    const unlink = await plant();
    const refused = jsonError(await fork(), "bad_input", 2);
    assert.match(refused.message, /hard link/);
    assert.ok(refused.message.includes(JSON.stringify(path)), refused.message);
    const beside = (await Array.fromAsync(Deno.readDir(root.path))).map((e) => e.name).sort();
    assert.deepEqual(
      beside.filter((n) => n !== "outside-secret.txt"),
      ["base"],
      "no fork folder, no leftover copy",
    );
    await unlink();
  }
  const made = jsonOk(await fork());
  const forked = made.harness.root_path;
  assert.equal(await Deno.readTextFile(join(forked, "plain.txt")), "plain\n");
  for (const gone of [".env", "notes/config.txt", "data/outside.txt"]) {
    await assert.rejects(() => Deno.lstat(join(forked, gone)), Deno.errors.NotFound, gone);
  }
});
