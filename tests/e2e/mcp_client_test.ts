/**
 * `framework mcp serve` under clients no one here wrote, set up the way docs/runs.md says (its client
 * configuration, read from the page), in a fresh HOME, with only the environment a client gives a
 * server (HOME and PATH, not FRAMEWORK_HOME): the official MCP Inspector's command line from npm
 * (`npx @modelcontextprotocol/inspector --cli`) and the MCP SDK's own Client over its
 * StdioClientTransport (whose environment is the SDK's getDefaultEnvironment()). tools/list declares
 * an output schema, every result validates against it (with the SDK's JSON Schema validator, not the
 * server's zod), a run that waits for approval included; when the client disconnects, the server
 * stops the runs it started and exits 0 with nothing on stderr. An untrusted folder is refused at
 * once, the message naming the home it looked in.
 *
 * `framework` on the client's PATH is the command `deno task install` writes, behind a recorder that
 * keeps each start's exit status, stderr and environment names for the test to read (it passes
 * SIGTERM and SIGINT on). The fresh HOME's `.cache/deno` and `.npm` link to this machine's caches, so
 * nothing is downloaded that is already there.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { frameworkTaskFlags, shimScript } from "../../scripts/install.ts";
import { approvalHarness } from "../helpers/approval_harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
/** The Inspector, pinned: the command line a user runs with `npx @modelcontextprotocol/inspector`. */
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
/** The keys the output schema declares, and so the only keys a result may hold. */
const RESULT_KEYS = [
  "run_id",
  "status",
  "cost_usd",
  "turns",
  "thread_id",
  "approval_id",
  "tool",
  "arguments_hash",
];
/** What a client built on the MCP SDK passes on (getDefaultEnvironment), and what sh adds. */
const CLIENT_ENV = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "PWD",
  "OLDPWD",
  "SHLVL",
  "_",
];

const text = (b: Uint8Array) => new TextDecoder().decode(b);

async function output(cmd: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(cmd, { args, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, `${cmd} ${args.join(" ")}: ${text(out.stderr)}`);
  return text(out.stdout).trim();
}

/** A user's machine: a fresh HOME, `framework` installed on the PATH, and what its starts did. */
interface Machine extends AsyncDisposable {
  home: string;
  /** The only environment the client (and so the server) has. */
  env: { HOME: string; PATH: string };
  /** Runs `framework` as a shell of that user would (no FRAMEWORK_HOME). */
  framework(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts `framework` the same way, its stdin, stdout and stderr piped (not recorded). */
  spawn(args: string[]): Deno.ChildProcess;
  /** The starts of `framework` so far: exit statuses, stderr, and the last start's variables. */
  starts(): Promise<{ statuses: number[]; stderr: string; env: string[] }>;
}

async function userMachine(): Promise<Machine> {
  const home = await tempDir("fw-mcpc-home-");
  const bin = await tempDir("fw-mcpc-bin-");
  const log = join(bin.path, "log");
  await Deno.mkdir(log);
  await Deno.mkdir(join(home.path, ".cache"));
  const denoDir = JSON.parse(await output(Deno.execPath(), ["info", "--json"])).denoDir;
  await Deno.symlink(denoDir, join(home.path, ".cache", "deno"));
  await Deno.symlink(await output("npm", ["config", "get", "cache"]), join(home.path, ".npm"));
  const installed = join(bin.path, "framework-installed");
  await Deno.writeTextFile(
    installed,
    shimScript(
      ROOT,
      Deno.execPath(),
      Deno.version.deno,
      frameworkTaskFlags(await Deno.readTextFile(join(ROOT, "deno.json"))),
    ),
    { mode: 0o755 },
  );
  // The recorder: the installed command as a child (its stdin the client's, through fd 3, since a
  // background child of sh gets /dev/null), its status, stderr and variable names kept.
  await Deno.writeTextFile(
    join(bin.path, "framework"),
    `#!/bin/sh
env | sed 's/=.*//' | sort > '${log}/env'
exec 3<&0
'${installed}' "$@" <&3 3<&- 2>>'${log}/stderr' &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM INT
wait $child
code=$?
while kill -0 $child 2>/dev/null; do wait $child; code=$?; done
echo $code >> '${log}/status'
`,
    { mode: 0o755 },
  );
  const env = { HOME: home.path, PATH: `${bin.path}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}` };
  const read = (name: string) => Deno.readTextFile(join(log, name)).catch(() => "");
  return {
    home: home.path,
    env,
    async framework(args) {
      const out = await new Deno.Command(installed, {
        args,
        env,
        clearEnv: true,
        cwd: home.path,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
    },
    spawn(args) {
      return new Deno.Command(installed, {
        args,
        env,
        clearEnv: true,
        cwd: home.path,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    },
    async starts() {
      return {
        statuses: (await read("status")).split("\n").filter(Boolean).map(Number),
        stderr: await read("stderr"),
        env: (await read("env")).split("\n").filter(Boolean),
      };
    },
    async [Symbol.asyncDispose]() {
      await home[Symbol.asyncDispose]();
      await bin[Symbol.asyncDispose]();
    },
  };
}

/** docs/runs.md's client configuration (MCP servers), for the harness in `dir`. */
async function documentedConfig(dir: string): Promise<{ mcpServers: Record<string, Json> }> {
  const page = await Deno.readTextFile(join(ROOT, "docs", "runs.md"));
  const blocks = [...page.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  const config = blocks.find((b) => b.includes('"mcpServers"') && b.includes('"serve"'));
  assert.ok(config, "docs/runs.md shows a client configuration for framework mcp serve");
  assert.ok(config.includes('"/path/to/support-bot"'));
  return JSON.parse(config.replace('"/path/to/support-bot"', JSON.stringify(dir)));
}

/** Checks a `run` result against the declared output schema, and that it says what it should. */
function checkResult(schema: Json, result: Json, status: string): Json {
  const check = new AjvJsonSchemaValidator().getValidator(schema)(result.structuredContent);
  assert.ok(check.valid, `${check.errorMessage}: ${JSON.stringify(result.structuredContent)}`);
  const s = result.structuredContent;
  assert.equal(s.status, status, JSON.stringify(result));
  assert.match(s.run_id, /^run_/);
  if (status === "awaiting_approval") {
    assert.match(s.approval_id, /^apr_/);
    assert.equal(s.tool, "file_write");
    assert.match(s.arguments_hash, /^[0-9a-f]{64}$/);
    assert.equal(s.cost_usd, undefined, "no cost before the run has ended");
  } else {
    assert.equal(typeof s.cost_usd, "number");
    assert.equal(typeof s.turns, "number");
    assert.equal(s.approval_id, undefined);
  }
  return s;
}

/** Checks the declared output schema: an object with exactly the result's keys. */
function checkSchema(tool: Json): Json {
  assert.ok(tool.outputSchema, "the run tool declares an output schema");
  assert.equal(tool.outputSchema.type, "object");
  assert.deepEqual(Object.keys(tool.outputSchema.properties).sort(), [...RESULT_KEYS].sort());
  assert.deepEqual(tool.outputSchema.required, ["run_id", "status"]);
  assert.equal(tool.outputSchema.additionalProperties, false);
  assert.deepEqual(tool.outputSchema.properties.status.enum, [
    "success",
    "verify_failed",
    "guardrail_halt",
    "max_turns",
    "error",
    "awaiting_approval",
  ]);
  assert.match(tool.description, /^Run the harness support-bot: Answers support questions\. Give/);
  assert.doesNotMatch(tool.description, /\.\./);
  return tool.outputSchema;
}

Deno.test({
  name: "framework mcp serve under the MCP Inspector and the SDK's client, as documented",
  // The SDK's StdioClientTransport.close() races the server's exit with a 2 s timer (unref'd) that
  // it leaves running when the server exits first, as it does in the last step.
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  for (const tool of ["npx", "npm"]) {
    const { success } = await new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] })
      .output();
    assert.ok(success, `this test runs the MCP Inspector with ${tool}: install Node.js and npm`);
  }
  await using machine = await userMachine();
  await using root = await tempDir("fw-mcpc-");
  const dir = await approvalHarness(root.path, "support-bot");
  const spec = parse(await Deno.readTextFile(join(dir, "harness.yaml")));
  await Deno.writeTextFile(
    join(dir, "harness.yaml"),
    stringify({ ...spec, description: "Answers support questions." }),
  );
  const config = await documentedConfig(dir);
  const configPath = join(root.path, "config.json");
  await Deno.writeTextFile(configPath, JSON.stringify(config));
  const server = config.mcpServers["support-bot"];
  const sdkClient = () =>
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      // On top of getDefaultEnvironment() (this process's LOGNAME, SHELL, TERM, USER): the user's
      // HOME, and a PATH with framework on it.
      env: { ...server.env, ...machine.env },
      cwd: root.path,
    });
  /** The starts since the last look: all ended 0, writing nothing on stderr. */
  let seen = { statuses: 0, stderr: 0 };
  const quietExits = async (count: number) => {
    const starts = await machine.starts();
    const stderr = starts.stderr.slice(seen.stderr);
    assert.deepEqual(starts.statuses.slice(seen.statuses), Array(count).fill(0), stderr);
    assert.equal(stderr, "", "the server writes nothing on stderr");
    seen = { statuses: starts.statuses.length, stderr: starts.stderr.length };
    return starts;
  };

  await t.step("an untrusted folder is refused at once, naming the home it looked in", async () => {
    const client = new Client({ name: "test", version: "1" });
    await assert.rejects(client.connect(sdkClient(), { timeout: 60_000 }));
    await client.close();
    const starts = await machine.starts();
    assert.deepEqual(starts.statuses, [4], starts.stderr);
    assert.ok(
      starts.stderr.includes(join(machine.home, ".framework", "trust.json")),
      starts.stderr,
    );
    assert.match(starts.stderr, /--approve/);
    seen = { statuses: starts.statuses.length, stderr: starts.stderr.length };
  });

  await t.step("trusted as docs/runs.md says, for the home the server uses", async () => {
    const trusted = await machine.framework(["trust", dir]);
    assert.equal(trusted.code, 0, trusted.stderr);
    const store = JSON.parse(
      await Deno.readTextFile(join(machine.home, ".framework", "trust.json")),
    );
    assert.deepEqual(store.trusted.map((e: Json) => e.path), [dir]);
  });

  let schema: Json;
  const inspector = async (args: string[]) => {
    const out = await new Deno.Command("npx", {
      args: [
        "-y",
        "--prefer-offline",
        INSPECTOR,
        "--cli",
        "--config",
        configPath,
        "--server",
        "support-bot",
        ...args,
      ],
      env: machine.env,
      clearEnv: true,
      cwd: root.path,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = text(out.stdout);
    assert.equal(out.code, 0, `${stdout}\n${text(out.stderr)}`);
    return JSON.parse(stdout);
  };

  await t.step("the Inspector's tools/list shows the output schema", async () => {
    const listed = await inspector(["--method", "tools/list", "--strict"]);
    const starts = await quietExits(1);
    for (const name of ["FRAMEWORK_HOME", "DENO_DIR"]) assert.ok(!starts.env.includes(name));
    assert.deepEqual(listed.tools.map((x: Json) => x.name), ["run"]);
    schema = checkSchema(listed.tools[0]);
  });

  await t.step("the Inspector's tools/call answers a result that fits it", async () => {
    const done = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "run",
      "--tool-arg",
      "input=plain",
    ]);
    assert.equal(done.isError, false);
    assert.deepEqual(done.content, [{ type: "text", text: "plain answer" }]);
    checkResult(schema, done, "success");
    const waiting = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "run",
      "--tool-arg",
      "input=write it",
    ]);
    const s = checkResult(schema, waiting, "awaiting_approval");
    await quietExits(2);
    // The client went away: the run it left waiting was stopped, its request still pending.
    const runs = JSON.parse((await machine.framework(["runs", dir, "--json"])).stdout).data.runs;
    const left = runs.find((r: Json) => r.run_id === s.run_id);
    assert.equal(left.status, "error");
    assert.equal(left.reason, "interrupted_awaiting_approval");
    const request = await machine.framework(["approvals", dir, "show", s.approval_id, "--json"]);
    assert.equal(JSON.parse(request.stdout).data.status, "pending", request.stderr);
  });

  await t.step("SIGTERM ends a session quietly too, stopping the run it left waiting", async () => {
    const server = machine.spawn(["mcp", "serve", dir]);
    const stderr = new Response(server.stderr).text();
    const writer = server.stdin.getWriter();
    await writer.write(new TextEncoder().encode(
      [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "test", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "run", arguments: { input: "write it" } },
        },
      ].map((m) => JSON.stringify(m) + "\n").join(""),
    ));
    let answer: Json;
    let buffered = "";
    for await (const chunk of server.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      answer = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
      if (answer) break;
    }
    const s = checkResult(schema, answer.result, "awaiting_approval");
    server.kill("SIGTERM");
    const status = await server.status;
    await writer.close().catch(() => {});
    assert.equal(await stderr, "", "nothing on stderr");
    assert.equal(status.code, 0);
    const runs = JSON.parse((await machine.framework(["runs", dir, "--json"])).stdout).data.runs;
    assert.equal(
      runs.find((r: Json) => r.run_id === s.run_id).reason,
      "interrupted_awaiting_approval",
    );
  });

  await t.step({
    name: "the SDK's client: list, call (a thread, an approval), disconnect",
    sanitizeOps: false, // the test's options say why
    sanitizeResources: false,
    fn: sdkSession,
  });

  async function sdkSession() {
    const client = new Client({ name: "test", version: "1" });
    try {
      await client.connect(sdkClient(), { timeout: 60_000 });
      const tool = (await client.listTools()).tools[0];
      assert.deepEqual(checkSchema(tool), schema, "one schema, whoever asks");
      // The SDK's client checks structuredContent against the listed schema itself, too.
      const first = await client.callTool({
        name: "run",
        arguments: { input: "plain", thread_id: "new" },
      });
      const s = checkResult(schema, first, "success");
      assert.match(s.thread_id, /^thr_/);
      const next = await client.callTool({
        name: "run",
        arguments: { input: "plain", thread_id: s.thread_id },
      });
      assert.equal(checkResult(schema, next, "success").thread_id, s.thread_id);
      checkResult(
        schema,
        await client.callTool({ name: "run", arguments: { input: "write it" } }),
        "awaiting_approval",
      );
    } finally {
      await client.close();
    }
    const starts = await quietExits(1);
    const extra = starts.env.filter((name) => !CLIENT_ENV.includes(name));
    assert.deepEqual(extra, [], "the server had the client's environment only");
  }
});
