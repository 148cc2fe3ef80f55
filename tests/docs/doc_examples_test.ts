/**
 * Every shell example of README.md and docs/*.md marked `<!-- runnable -->` runs as written: the
 * marked blocks of one file run in order, in one bash session, in an empty folder that is also the
 * HOME (so `~/.framework` is fresh; its `.cache/deno` is the checkout's Deno cache), with
 * `framework` on the PATH running this checkout (the command `deno task install` writes). Servers a
 * block starts in the background are stopped when the session ends.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { frameworkTaskFlags, shimScript } from "../../scripts/install.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MARK = "<!-- runnable -->";
/** The checkout's Deno cache. */
const denoDir = Deno.env.get("DENO_DIR") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
/** What `deno task install` writes for this checkout and this Deno. */
const installedCommand = shimScript(
  ROOT.replace(/\/$/, ""),
  Deno.execPath(),
  Deno.version.deno,
  frameworkTaskFlags(await Deno.readTextFile(join(ROOT, "deno.json"))),
);

/** One runnable block. */
interface Block {
  file: string;
  line: number;
  code: string;
}

/**
 * The runnable blocks of a Markdown text: a `<!-- runnable -->` line, then (after blank lines) a
 * fence opened with ```sh or ```bash.
 */
export function runnableBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== MARK) continue;
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trim()) j++;
    if (!/^```(sh|bash)\s*$/.test(lines[j] ?? "")) {
      throw new Error(`${file}:${i + 1}: ${MARK} must be followed by a \`\`\`sh block`);
    }
    const body: string[] = [];
    let k = j + 1;
    while (k < lines.length && !/^```\s*$/.test(lines[k]!)) body.push(lines[k++]!);
    out.push({ file, line: j + 2, code: body.join("\n") });
    i = k;
  }
  return out;
}

async function docs(): Promise<{ file: string; blocks: Block[] }[]> {
  const files = ["README.md"];
  for await (const e of Deno.readDir(join(ROOT, "docs"))) {
    if (e.isFile && e.name.endsWith(".md")) files.push(`docs/${e.name}`);
  }
  files.sort();
  const out = [];
  for (const file of files) {
    const blocks = runnableBlocks(file, await Deno.readTextFile(join(ROOT, file)));
    if (blocks.length) out.push({ file, blocks });
  }
  return out;
}

/** Runs a file's blocks in one bash session; resolves with the exit code and the output. */
async function runSession(blocks: Block[], dir: string, bin: string) {
  const script = [
    "set -euo pipefail",
    // Whatever a block left running in the background is stopped when the session ends.
    "trap 'for p in $(jobs -p); do kill $p 2>/dev/null; done; wait 2>/dev/null || true' EXIT",
    ...blocks.flatMap((b) => [`echo "@@ ${b.file}:${b.line}" >&2`, b.code]),
  ].join("\n");
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (!k.startsWith("FRAMEWORK_")) env[k] = v;
  }
  Object.assign(env, {
    HOME: dir,
    PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    NO_COLOR: "1",
    // The examples use the checkout's Deno cache, not a new one under the fresh HOME.
    DENO_DIR: denoDir,
  });
  // So does a command an example starts with HOME and PATH only (an MCP client's environment):
  // Deno's default cache under that HOME is the same one.
  await Deno.mkdir(join(dir, ".cache"));
  await Deno.symlink(denoDir, join(dir, ".cache", "deno"));
  const child = new Deno.Command("bash", {
    args: ["-c", script],
    cwd: dir,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const out = await child.output();
  clearTimeout(timer);
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  return { code: out.code, stdout, stderr };
}

Deno.test("every runnable example of README.md and docs/ runs as written", async (t) => {
  for (const tool of ["bash", "curl", "openssl"]) {
    const { success } = await new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] })
      .output();
    assert.ok(success, `the examples need ${tool}; install it (apt-get install -y ${tool})`);
  }
  const all = await docs();
  assert.ok(all.some((d) => d.file === "README.md"), "README.md has runnable examples");
  assert.ok(all.some((d) => d.file === "docs/control-plane.md"), "so has docs/control-plane.md");
  for (const { file, blocks } of all) {
    await t.step(`${file} (${blocks.length} block${blocks.length === 1 ? "" : "s"})`, async () => {
      await using dir = await tempDir("fw-doc-");
      const bin = join(dir.path, ".bin");
      await Deno.mkdir(bin);
      // The installed command itself (scripts/install.ts), so `kill $!` meets what users get.
      await Deno.writeTextFile(join(bin, "framework"), installedCommand, { mode: 0o755 });
      const r = await runSession(blocks, dir.path, bin);
      const at = [...r.stderr.matchAll(/^@@ (\S+)$/gm)].at(-1)?.[1] ?? file;
      assert.equal(
        r.code,
        0,
        `the block at ${at} failed (exit ${r.code})\n--- stdout (end)\n${
          r.stdout.slice(-2000)
        }\n--- stderr (end)\n${r.stderr.slice(-3000)}`,
      );
    });
  }
});

Deno.test("runnableBlocks() finds marked sh blocks and refuses a marker without one", () => {
  const text = "x\n<!-- runnable -->\n\n```sh\necho a\necho b\n```\n```sh\nnot marked\n```\n";
  assert.deepEqual(runnableBlocks("f.md", text), [
    { file: "f.md", line: 5, code: "echo a\necho b" },
  ]);
  assert.throws(() => runnableBlocks("f.md", "<!-- runnable -->\n```yaml\na: 1\n```\n"), /f\.md:1/);
});
