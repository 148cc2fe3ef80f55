/**
 * The README's install command on the README's machine: a clean HOME and a PATH with Node and npm
 * but no `deno`. `npx -y deno@2.9.6 task install` writes the `framework` command, which then runs
 * with that same PATH (it execs the Deno binary npx unpacked; tests/docs/install_signals_test.ts).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Where a command is on the PATH, or null. */
async function which(name: string, path?: string): Promise<string | null> {
  const out = await new Deno.Command("sh", {
    args: ["-c", `command -v ${name}`],
    env: path ? { PATH: path } : {},
    stdout: "piped",
    stderr: "null",
  }).output();
  return out.success ? new TextDecoder().decode(out.stdout).trim() : null;
}

Deno.test("install: `npx -y deno@2.9.6 task install` gives a working `framework` without deno", async () => {
  const node = await which("node");
  const npx = await which("npx");
  assert.ok(node && npx, "node and npx are needed (the README's machine has them)");
  await using home = await tempDir("fw-install-home-");
  // A PATH with node, npm and npx only (their real folders may also hold a deno: links avoid it).
  const nodeBin = join(home.path, "node-bin");
  await Deno.mkdir(nodeBin);
  for (const tool of ["node", "npm", "npx"]) {
    const real = await which(tool);
    if (real) await Deno.symlink(real, join(nodeBin, tool));
  }
  const path = `${nodeBin}:/usr/bin:/bin`;
  assert.equal(await which("deno", path), null, "no deno on this PATH");
  const realHome = Deno.env.get("HOME") ?? "/root";
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    HOME: home.path,
    PATH: path,
    FRAMEWORK_BIN_DIR: join(home.path, "bin"),
    // The npm and Deno caches of this machine (a fresh HOME would download everything again).
    npm_config_cache: Deno.env.get("npm_config_cache") ?? join(realHome, ".npm"),
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(realHome, ".cache", "deno"),
    NO_COLOR: "1",
  };
  delete env.FRAMEWORK_HOME;
  const run = async (cmd: string, args: string[]) => {
    const out = await new Deno.Command(cmd, {
      args,
      cwd: ROOT,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: new TextDecoder().decode(out.stdout),
      stderr: new TextDecoder().decode(out.stderr),
    };
  };
  const installed = await run("npx", ["-y", "deno@2.9.6", "task", "install"]);
  assert.equal(installed.code, 0, installed.stderr);
  const bin = join(home.path, "bin", "framework");
  assert.match(installed.stdout, new RegExp(`Installed ${bin.replaceAll("/", "\\/")}`));
  assert.match(installed.stdout, /is not on your PATH/);

  const help = await run(bin, ["--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /Usage: framework/);
  const version = await run(bin, ["--version", "--json"]);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(JSON.parse(version.stdout).ok, true, "one JSON document on stdout");
  // It works from any folder, and the home it uses is the user's.
  const init = await run(bin, ["init", join(home.path, "first"), "--json"]);
  assert.equal(init.code, 0, init.stderr);
  assert.equal(JSON.parse(init.stdout).data.id, "first");

  // Installing again updates it; a file it did not write is never replaced.
  assert.equal((await run("npx", ["-y", "deno@2.9.6", "task", "install"])).code, 0);
  await Deno.writeTextFile(bin, "#!/bin/sh\necho mine\n");
  const refused = await run("npx", ["-y", "deno@2.9.6", "task", "install"]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /was not written by this installer/);
  assert.equal(await Deno.readTextFile(bin), "#!/bin/sh\necho mine\n");
});
