/**
 * docs/control-plane.md starts the server in the background with the installed command and stops it
 * with `kill $SERVER`. That only works if the command's process is the framework itself: the
 * installed script `exec`s Deno (the installer's binary, else the one `npx` holds for the same
 * version), so SIGTERM to its PID reaches the server, the port closes and no process stays behind.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { onPath } from "../../scripts/apt.ts";
import { frameworkTaskFlags, shimScript } from "../../scripts/install.ts";
import { startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

/** Every process below `pid` (from /proc). */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(e.name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) {
      if (pp === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    // A zombie has exited (its parent has not reaped it yet): it holds no port.
    return !/^\d+ \(.*\) Z/s.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

/**
 * Starts the control plane through an installed command, sends SIGTERM to that command's PID (what
 * `kill $SERVER` does) and checks that the server exited, its port closed and nothing stayed.
 */
async function killThroughCommand(command: string, path: string): Promise<void> {
  await using home = await tempDir("fw-signal-home-");
  const dir = await writeHarness(home.path, "signals", { model: scripted([{ text: "ok" }]) });
  const server = await startControlPlane(dir, { home: home.path, command, env: { PATH: path } });
  const port = Number(new URL(server.url).port);
  const below = descendants(server.pid);
  try {
    const exe = await Deno.realPath(`/proc/${server.pid}/exe`);
    assert.match(exe, /\/deno$/, `the command's process is Deno itself, not ${exe}`);
    const health = await fetch(`${server.url}/health`);
    await health.body?.cancel();
    assert.equal(health.status, 200, "it serves");
    Deno.kill(server.pid, "SIGTERM");
    assert.equal(await server.exited, 0, server.stderr().join("\n"));
    await assert.rejects(
      Deno.connect({ hostname: "127.0.0.1", port }),
      Deno.errors.ConnectionRefused,
      "the port is closed",
    );
    assert.deepEqual(below.filter(alive), [], "no process of the command stays");
  } finally {
    for (const pid of below.filter(alive)) {
      try {
        Deno.kill(pid, "SIGKILL"); // only what a failing run left behind
      } catch {
        // gone
      }
    }
    await server.stop();
  }
}

Deno.test("installed command: SIGTERM to its PID stops the control plane (it execs Deno)", async () => {
  await using bin = await tempDir("fw-signal-bin-");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", `${ROOT}/scripts/install.ts`],
    env: { FRAMEWORK_BIN_DIR: bin.path },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const command = join(bin.path, "framework");
  assert.ok((await Deno.readTextFile(command)).includes(Deno.execPath()), "it names this Deno");
  // No deno on this PATH: the command needs none.
  await killThroughCommand(command, "/usr/bin:/bin");
});

Deno.test("installed command: with its Deno gone, it execs the one npx holds (SIGTERM still stops it)", async () => {
  const npx = onPath("npx", Deno.env);
  const node = onPath("node", Deno.env);
  assert.ok(npx && node, "node and npx are needed (the README's machine has them)");
  await using bin = await tempDir("fw-signal-bin-");
  // A PATH with node, npm and npx only (their real folders may also hold a deno: links avoid it).
  const nodeBin = join(bin.path, "node-bin");
  await Deno.mkdir(nodeBin);
  for (const tool of ["node", "npm", "npx"]) {
    const real = onPath(tool, Deno.env);
    if (real) await Deno.symlink(real, join(nodeBin, tool));
  }
  const flags = frameworkTaskFlags(await Deno.readTextFile(`${ROOT}/deno.json`));
  const command = join(bin.path, "framework");
  const gone = join(bin.path, "gone", "deno");
  await Deno.writeTextFile(command, shimScript(ROOT, gone, Deno.version.deno, flags), {
    mode: 0o755,
  });
  await killThroughCommand(command, `${nodeBin}:/usr/bin:/bin`);

  // Without npx either (an empty PATH), it says what to do.
  const empty = join(bin.path, "empty");
  await Deno.mkdir(empty);
  const none = await new Deno.Command(command, {
    args: ["--version"],
    env: { PATH: empty },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(none.code, 127);
  assert.match(
    new TextDecoder().decode(none.stderr),
    new RegExp(`${gone.replaceAll("/", "\\/")} is gone .*task install`),
  );
});
