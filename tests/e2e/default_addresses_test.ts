/**
 * The default addresses, taken for real: the control plane on 127.0.0.1:8420 and the workbench on
 * 127.0.0.1:8770 when no flag moves them, and the development checkout (`deno task workbench`'s
 * script) with its UI on 127.0.0.1:5173 and its API on 127.0.0.1:8770, moved by `FRAMEWORK_UI_PORT`
 * and `FRAMEWORK_UI_API_PORT`, keeping its state in the checkout's `.framework-dev/` and nothing under
 * `~/.framework`.
 *
 * Those ports may be busy on a developer's machine (the demo serves 8770), so the servers run in a
 * network namespace of their own (`unshare -rn`, loopback brought up with `ip`), where every port is
 * free. Without namespaces the test runs in the machine's own network when the ports are free, and
 * fails saying why otherwise.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { scratchCheckout } from "../helpers/scratch_checkout.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const CHILD = new URL("../helpers/children/default_addresses.ts", import.meta.url).pathname;
const PORTS = [8420, 8770, 5173, 5191, 8791];

async function succeeds(cmd: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

function portFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

/** The command that runs the child: in a namespace of its own when the machine allows one. */
async function childCommand(args: string[]): Promise<string[]> {
  const deno = [Deno.execPath(), "run", "-A", "--quiet", CHILD, ...args];
  if (await succeeds("unshare", ["-rn", "sh", "-c", "ip link set lo up"])) {
    return ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", ...deno];
  }
  const busy = PORTS.filter((p) => !portFree(p));
  assert.deepEqual(
    busy,
    [],
    `no network namespace here (unshare -rn), and the default ports ${
      busy.join(", ")
    } are taken: stop what serves them`,
  );
  return deno;
}

Deno.test("default addresses: control plane 127.0.0.1:8420, workbench 127.0.0.1:8770, the development checkout 5173 + 8770 in .framework-dev/", async (t) => {
  await using home = await tempDir("fw-addr-home-");
  await using cwd = await tempDir("fw-addr-cwd-");
  await using checkout = await scratchCheckout();
  const dir = await writeHarness(join(cwd.path, "harnesses"), "addr", {
    model: scripted([{ text: "ok" }]),
  });
  const [cmd, ...args] = await childCommand([dir, home.path, cwd.path, checkout.path]);
  const out = await new Deno.Command(cmd!, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const report: Json = JSON.parse(new TextDecoder().decode(out.stdout));

  await t.step("the control plane serves on 127.0.0.1:8420 when nothing moves it", () => {
    const printed = JSON.parse(report.control_plane.printed);
    assert.equal(printed.data.url, "http://127.0.0.1:8420");
    assert.equal(report.control_plane.health.status, 200, JSON.stringify(report.control_plane));
    assert.equal(JSON.parse(report.control_plane.health.body).data.id, "addr");
  });

  await t.step("the workbench serves on 127.0.0.1:8770 when nothing moves it", () => {
    const printed = JSON.parse(report.workbench.printed);
    assert.equal(printed.data.url, "http://127.0.0.1:8770");
    assert.equal(report.workbench.health.status, 200, JSON.stringify(report.workbench));
    assert.equal(JSON.parse(report.workbench.health.body).ok, true);
  });

  await t.step("the development checkout: UI on 5173, API on 8770", () => {
    const dev = report.dev;
    assert.match(dev.printed, /http:\/\/127\.0\.0\.1:5173/, JSON.stringify(dev));
    assert.match(dev.printed, /API on http:\/\/127\.0\.0\.1:8770/);
    assert.equal(dev.page.status, 200);
    assert.match(dev.page.body, /<!doctype html>/i);
    assert.equal(dev.health_through_ui.status, 200, JSON.stringify(dev.health_through_ui));
    // The API answers on its own port (it refuses whoever does not come through the UI).
    assert.ok("status" in dev.api, `nothing answers on 8770: ${JSON.stringify(dev.api)}`);
    assert.equal(typeof JSON.parse(dev.api.body).ok, "boolean");
  });

  await t.step("FRAMEWORK_UI_PORT and FRAMEWORK_UI_API_PORT move them", () => {
    const dev = report.dev_moved;
    assert.match(dev.printed, /http:\/\/127\.0\.0\.1:5191/, JSON.stringify(dev));
    assert.match(dev.printed, /API on http:\/\/127\.0\.0\.1:8791/);
    assert.equal(dev.page.status, 200);
    assert.equal(dev.health_through_ui.status, 200);
    assert.ok("status" in dev.api, `nothing answers on 8791: ${JSON.stringify(dev.api)}`);
  });

  await t.step(
    "its state is in the checkout's .framework-dev/, nothing under ~/.framework",
    async () => {
      const state = join(checkout.path, ".framework-dev");
      assert.ok((await Deno.stat(join(state, "workbench", "workbench.db"))).isFile);
      assert.ok((await Deno.stat(join(state, "hive.db"))).isFile);
      const devHome = join(cwd.path, "dev-home");
      const inHome = await Array.fromAsync(Deno.readDir(devHome));
      assert.deepEqual(inHome.map((e) => e.name), [], "the HOME of the checkout stays empty");
    },
  );
});
