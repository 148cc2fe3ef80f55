/**
 * `POST /validate` is reachable with a read token and loads a trusted harness's code in a sandbox:
 * 30 of them at once must not start 30 processes. The real control plane is flooded while this test
 * counts its sandbox processes in `/proc` every few milliseconds.
 *
 * @module
 */

import assert from "node:assert/strict";
import { VALIDATE_SANDBOXES } from "../../lib/validate/check_code_refs.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

async function isSandboxOf(pid: string, harnessDirs: readonly string[]): Promise<boolean> {
  try {
    const cmd = await Deno.readTextFile(`/proc/${pid}/cmdline`);
    return cmd.includes("sandbox_child.ts") &&
      harnessDirs.some((d) => cmd.includes(`--allow-read=${d}`));
  } catch {
    return false; // gone
  }
}

/**
 * How many sandbox child processes serve any of these harness folders at one moment. One scan of
 * `/proc` covers every folder (a sum of scans taken one after another would add up processes that
 * never lived at the same time), and a process that exited during the scan is dropped by a second
 * look: every pid counted was alive before the second pass began and is still alive in it, so all
 * were alive at once.
 */
async function sandboxProcesses(...harnessDirs: string[]): Promise<number> {
  const seen: string[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (/^\d+$/.test(e.name) && await isSandboxOf(e.name, harnessDirs)) seen.push(e.name);
  }
  let n = 0;
  for (const pid of seen) if (await isSandboxOf(pid, harnessDirs)) n++;
  return n;
}

Deno.test({
  name: "control plane: 30 concurrent /validate keep at most a fixed number of sandboxes",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using root = await tempDir();
    const dir = await writeHarness(root.path, "checked", {
      model: scripted([{ text: "ok" }]),
      tools: [{ code: "tools/a.ts#a" }, { code: "tools/b.ts#b", permissions: { env: ["HOME"] } }],
    }, {
      // A module that takes a moment to load, so validations overlap.
      "tools/a.ts": "await new Promise((r) => setTimeout(r, 150));\nexport function a() {}\n",
      "tools/b.ts": "export function b() {}\n",
    });
    const { token } = await memberToken(dir, home.path, "reader", ["read"]);
    await using plane = await startControlPlane(dir, {
      home: home.path,
      env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
    });
    let max = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        max = Math.max(max, await sandboxProcesses(dir));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 30 }, async () => {
      const res = await fetch(`${plane.url}/validate`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: await res.json() };
    }));
    sampling = false;
    await sampler;
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.data.valid, true, JSON.stringify(a.body.data.issues));
    }
    assert.ok(max >= 1, "the sandbox processes were seen");
    assert.ok(
      max <= VALIDATE_SANDBOXES,
      `at most ${VALIDATE_SANDBOXES} sandbox processes at once, saw ${max}`,
    );
  },
});

Deno.test({
  name: "validateHarness(): different harnesses at once share the same bound",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using _home = await tempHome();
    await using root = await tempDir();
    const dirs: string[] = [];
    for (const name of ["one", "two", "three", "four"]) {
      const dir = await writeHarness(root.path, name, {
        model: scripted([{ text: "ok" }]),
        tools: [{ code: "tools/a.ts#a" }],
      }, {
        "tools/a.ts": "await new Promise((r) => setTimeout(r, 150));\nexport function a() {}\n",
      });
      await trustFolder(dir);
      dirs.push(dir);
    }
    let max = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        max = Math.max(max, await sandboxProcesses(...dirs));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const results = await Promise.all(dirs.map((d) => validateHarness(d)));
    sampling = false;
    await sampler;
    for (const r of results) assert.equal(r.valid, true, JSON.stringify(r.issues));
    assert.ok(max >= 1 && max <= VALIDATE_SANDBOXES, `saw ${max} sandbox processes at once`);
  },
});
