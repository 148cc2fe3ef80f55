/**
 * Run inside a network namespace of its own (tests/e2e/default_addresses_test.ts), where the default
 * ports are free whatever the machine serves: starts each server with no address flag and probes the
 * address it should have taken, then prints one JSON document of what it saw.
 *
 * Arguments: a harness folder, a framework home, a working folder, and a scratch checkout.
 *
 * @module
 */

import { join } from "node:path";

const [harness, home, cwd, checkout] = Deno.args as [string, string, string, string];
const CLI = new URL("../../../cli.ts", import.meta.url).pathname;

/** Starts a command, waits for a stdout line matching `ready`, and returns a stopper. */
async function start(args: string[], env: Record<string, string>, where: string, ready: RegExp) {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: where,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errDone = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  let out = "";
  while (!ready.test(out)) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const outDone = child.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    out,
    async stop(): Promise<string> {
      try {
        child.kill("SIGTERM");
      } catch {
        // gone
      }
      await child.status;
      await outDone;
      return await errDone;
    },
  };
}

/** A GET's status and body, or the error that kept it from answering. */
async function probe(url: string): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

// The children's environment is cleared (as a new user's would hold nothing of ours), but they share
// this process's module cache: nothing can be downloaded in here.
const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
const DENO_DIR = (JSON.parse(new TextDecoder().decode(info.stdout)) as { denoDir: string }).denoDir;
const base = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", NO_COLOR: "1", DENO_DIR };
const report: Record<string, unknown> = {};

// The control plane with no --host and no --port.
{
  const cp = await start(
    ["run", "-A", "--quiet", CLI, "control-plane", harness, "--approve", "--json"],
    { ...base, FRAMEWORK_HOME: home, FRAMEWORK_AUTHORIZED_KEYS: "" },
    cwd,
    /\n/,
  );
  report.control_plane = {
    printed: cp.out.trim(),
    health: await probe("http://127.0.0.1:8420/health"),
  };
  await cp.stop();
}

// The workbench with no --host and no --port.
{
  const wb = await start(
    ["run", "-A", "--quiet", CLI, "workbench", "--json"],
    { ...base, FRAMEWORK_HOME: home, FRAMEWORK_COPILOT_MODEL: "" },
    cwd,
    /\n/,
  );
  report.workbench = {
    printed: wb.out.trim(),
    health: await probe("http://127.0.0.1:8770/api/health"),
  };
  await wb.stop();
}

// The development checkout: no FRAMEWORK_HOME, a HOME of its own; then with the ports moved.
const devHome = join(cwd, "dev-home");
await Deno.mkdir(devHome);
for (
  const [name, env, ui, api] of [
    ["dev", {}, 5173, 8770],
    ["dev_moved", { FRAMEWORK_UI_PORT: "5191", FRAMEWORK_UI_API_PORT: "8791" }, 5191, 8791],
  ] as const
) {
  const dev = await start(
    ["run", "-A", "--quiet", join(checkout, "scripts", "workbench_dev.ts")],
    { ...base, HOME: devHome, FRAMEWORK_COPILOT_MODEL: "", ...env },
    checkout,
    /Workbench \(development\)/,
  );
  report[name] = {
    printed: dev.out.trim(),
    page: await probe(`http://127.0.0.1:${ui}/`),
    health_through_ui: await probe(`http://127.0.0.1:${ui}/api/health`),
    api: await probe(`http://127.0.0.1:${api}/api/health`),
    stderr: await dev.stop(),
  };
}

console.log(JSON.stringify(report));
