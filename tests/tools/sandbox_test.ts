/**
 * The code sandbox, through real runs (`startRun` in a trusted folder, with the scripted model calling
 * code tools and then answering) and through direct `createSandbox` calls: what code may and may not
 * touch, what the spec's `permissions` grant, time limits that really kill the runaway process,
 * argument schemas, captured console output, thrown errors and modules that do not load.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { startRun } from "../../lib/runs/service.ts";
import type { RunResult } from "../../lib/run_types.ts";
import { createSandbox, sandboxFlags, splitCodeRef } from "../../lib/tools/sandbox.ts";
import { ToolError } from "../../lib/tools/tool.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { runCli } from "../helpers/cli.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { pathExists } from "../../lib/fs/exists.ts";

/** The code tools most tests use: each does one thing with its arguments. */
const TOOLS_MODULE = `
export async function readFile(args: { path: string }) {
  return await Deno.readTextFile(args.path);
}
export async function writeFile(args: { path: string; text: string }) {
  await Deno.writeTextFile(args.path, args.text);
  return "written";
}
export async function fetchUrl(args: { url: string }) {
  const r = await fetch(args.url);
  return await r.text();
}
export async function runCmd() {
  const out = await new Deno.Command("echo", { args: ["hi"] }).output();
  return new TextDecoder().decode(out.stdout);
}
export function readEnv(args: { name: string }) {
  return Deno.env.get(args.name) ?? "(unset)";
}
export function echo(args: unknown) {
  return { echoed: args };
}
export const notFn = 42;
`;

type ToolCall = { id: string; name: string; arguments?: Record<string, unknown> };

/** The scripted replies: one turn calling every tool, then a final answer. */
function callThenAnswer(calls: ToolCall[], answer = "done"): Record<string, unknown>[] {
  return [{ tool_calls: calls }, { text: answer }];
}

/** Runs a trusted harness to its end and returns the result and its events. */
async function runToEnd(
  dir: string,
  input = "go",
): Promise<{ result: RunResult; events: readonly JournalEvent[] }> {
  await trustFolder(dir);
  const run = await startRun(dir, { input });
  const result = await run.result;
  return { result, events: run.events.snapshot() };
}

/** The `tool_result` payloads by call id. */
function resultsById(events: readonly JournalEvent[]): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const e of events) {
    if (e.type === "tool_result") out.set(e.payload.id as string, e.payload);
  }
  return out;
}

/** Asserts a tool result was refused by the sandbox. */
function assertDenied(result: Record<string, unknown> | undefined, what: RegExp): void {
  assert.ok(result, "the tool call has a result");
  assert.equal(result.ok, false, JSON.stringify(result));
  const error = result.error as { code: string; message: string };
  assert.equal(error.code, "permission_denied", error.message);
  assert.match(error.message, /denied/);
  assert.match(error.message, what);
  assert.equal("content" in result, false);
}

/** Asserts a tool result succeeded with this content. */
function assertOk(result: Record<string, unknown> | undefined, content: string): void {
  assert.ok(result, "the tool call has a result");
  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.content, content);
}

/** A local HTTP server on 127.0.0.1 (a free high port) that counts its requests. */
function localServer(): { port: number; hits: () => number } & AsyncDisposable {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    hits += 1;
    return new Response("pong");
  });
  return {
    port: server.addr.port,
    hits: () => hits,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** A sandbox process of a harness, from /proc (Linux). */
interface SandboxProcess {
  pid: number;
  /** CPU time used so far, in clock ticks. */
  cpu: number;
}

/** Sandbox child processes (`deno run … sandbox_child.ts`) whose read grant starts with `dir`. */
async function sandboxProcesses(dir: string): Promise<SandboxProcess[]> {
  const out: SandboxProcess[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const args = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).split("\0");
      if (!args.some((a) => a.endsWith("sandbox_child.ts"))) continue;
      const read = args.find((a) => a.startsWith("--allow-read="));
      if (!read || read.slice("--allow-read=".length).split(",")[0] !== dir) continue;
      const cpu = await processCpu(Number(entry.name));
      if (cpu !== undefined) out.push({ pid: Number(entry.name), cpu });
    } catch {
      // the process ended while it was being read
    }
  }
  return out;
}

/** CPU ticks a live process has used so far; undefined once it has exited (or is a zombie). */
async function processCpu(pid: number): Promise<number | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // after the command name: state(0) … utime(11) stime(12); "Z" has exited, not yet reaped
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? undefined : Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Polls `probe` every 50 ms until it gives a value or `ms` have passed. */
async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() >= deadline) return value;
    await sleep(50);
  }
}

const HAS_PROC = Deno.build.os === "linux";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

Deno.test("a code tool cannot read outside the folder, write outside workspace/, reach the network, run subprocesses or read the environment; each refusal is a permission_denied tool error and the run succeeds", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  await using server = localServer();
  const secretVar = `FW_SANDBOX_TEST_SECRET_${crypto.randomUUID().replaceAll("-", "")}`;
  Deno.env.set(secretVar, "top-secret");
  try {
    await Deno.writeTextFile(`${tmp.path}/secret.txt`, "outside the harness");
    await trustFolder(tmp.path); // ensures <home>/trust.json exists (it lists a parent folder)
    const url = `http://127.0.0.1:${server.port}/`;
    const calls: ToolCall[] = [
      { id: "read_outside", name: "readFile", arguments: { path: `${tmp.path}/secret.txt` } },
      { id: "read_home", name: "readFile", arguments: { path: `${home.path}/trust.json` } },
      { id: "read_inside", name: "readFile", arguments: { path: "notes/n.txt" } },
      {
        id: "write_outside",
        name: "writeFile",
        arguments: { path: `${tmp.path}/evil.txt`, text: "x" },
      },
      { id: "write_spec", name: "writeFile", arguments: { path: "harness.yaml", text: "x" } },
      {
        id: "write_spec_dotdot",
        name: "writeFile",
        arguments: { path: "workspace/../harness.yaml", text: "x" },
      },
      { id: "write_code", name: "writeFile", arguments: { path: "tools/t.ts", text: "x" } },
      {
        id: "write_state",
        name: "writeFile",
        arguments: { path: ".framework/x.txt", text: "x" },
      },
      {
        id: "write_workspace",
        name: "writeFile",
        arguments: { path: "workspace/out.txt", text: "made in the sandbox" },
      },
      { id: "socket", name: "fetchUrl", arguments: { url } },
      { id: "subprocess", name: "runCmd", arguments: {} },
      { id: "env_secret", name: "readEnv", arguments: { name: secretVar } },
      { id: "env_home", name: "readEnv", arguments: { name: "HOME" } },
    ];
    const dir = await writeHarness(tmp.path, "h", {
      model: scripted(callThenAnswer(calls)),
      tools: ["readFile", "writeFile", "fetchUrl", "runCmd", "readEnv"].map((n) => ({
        code: `tools/t.ts#${n}`,
      })),
    }, {
      "tools/t.ts": TOOLS_MODULE,
      "notes/n.txt": "inside the harness",
      "workspace/.keep": "",
    });
    const specBefore = await Deno.readTextFile(`${dir}/harness.yaml`);
    const { result, events } = await runToEnd(dir);
    const byId = resultsById(events);

    await t.step("the run still ends success with the final answer", () => {
      assert.equal(result.status, "success", JSON.stringify(result));
      assert.equal(result.output, "done");
      assert.equal(result.turns, 2);
      assert.equal(byId.size, calls.length, "every call has a result");
      const warnings = events.filter((e) => e.type === "warning");
      assert.deepEqual(warnings, [], "every tool loaded");
    });

    await t.step("reading a file outside the harness folder is denied", () => {
      assertDenied(byId.get("read_outside"), /read access/);
      assertDenied(byId.get("read_home"), /read access/);
    });

    await t.step("reading inside the harness folder works", () => {
      assertOk(byId.get("read_inside"), "inside the harness");
    });

    await t.step("writing outside workspace/ is denied, harness.yaml included", async () => {
      for (const id of ["write_outside", "write_spec", "write_spec_dotdot", "write_code"]) {
        assertDenied(byId.get(id), /write access/);
      }
      assertDenied(byId.get("write_state"), /write access/);
      assert.equal(await pathExists(`${tmp.path}/evil.txt`), false);
      assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), specBefore);
      assert.equal(await Deno.readTextFile(`${dir}/tools/t.ts`), TOOLS_MODULE);
      assert.equal(await pathExists(`${dir}/.framework/x.txt`), false);
    });

    await t.step("writing inside workspace/ works", async () => {
      assertOk(byId.get("write_workspace"), "written");
      assert.equal(await Deno.readTextFile(`${dir}/workspace/out.txt`), "made in the sandbox");
    });

    await t.step("opening a socket to a local server is denied; the server sees nothing", () => {
      assertDenied(
        byId.get("socket"),
        new RegExp(`net access to "127\\.0\\.0\\.1:${server.port}"`),
      );
      assert.equal(server.hits(), 0);
    });

    await t.step("running a subprocess is denied", () => {
      assertDenied(byId.get("subprocess"), /run access/);
    });

    await t.step("reading an environment variable is denied", () => {
      assertDenied(byId.get("env_secret"), /env access/);
      assertDenied(byId.get("env_home"), /env access/);
      const text = JSON.stringify(events);
      assert.equal(text.includes("top-secret"), false, "the value never reaches the journal");
    });

    await t.step("the model sees each refusal as an error message", () => {
      const second = events.filter((e) => e.type === "model_call")[1]!;
      const append = second.payload.append as { role: string; content: string; name?: string }[];
      const socket = append.find((m) => m.role === "tool" && m.content.includes("net access"));
      assert.ok(socket);
      assert.match(socket.content, /^Error \(permission_denied\): /);
    });
  } finally {
    Deno.env.delete(secretVar);
  }
});

Deno.test("permissions on a code tool entry grant exactly what they list: one host:port, one environment variable, one extra folder", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using granted = localServer();
  await using other = localServer();
  const suffix = crypto.randomUUID().replaceAll("-", "");
  const grantedVar = `FW_SANDBOX_GRANTED_${suffix}`;
  const otherVar = `FW_SANDBOX_OTHER_${suffix}`;
  Deno.env.set(grantedVar, "granted-value");
  Deno.env.set(otherVar, "other-value");
  try {
    await Deno.mkdir(`${tmp.path}/shared`);
    await Deno.writeTextFile(`${tmp.path}/shared/a.txt`, "shared text");
    await Deno.mkdir(`${tmp.path}/private`);
    await Deno.writeTextFile(`${tmp.path}/private/b.txt`, "private text");
    const grantedUrl = `http://127.0.0.1:${granted.port}/`;
    const otherUrl = `http://127.0.0.1:${other.port}/`;
    const calls: ToolCall[] = [
      { id: "net_granted", name: "fetch_granted", arguments: { url: grantedUrl } },
      { id: "net_other_port", name: "fetch_granted", arguments: { url: otherUrl } },
      { id: "net_ungranted_entry", name: "fetchUrl", arguments: { url: grantedUrl } },
      { id: "env_granted", name: "env_granted", arguments: { name: grantedVar } },
      { id: "env_other", name: "env_granted", arguments: { name: otherVar } },
      { id: "env_ungranted_entry", name: "readEnv", arguments: { name: grantedVar } },
      { id: "read_granted", name: "read_granted", arguments: { path: "../shared/a.txt" } },
      {
        id: "read_granted_abs",
        name: "read_granted",
        arguments: { path: `${tmp.path}/shared/a.txt` },
      },
      { id: "read_other", name: "read_granted", arguments: { path: "../private/b.txt" } },
      { id: "read_ungranted_entry", name: "readFile", arguments: { path: "../shared/a.txt" } },
      {
        id: "write_read_grant",
        name: "write_with_read_grant",
        arguments: { path: "../shared/new.txt", text: "x" },
      },
    ];
    const dir = await writeHarness(tmp.path, "h", {
      model: scripted(callThenAnswer(calls)),
      tools: [
        {
          code: "tools/t.ts#fetchUrl",
          name: "fetch_granted",
          permissions: { net: [`127.0.0.1:${granted.port}`] },
        },
        { code: "tools/t.ts#fetchUrl" },
        { code: "tools/t.ts#readEnv", name: "env_granted", permissions: { env: [grantedVar] } },
        { code: "tools/t.ts#readEnv" },
        { code: "tools/t.ts#readFile", name: "read_granted", permissions: { read: ["../shared"] } },
        { code: "tools/t.ts#readFile" },
        {
          code: "tools/t.ts#writeFile",
          name: "write_with_read_grant",
          permissions: { read: ["../shared"] },
        },
      ],
    }, { "tools/t.ts": TOOLS_MODULE, "workspace/.keep": "" });
    const { result, events } = await runToEnd(dir);
    const byId = resultsById(events);
    assert.equal(result.status, "success", JSON.stringify(result));

    await t.step("net: the granted host:port answers; another port is still denied", () => {
      assertOk(byId.get("net_granted"), "pong");
      assert.equal(granted.hits(), 1, "exactly the granted call reached the server");
      assertDenied(byId.get("net_other_port"), /net access/);
      assert.equal(other.hits(), 0);
    });

    await t.step("env: the granted variable is readable; another one is still denied", () => {
      assertOk(byId.get("env_granted"), "granted-value");
      assertDenied(byId.get("env_other"), /env access/);
    });

    await t.step("read: the granted folder is readable; a sibling folder is not", () => {
      assertOk(byId.get("read_granted"), "shared text");
      assertOk(byId.get("read_granted_abs"), "shared text");
      assertDenied(byId.get("read_other"), /read access/);
    });

    await t.step("a read grant does not grant writing there", async () => {
      assertDenied(byId.get("write_read_grant"), /write access/);
      assert.equal(await pathExists(`${tmp.path}/shared/new.txt`), false);
    });

    await t.step("a grant belongs to its entry: the same export without it is denied", () => {
      assertDenied(byId.get("net_ungranted_entry"), /net access/);
      assertDenied(byId.get("env_ungranted_entry"), /env access/);
      assertDenied(byId.get("read_ungranted_entry"), /read access/);
    });
  } finally {
    Deno.env.delete(grantedVar);
    Deno.env.delete(otherVar);
  }
});

Deno.test("a code tool that never returns is stopped at its timeout_s: a timeout tool error, its process is killed, and a later code tool in the same run works", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "h", {
    model: scripted([
      { tool_calls: [{ id: "spin", name: "spin", arguments: {} }] },
      // a pause after the timeout, to look at the processes while the run is still going
      { tool_calls: [{ id: "after", name: "echo", arguments: { n: 1 } }], delay_ms: 1500 },
      { text: "still here" },
    ]),
    tools: [{ code: "tools/slow.ts#spin", timeout_s: 2 }, { code: "tools/t.ts#echo" }],
  }, {
    // The tool says which process it runs in, then never returns.
    "tools/slow.ts": "export async function spin() {\n" +
      '  await Deno.writeTextFile("workspace/spin.pid", String(Deno.pid));\n' +
      "  while (true) {}\n}\n",
    "tools/t.ts": TOOLS_MODULE,
    "workspace/.keep": "",
  });
  await trustFolder(dir);
  const run = await startRun(dir, { input: "go" });
  let runaway: SandboxProcess | undefined;
  let busyTicks = 0;
  let goneAfterTimeout: boolean | undefined;
  for await (const e of run.events) {
    if (!HAS_PROC) break;
    if (e.type === "tool_call" && e.payload.id === "spin") {
      // A loaded machine may take a while to start the sandbox: wait for the loop to begin.
      const pid = await waitFor(async () => {
        const text = await Deno.readTextFile(`${dir}/workspace/spin.pid`).catch(() => "");
        return text ? Number(text) : undefined;
      }, 5000);
      const first = pid === undefined ? undefined : await processCpu(pid);
      if (pid !== undefined && first !== undefined) {
        await sleep(200);
        const second = await processCpu(pid);
        if (second !== undefined) {
          runaway = (await sandboxProcesses(dir)).find((p) => p.pid === pid);
          busyTicks = second - first;
        }
      }
    }
    if (e.type === "tool_result" && e.payload.id === "spin" && runaway) {
      // SIGKILL is asynchronous: give the kernel a moment
      const pid = runaway.pid;
      goneAfterTimeout = await waitFor(
        async () => (await processCpu(pid)) === undefined || undefined,
        3000,
      ) ?? false;
    }
  }
  const result = await run.result;
  const events = run.events.snapshot();
  const byId = resultsById(events);

  await t.step("the call ends with a timeout tool error after about timeout_s", () => {
    const spin = byId.get("spin")!;
    assert.equal(spin.ok, false);
    const error = spin.error as { code: string; message: string };
    assert.equal(error.code, "timeout", error.message);
    assert.match(error.message, /within 2 s/);
    const ms = spin.duration_ms as number;
    assert.ok(ms >= 1900 && ms < 6000, `stopped by its own limit, not the backstop: ${ms} ms`);
  });

  await t.step("the run goes on: a later code tool works and the run succeeds", () => {
    const after = byId.get("after")!;
    assert.equal(after.ok, true, JSON.stringify(after));
    assert.deepEqual(JSON.parse(after.content as string), { echoed: { n: 1 } });
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, "still here");
    assert.equal(result.turns, 3);
  });

  await t.step({
    name: "the runaway process was busy, is gone after the timeout, and none is left after the run",
    ignore: !HAS_PROC,
    fn: async () => {
      assert.ok(runaway, "a sandbox process of this harness was running the loop");
      // An idle process gets no tick at all; a shared, loaded machine may give the loop a small share.
      assert.ok(busyTicks >= 2, `it was burning CPU (${busyTicks} ticks in 200 ms)`);
      assert.equal(goneAfterTimeout, true, "the runaway process was killed at the timeout");
      const deadline = Date.now() + 2000;
      let left = await sandboxProcesses(dir);
      while (left.length && Date.now() < deadline) {
        await sleep(50);
        left = await sandboxProcesses(dir);
      }
      assert.deepEqual(left, [], "the run stops its sandboxes when it ends");
    },
  });
});

Deno.test("a code tool's argument schema is the entry's schema, else the export's; arguments that do not match are refused with invalid_arguments without running the code", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const ENTRY_SCHEMA = {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
    additionalProperties: false,
  };
  const OWN_SCHEMA = {
    type: "object",
    properties: { q: { type: "string" } },
    required: ["q"],
    additionalProperties: false,
  };
  const MODULE_SCHEMA = {
    type: "object",
    properties: { m: { type: "boolean" } },
    required: ["m"],
  };
  const OVERRIDE_SCHEMA = {
    type: "object",
    properties: { z: { type: "number" } },
    required: ["z"],
  };
  const schemaModule = `
async function mark(ctx: { tool: string }) {
  await Deno.writeTextFile("workspace/" + ctx.tool + ".ran", "x", { append: true });
}
export async function plain(args: Record<string, unknown>, ctx: { tool: string }) {
  await mark(ctx);
  return "plain " + JSON.stringify(args);
}
export async function own(args: { q: string }, ctx: { tool: string }) {
  await mark(ctx);
  return "q=" + args.q;
}
own.schema = ${JSON.stringify(OWN_SCHEMA)};
own.description = "Has its own schema";
`;
  const singleModule = `
export const schema = ${JSON.stringify(MODULE_SCHEMA)};
export async function single(args: { m: boolean }, ctx: { tool: string }) {
  await Deno.writeTextFile("workspace/" + ctx.tool + ".ran", "x", { append: true });
  return "m=" + args.m;
}
`;
  const calls: ToolCall[] = [
    { id: "entry_ok", name: "with_entry_schema", arguments: { n: 3 } },
    { id: "entry_bad_type", name: "with_entry_schema", arguments: { n: "three" } },
    { id: "entry_missing", name: "with_entry_schema", arguments: {} },
    { id: "own_ok", name: "own", arguments: { q: "x" } },
    { id: "own_extra", name: "own", arguments: { q: "x", extra: 1 } },
    { id: "own_missing", name: "own", arguments: {} },
    { id: "override_ok", name: "overridden", arguments: { z: 1.5 } },
    { id: "override_own_args", name: "overridden", arguments: { q: "x" } },
    { id: "module_ok", name: "single", arguments: { m: true } },
    { id: "module_bad", name: "single", arguments: { m: "yes" } },
    { id: "any_ok", name: "plain", arguments: { anything: [1, 2] } },
  ];
  const dir = await writeHarness(tmp.path, "h", {
    model: scripted(callThenAnswer(calls)),
    tools: [
      { code: "tools/s.ts#plain", name: "with_entry_schema", schema: ENTRY_SCHEMA },
      { code: "tools/s.ts#own" },
      {
        code: "tools/s.ts#own",
        name: "overridden",
        schema: OVERRIDE_SCHEMA,
        description: "Entry wins",
      },
      { code: "tools/single.ts#single" },
      { code: "tools/s.ts#plain" },
    ],
  }, {
    "tools/s.ts": schemaModule,
    "tools/single.ts": singleModule,
    "workspace/.keep": "",
  });
  const { result, events } = await runToEnd(dir);
  const byId = resultsById(events);
  assert.equal(result.status, "success", JSON.stringify(result));
  const tools = events[0]!.payload.tools as {
    name: string;
    description: string;
    parameters: unknown;
  }[];
  const spec = (name: string) => tools.find((x) => x.name === name)!;
  const runs = async (tool: string) => {
    try {
      return (await Deno.readTextFile(`${dir}/workspace/${tool}.ran`)).length;
    } catch {
      return 0;
    }
  };

  await t.step("the entry's schema is sent to the model and enforced", async () => {
    assert.deepEqual(spec("with_entry_schema").parameters, ENTRY_SCHEMA);
    assertOk(byId.get("entry_ok"), 'plain {"n":3}');
    for (const id of ["entry_bad_type", "entry_missing"]) {
      const r = byId.get(id)!;
      assert.equal(r.ok, false);
      assert.equal((r.error as { code: string }).code, "invalid_arguments", id);
    }
    assert.equal(await runs("with_entry_schema"), 1, "the code ran only for valid arguments");
  });

  await t.step("without one, the export's schema property (and description) is used", async () => {
    assert.deepEqual(spec("own").parameters, OWN_SCHEMA);
    assert.equal(spec("own").description, "Has its own schema");
    assertOk(byId.get("own_ok"), "q=x");
    for (const id of ["own_extra", "own_missing"]) {
      const r = byId.get(id)!;
      assert.equal(r.ok, false);
      assert.equal((r.error as { code: string }).code, "invalid_arguments", id);
      assert.match((r.error as { message: string }).message, /^Invalid arguments: /);
    }
    assert.equal(await runs("own"), 1);
  });

  await t.step("the entry's schema and description win over the export's", async () => {
    assert.deepEqual(spec("overridden").parameters, OVERRIDE_SCHEMA);
    assert.equal(spec("overridden").description, "Entry wins");
    assertOk(byId.get("override_ok"), "q=undefined");
    const r = byId.get("override_own_args")!;
    assert.equal((r.error as { code: string }).code, "invalid_arguments");
    assert.equal(await runs("overridden"), 1);
  });

  await t.step("a module whose only function has a `schema` export uses it", async () => {
    assert.deepEqual(spec("single").parameters, MODULE_SCHEMA);
    assertOk(byId.get("module_ok"), "m=true");
    assert.equal((byId.get("module_bad")!.error as { code: string }).code, "invalid_arguments");
    assert.equal(await runs("single"), 1);
  });

  await t.step("with no schema anywhere, any object is accepted", async () => {
    assertOk(byId.get("any_ok"), 'plain {"anything":[1,2]}');
    assert.deepEqual(spec("plain").parameters, { type: "object", additionalProperties: true });
    assert.equal(await runs("plain"), 1);
  });
});

Deno.test("console output of a code tool is captured into the tool_result's logs and never reaches the parent's stdout", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const marker = `MARK${crypto.randomUUID().replaceAll("-", "")}`;
  const dir = await writeHarness(tmp.path, "h", {
    model: scripted(callThenAnswer([
      { id: "talk", name: "talk", arguments: {} },
      { id: "talk_fail", name: "talkThenFail", arguments: {} },
    ])),
    tools: [{ code: "tools/log.ts#talk" }, { code: "tools/log.ts#talkThenFail" }],
  }, {
    "tools/log.ts": `
console.log("${marker} at import");
export function talk() {
  console.log("${marker} log", { n: 1 });
  console.info("${marker} info");
  console.warn("${marker} warn");
  console.error("${marker} error");
  return "talked";
}
export function talkThenFail() {
  console.log("${marker} before the throw");
  throw new Error("gave up");
}
export async function rawStdout() {
  await Deno.stdout.write(new TextEncoder().encode("${marker} raw, no newline"));
  return "finished";
}
`,
  });

  await t.step("in a run: the lines are in the tool_result's logs, with their level", async () => {
    const { result, events } = await runToEnd(dir);
    assert.equal(result.status, "success");
    const byId = resultsById(events);
    const talk = byId.get("talk")!;
    assertOk(talk, "talked");
    assert.deepEqual(talk.logs, [
      `${marker} log {"n":1}`,
      `[info] ${marker} info`,
      `[warn] ${marker} warn`,
      `[error] ${marker} error`,
    ]);
    const failed = byId.get("talk_fail")!;
    assert.equal(failed.ok, false);
    assert.equal((failed.error as { code: string }).code, "failed");
    assert.deepEqual(failed.logs, [`${marker} before the throw`], "a failed call keeps its logs");
    const modelSaw = JSON.stringify(events.filter((e) => e.type === "model_call"));
    assert.equal(modelSaw.includes(marker), false, "logs are not sent to the model");
  });

  await t.step({
    name: "raw writes to Deno.stdout do not swallow the call's answer",
    fn: async () => {
      const box = createSandbox(dir);
      try {
        const { value } = await box.call("tools/log.ts#rawStdout", {}, {}, 3000);
        assert.equal(value, "finished");
      } finally {
        await box.close();
      }
    },
  });

  await t.step(
    "through the real CLI: stdout is only the answer, stderr has none of it",
    async () => {
      const r = await runCli(["run", dir, "--input", "go", "--approve"], { home: home.path });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "done\n");
      assert.equal(r.stderr.includes(marker), false, r.stderr);
    },
  );
});

Deno.test("a thrown error is a failed tool error, not a crash; returned values reach the model as text, objects as JSON", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const VALUE = { a: 1, b: [true, null, "x"], c: { d: 1.5 } };
  const dir = await writeHarness(tmp.path, "h", {
    model: scripted(callThenAnswer([
      { id: "throws", name: "throws", arguments: {} },
      { id: "type_error", name: "typeError", arguments: {} },
      { id: "throws_string", name: "throwsString", arguments: {} },
      { id: "rejects", name: "rejects", arguments: {} },
      { id: "object", name: "object", arguments: {} },
      { id: "text", name: "text", arguments: {} },
      { id: "nothing", name: "nothing", arguments: {} },
      { id: "number", name: "number", arguments: {} },
    ], "recovered")),
    tools: ["throws", "typeError", "throwsString", "rejects", "object", "text", "nothing", "number"]
      .map((n) => ({ code: `tools/v.ts#${n}` })),
  }, {
    "tools/v.ts": `
export function throws() { throw new Error("boom"); }
export function typeError() { return (null as unknown as { x: number }).x; }
export function throwsString() { throw "just a string"; }
export async function rejects() { await Promise.resolve(); throw new RangeError("out of range"); }
export function object() { return ${JSON.stringify(VALUE)}; }
export function text() { return "plain text"; }
export function nothing() {}
export async function number() { return 42; }
`,
  });
  const { result, events } = await runToEnd(dir);
  const byId = resultsById(events);
  const toolMessages = (events.filter((e) => e.type === "model_call")[1]!.payload.append as {
    role: string;
    tool_call_id?: string;
    content: string;
    is_error?: boolean;
  }[]).filter((m) => m.role === "tool");
  const sent = (id: string) => toolMessages.find((m) => m.tool_call_id === id)!;

  await t.step("the run ends success after the errors", () => {
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, "recovered");
  });

  await t.step("thrown errors (sync, async, non-Error) are failed tool errors", () => {
    const cases: [string, RegExp][] = [
      ["throws", /^Error: boom$/],
      ["type_error", /^TypeError: /],
      ["throws_string", /just a string/],
      ["rejects", /^RangeError: out of range$/],
    ];
    for (const [id, message] of cases) {
      const r = byId.get(id)!;
      assert.equal(r.ok, false, id);
      const error = r.error as { code: string; message: string };
      assert.equal(error.code, "failed", id);
      assert.match(error.message, message, id);
      assert.equal(sent(id).is_error, true);
      assert.equal(sent(id).content, `Error (failed): ${error.message}`);
    }
  });

  await t.step("an object reaches the model as its JSON text", () => {
    const r = byId.get("object")!;
    assert.equal(r.ok, true);
    assert.equal(typeof r.content, "string");
    assert.deepEqual(JSON.parse(r.content as string), VALUE);
    assert.equal(sent("object").content, r.content);
    assert.deepEqual(JSON.parse(sent("object").content), VALUE);
  });

  await t.step("a string is sent as is; nothing is null; a number is its JSON", () => {
    assertOk(byId.get("text"), "plain text");
    assert.equal(sent("text").content, "plain text");
    assertOk(byId.get("nothing"), "null");
    assertOk(byId.get("number"), "42");
  });
});

Deno.test("a code tool whose module does not load or lacks the export is unavailable: a tool_unavailable warning, and the run goes on with the other tools", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "h", {
    model: scripted(callThenAnswer([
      { id: "call_broken", name: "broken", arguments: {} },
      { id: "call_echo", name: "echo", arguments: { ok: true } },
    ])),
    tools: [
      { code: "tools/broken.ts#broken" },
      { code: "tools/t.ts#nope" },
      { code: "tools/t.ts#notFn" },
      { code: "tools/absent.ts#absent" },
      { code: "tools/t.ts#echo" },
    ],
  }, {
    "tools/broken.ts": "export function broken( {\n  return 1;\n",
    "tools/t.ts": TOOLS_MODULE,
  });
  const { result, events } = await runToEnd(dir);
  const warnings = events.filter((e) => e.type === "warning").map((e) => e.payload);

  await t.step("one tool_unavailable warning per unusable entry, naming the tool", () => {
    assert.deepEqual(warnings.map((w) => [w.code, w.tool]), [
      ["tool_unavailable", "broken"],
      ["tool_unavailable", "nope"],
      ["tool_unavailable", "notFn"],
      ["tool_unavailable", "absent"],
    ]);
    const byTool = new Map(warnings.map((w) => [w.tool, w.message as string]));
    assert.match(byTool.get("broken")!, /SyntaxError|parse|Expected/i);
    assert.match(byTool.get("nope")!, /does not export "nope"/);
    assert.match(byTool.get("notFn")!, /exports number, not a function/);
    assert.match(byTool.get("absent")!, /absent\.ts|not found|NotFound/i);
  });

  await t.step("only the working tool is offered to the model", () => {
    const tools = (events[0]!.payload.tools as { name: string }[]).map((x) => x.name);
    assert.deepEqual(tools, ["echo"]);
  });

  await t.step("calling an unavailable tool is an unknown_tool error; the rest works", () => {
    const byId = resultsById(events);
    assert.equal((byId.get("call_broken")!.error as { code: string }).code, "unknown_tool");
    assert.equal(byId.get("call_echo")!.ok, true);
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, "done");
  });
});

Deno.test("createSandbox() calls exports with narrowed flags, refuses refs outside the folder, and restarts after a call overruns", async (t) => {
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "h", { model: scripted([{ text: "x" }]) }, {
    "tools/t.ts": TOOLS_MODULE,
    "tools/slow.ts": "export function spin() {\n  while (true) {}\n}\n",
    "tools/ctx.ts": "export function ctx(args: unknown, c: unknown) { return { args, c }; }\n",
    "tools/remote.ts": `export async function remote() {
  await import("https://jsr.io/@fw-sandbox-probe/leak/meta.json?secret=1");
  return "imported";
}
`,
    ".framework/x.ts": "export function f() { return 1; }\n",
  });

  await t.step("the flags allow reading the folder and writing workspace/, nothing else", () => {
    assert.deepEqual(sandboxFlags(dir), [
      `--allow-read=${dir}`,
      `--deny-read=${dir}/.framework`,
      `--allow-write=${dir}/workspace`,
      "--no-remote",
      "--no-npm",
      "--no-prompt",
    ]);
    assert.deepEqual(
      sandboxFlags(dir, {
        read: ["../shared"],
        write: ["out"],
        net: ["127.0.0.1:8080"],
        env: ["A", "B"],
      }),
      [
        `--allow-read=${dir},${tmp.path}/shared`,
        `--deny-read=${dir}/.framework`,
        `--allow-write=${dir}/workspace,${dir}/out`,
        "--allow-net=127.0.0.1:8080",
        "--allow-env=A,B",
        "--no-remote",
        "--no-npm",
        "--no-prompt",
      ],
    );
    assert.deepEqual(splitCodeRef("tools/t.ts#echo"), { path: "tools/t.ts", name: "echo" });
  });

  const box = createSandbox(dir);
  try {
    await t.step("call() passes arguments and context and returns the value", async () => {
      const { value, logs } = await box.call("tools/ctx.ts#ctx", { a: 1 }, { b: 2 }, 10_000);
      assert.deepEqual(value, { args: { a: 1 }, c: { b: 2 } });
      assert.deepEqual(logs, []);
    });

    await t.step("describe() tells what an export is", async () => {
      const echo = await box.describe("tools/t.ts#echo");
      assert.equal(echo.exported, true);
      assert.equal(echo.type, "function");
      const notFn = await box.describe("tools/t.ts#notFn");
      assert.equal(notFn.type, "number");
      const nope = await box.describe("tools/t.ts#nope");
      assert.equal(nope.exported, false);
    });

    await t.step("a denied operation rejects with a permission_denied ToolError", async () => {
      await assert.rejects(
        box.call("tools/t.ts#readEnv", { name: "HOME" }, {}, 10_000),
        (err: unknown) => err instanceof ToolError && err.code === "permission_denied",
      );
    });

    await t.step("refs escaping the folder or inside .framework/ are refused", async () => {
      for (const ref of ["../x.ts#f", ".framework/x.ts#f", `${dir}/tools/t.ts#echo`]) {
        await assert.rejects(
          box.call(ref, {}, {}, 10_000),
          (err: unknown) => err instanceof ToolError && err.code === "refused",
          ref,
        );
      }
    });

    await t.step(
      "an overrunning call is a timeout; the sandbox restarts for the next",
      async () => {
        const t0 = performance.now();
        await assert.rejects(
          box.call("tools/slow.ts#spin", {}, {}, 500),
          (err: unknown) => err instanceof ToolError && err.code === "timeout",
        );
        assert.ok(performance.now() - t0 < 3000);
        if (HAS_PROC) {
          const deadline = Date.now() + 2000;
          let left = await sandboxProcesses(dir);
          while (left.length && Date.now() < deadline) {
            await sleep(50);
            left = await sandboxProcesses(dir);
          }
          assert.deepEqual(left, [], "the overrunning process is gone");
        }
        const { value } = await box.call("tools/t.ts#echo", { again: true }, {}, 10_000);
        assert.deepEqual(value, { echoed: { again: true } });
      },
    );

    await t.step({
      // Remote, npm: and jsr: imports would reach the network with URLs the code chooses.
      name: "a dynamic import from a remote host is denied like any other network access",
      fn: async () => {
        await assert.rejects(
          box.call("tools/remote.ts#remote", {}, {}, 10_000),
          (err: unknown) => err instanceof ToolError && err.code === "permission_denied",
        );
      },
    });
  } finally {
    await box.close();
  }
});

Deno.test("a code tool's own timeout_s wins over limits.tool_timeout_s", async (t) => {
  await t.step({
    // The runner's backstop must follow the entry's timeout_s, not limits.tool_timeout_s + 5 s.
    name: "a 6 s call under timeout_s: 10 finishes although tool_timeout_s is 0.5",
    fn: async () => {
      await using _home = await tempHome();
      await using tmp = await tempDir();
      const dir = await writeHarness(tmp.path, "h", {
        model: scripted(callThenAnswer([
          { id: "slow", name: "slow", arguments: {} },
          { id: "quick", name: "quick", arguments: {} },
        ])),
        limits: { tool_timeout_s: 0.5 },
        tools: [{ code: "tools/s.ts#slow", timeout_s: 10 }, { code: "tools/s.ts#quick" }],
      }, {
        "tools/s.ts": `export async function slow() {
  await new Promise((r) => setTimeout(r, 6000));
  return "slow done";
}
export function quick() {
  return "quick";
}
`,
      });
      const { result, events } = await runToEnd(dir);
      const byId = resultsById(events);
      assertOk(byId.get("slow"), "slow done");
      assertOk(byId.get("quick"), "quick");
      assert.equal(result.status, "success");
    },
  });
});
