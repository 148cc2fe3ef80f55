/**
 * `framework generate` and `framework package` end to end: the page is written once (`--force` to
 * replace it); the package holds none of the planted secrets (`.env*`, `.framework/`, traces, a
 * moved trace folder, uploads), unpacks with the system's `tar` and serves with `framework
 * control-plane` (`GET /` is the page, `/run` with a token); `--verify` fails on a changed byte
 * and on a changed file.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tarGz, untarGz } from "../../lib/package/tar.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("generate and package: a page, a package without secrets that serves unpacked", async (t) => {
  await using home = await tempDir("fw-pk-home-");
  await using cwd = await tempDir("fw-pk-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const dir = await writeHarness(cwd.path, "shipped", {
    name: "Shipped",
    description: "Answers briefly.",
    model: scripted([{ text: "**Done**: shipped." }]),
    logging: { trace_dir: "logs" },
    interface: { input: "text", title: "Ask Shipped" },
  }, { "docs/notes.md": "notes\n", "workspace/seed.txt": "seed\n" });
  // Planted: what a package must never hold.
  await Deno.writeTextFile(join(dir, ".env"), "OPENAI_API_KEY=sk-planted\n");
  await Deno.writeTextFile(join(dir, ".ENV.local"), "SECRET=planted\n");
  await Deno.mkdir(join(dir, ".framework"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".framework/authorized_keys.json"), '{"planted":true}\n');
  await Deno.mkdir(join(dir, "workspace/uploads"), { recursive: true });
  await Deno.writeTextFile(join(dir, "workspace/uploads/private.txt"), "uploaded\n");
  jsonOk(await cli(["run", "shipped", "--input", "hi", "--approve", "--json"]));
  assert.ok((await Array.fromAsync(Deno.readDir(join(dir, "logs")))).length > 0, "a trace");

  await t.step("generate writes the page once; --force replaces it", async () => {
    const made = jsonOk(await cli(["generate", "shipped", "--json"]));
    assert.deepEqual([made.path, made.input], ["interfaces/default/index.html", "text"]);
    const html = await Deno.readTextFile(join(dir, made.path));
    assert.match(html, /<title>Ask Shipped<\/title>/);
    assert.doesNotMatch(html, /https?:\/\/(?!…)/, "no external asset");
    assert.doesNotMatch(html, /sk-planted/);
    jsonError(await cli(["generate", "shipped", "--json"]), "conflict", 2);
    jsonError(await cli(["generate", "shipped", "--input", "pdf", "--json"]), "bad_input", 2);
    const again = jsonOk(
      await cli(["generate", "shipped", "--input", "file", "--force", "--json"]),
    );
    assert.equal(again.input, "file");
    jsonOk(await cli(["generate", "shipped", "--force", "--json"]));
  });

  const archive = join(cwd.path, "shipped.tar.gz");
  const unpacked = join(cwd.path, "unpacked");
  await t.step("package holds the harness and none of the secrets; tar unpacks it", async () => {
    const pkg = jsonOk(await cli(["package", "shipped", "--out", archive, "--json"]));
    const paths = pkg.files.map((f: { path: string }) => f.path);
    assert.deepEqual(paths, [
      "docs/notes.md",
      "harness.yaml",
      "interfaces/default/index.html",
      "workspace/seed.txt",
    ]);
    await Deno.mkdir(unpacked);
    const tar = await new Deno.Command("tar", { args: ["-xzf", archive, "-C", unpacked] }).output();
    assert.equal(tar.code, 0, new TextDecoder().decode(tar.stderr));
    for (const planted of [".env", ".ENV.local", ".framework", "logs", "workspace/uploads"]) {
      assert.equal(
        await exists(join(unpacked, planted)),
        false,
        `${planted} is not in the package`,
      );
    }
    for (const f of ["harness.yaml", "framework.lock.json", "Dockerfile", "DEPLOY.md"]) {
      assert.ok(await exists(join(unpacked, f)), f);
    }
    const lock = JSON.parse(await Deno.readTextFile(join(unpacked, "framework.lock.json")));
    assert.equal(lock.id, "shipped");
    assert.match(await Deno.readTextFile(join(unpacked, "DEPLOY.md")), /framework keys authorize/);
    const all = await untarGz(await Deno.readFile(archive));
    for (const f of all) {
      assert.doesNotMatch(new TextDecoder().decode(f.bytes), /sk-planted|uploaded/, f.path);
    }
  });

  await t.step("--verify passes, and fails on a changed byte and on a changed file", async () => {
    const ok = jsonOk(await cli(["package", "--verify", archive, "--json"]));
    assert.equal(ok.verified, true);
    const bytes = await Deno.readFile(archive);
    const flipped = bytes.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    await Deno.writeFile(join(cwd.path, "flipped.tar.gz"), flipped);
    jsonError(await cli(["package", "--verify", "flipped.tar.gz", "--json"]), "bad_input", 2);
    const files = await untarGz(bytes);
    const changed = files.map((f) =>
      f.path === "harness.yaml"
        ? { ...f, bytes: new TextEncoder().encode(new TextDecoder().decode(f.bytes) + "#\n") }
        : f
    );
    await Deno.writeFile(join(cwd.path, "changed.tar.gz"), await tarGz(changed));
    const refused = jsonError(
      await cli(["package", "--verify", "changed.tar.gz", "--json"]),
      "bad_input",
      2,
    );
    assert.match(refused.message, /harness\.yaml does not match its hash/);
  });

  await t.step("the unpacked package serves: GET / is the page, /run needs a token", async () => {
    const { token } = await memberToken(unpacked, home.path, "op", ["run"]);
    await using plane = await startControlPlane(unpacked, {
      home: home.path,
      env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
    });
    const page = await fetch(`${plane.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-security-policy") ?? "", /connect-src 'self'/);
    assert.match(await page.text(), /<title>Ask Shipped<\/title>/);
    const noToken = await fetch(`${plane.url}/run`, { method: "POST", body: '{"input":"x"}' });
    assert.equal(noToken.status, 401);
    await noToken.body?.cancel();
    const run = await fetch(`${plane.url}/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ input: "hello" }),
    });
    const body = await run.json();
    assert.equal(body.data.status, "success", JSON.stringify(body));
  });
});

Deno.test("package and fork leave out every trace folder the hive knows, a former trace_dir too", async () => {
  await using home = await tempDir("fw-pk-home-");
  await using cwd = await tempDir("fw-pk-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const spec = (traceDir: string) => ({
    model: scripted([{ text: "ok" }, { text: "ok" }]),
    logging: { trace_dir: traceDir },
  });
  const dir = await writeHarness(cwd.path, "moved", spec("old-logs"), { "docs/a.md": "a\n" });
  const first = jsonOk(
    await cli(["run", "moved", "--input", "private input sk-run-input", "--approve", "--json"]),
  );
  assert.ok(await exists(join(dir, "old-logs", `${first.run_id}.jsonl`)), "a former journal");
  await writeHarness(cwd.path, "moved", spec("logs"), { "docs/a.md": "a\n" });
  const second = jsonOk(await cli(["run", "moved", "--input", "later", "--approve", "--json"]));
  assert.ok(await exists(join(dir, "logs", `${second.run_id}.jsonl`)), "today's journal");

  const archive = join(cwd.path, "moved.tar.gz");
  const pkg = jsonOk(await cli(["package", "moved", "--out", archive, "--json"]));
  assert.deepEqual(pkg.files.map((f: { path: string }) => f.path), ["docs/a.md", "harness.yaml"]);
  for (const f of await untarGz(await Deno.readFile(archive))) {
    assert.doesNotMatch(new TextDecoder().decode(f.bytes), /sk-run-input/, f.path);
  }

  const trace = jsonOk(await cli(["trace", second.run_id, "--json"]));
  const at = trace.events.find((e: { type: string }) => e.type === "model_call").seq;
  const fork = jsonOk(
    await cli(["fork", second.run_id, "--at", String(at), "--name", "moved-fork", "--json"]),
  );
  for (const traces of ["old-logs", "logs"]) {
    assert.equal(await exists(join(fork.harness.root_path, traces)), false, `${traces} not copied`);
  }
  assert.ok(await exists(join(fork.harness.root_path, "docs/a.md")));
});
