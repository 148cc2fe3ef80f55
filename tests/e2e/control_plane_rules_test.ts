/**
 * Rules of the control plane that hold against the real `framework control-plane` process: trust is
 * checked once, before the socket binds, never per request; `--authorized-keys` and
 * `FRAMEWORK_AUTHORIZED_KEYS` choose the key store it reads; with no capacity flags it runs one run
 * and queues four (the fifth waiting request is 503); and it offers no `package`, `generate` or
 * `trust` route.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { generateKey } from "../../lib/keys/key_files.ts";
import { authorizeKey } from "../../lib/keys/key_store.ts";
import { signToken } from "../../lib/keys/tokens.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Environment of every server: the runner's own value must not move the key store. */
const SERVER_ENV = { FRAMEWORK_AUTHORIZED_KEYS: "" };

async function call(
  url: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; json: Json }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

Deno.test("control plane: trust is checked once before it binds, never per request", async (t) => {
  await using home = await tempDir("fw-cpt-home-");
  await using root = await tempDir();
  // A harness that runs code: its runs need a trusted folder.
  const dir = await writeHarness(
    root.path,
    "coded",
    {
      model: scripted([
        { tool_calls: [{ name: "shout", arguments: { text: "hi" } }] },
        { text: "done" },
      ]),
      tools: [{ code: "tools/shout.ts#shout", description: "Shout a text" }],
    },
    {
      "tools/shout.ts":
        "export function shout(args: { text: string }): string {\n  return args.text.toUpperCase();\n}\n",
    },
  );
  const { token } = await memberToken(dir, home.path, "runner", ["run", "read"]);
  const cli = (args: string[]) => runCli(args, { home: home.path });

  await t.step("a folder never trusted is refused before binding without a terminal", async () => {
    const refused = await cli(["control-plane", dir, "--port", "0", "--json"]);
    assert.equal(refused.code, 4, refused.stderr);
    assert.equal(refused.json().error?.kind, "untrusted");
    assert.equal(refused.stdout.includes("http://"), false);
  });

  jsonOk(await cli(["trust", dir, "--json"]));
  await using server = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const first = await call(server.url, "POST", "/run", token, { input: "go" });
  assert.equal(first.json.data?.status, "success", JSON.stringify(first.json));

  await t.step("untrusting the folder while it serves: its runs go on", async () => {
    jsonOk(await cli(["trust", "--revoke", dir, "--json"]));
    const after = await call(server.url, "POST", "/run", token, { input: "again" });
    assert.equal(after.status, 200);
    assert.equal(after.json.data.status, "success", JSON.stringify(after.json.data));
    const trace = await call(server.url, "GET", `/trace/${after.json.data.run_id}`, token);
    const result = trace.json.data.events.find((e: Json) => e.type === "tool_result");
    assert.equal(result.payload.content, "HI", "the code ran");
  });

  await t.step("a trust store that cannot be read is never consulted by a request", async () => {
    await Deno.writeTextFile(join(home.path, "trust.json"), "{ not json");
    const after = await call(server.url, "POST", "/run", token, { input: "once more" });
    assert.equal(after.json.data?.status, "success", JSON.stringify(after.json));
  });

  await t.step("the next start checks again and refuses", async () => {
    await Deno.remove(join(home.path, "trust.json"));
    const refused = await cli(["control-plane", dir, "--port", "0", "--json"]);
    assert.equal(refused.code, 4, refused.stderr);
  });
});

Deno.test("control plane: --authorized-keys and FRAMEWORK_AUTHORIZED_KEYS choose the key store", async (t) => {
  await using home = await tempDir("fw-cpk-home-");
  await using root = await tempDir();
  await using elsewhere = await tempDir("fw-cpk-store-");
  const dir = await writeHarness(root.path, "keyed", { model: scripted([{ text: "ok" }]) });
  // One key in the harness's own store, another in a store elsewhere.
  const inDefault = await memberToken(dir, home.path, "default-key", ["read"]);
  const store = join(elsewhere.path, "team-keys.json");
  const key = await generateKey("elsewhere-key", join(home.path, "keys"));
  await authorizeKey(store, "elsewhere-key", key.public_key, ["read"]);
  const elsewhereToken = (await signToken({ keyPath: key.path, scopes: ["read"] })).token;

  const expect = async (url: string, allowed: string, refused: string) => {
    assert.equal((await call(url, "GET", "/stats", allowed)).status, 200);
    const no = await call(url, "GET", "/stats", refused);
    assert.equal(no.status, 401, JSON.stringify(no.json));
    assert.equal(no.json.error.kind, "unauthorized");
  };

  await t.step("by default, <harness>/.framework/authorized_keys.json", async () => {
    await using server = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
    assert.equal(
      server.info.key_store,
      join(dir, ".framework", "authorized_keys.json"),
    );
    await expect(server.url, inDefault.token, elsewhereToken);
  });

  await t.step("--authorized-keys PATH", async () => {
    await using server = await startControlPlane(dir, {
      home: home.path,
      args: ["--authorized-keys", store],
      env: SERVER_ENV,
    });
    assert.equal(server.info.key_store, store);
    await expect(server.url, elsewhereToken, inDefault.token);
  });

  await t.step("FRAMEWORK_AUTHORIZED_KEYS", async () => {
    await using server = await startControlPlane(dir, {
      home: home.path,
      env: { FRAMEWORK_AUTHORIZED_KEYS: store },
    });
    assert.equal(server.info.key_store, store);
    await expect(server.url, elsewhereToken, inDefault.token);
  });

  await t.step("the flag wins over the variable", async () => {
    await using server = await startControlPlane(dir, {
      home: home.path,
      args: ["--authorized-keys", join(dir, ".framework", "authorized_keys.json")],
      env: { FRAMEWORK_AUTHORIZED_KEYS: store },
    });
    await expect(server.url, inDefault.token, elsewhereToken);
  });
});

Deno.test("control plane defaults: one run at a time, four queued, the fifth waiting request is 503", async () => {
  await using home = await tempDir("fw-cpd-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "queue", {
    model: scripted([{ text: "slow answer", delay_ms: 400 }]),
  });
  const { token } = await memberToken(dir, home.path, "runner", ["run", "read"]);
  // No --max-concurrent-runs, no --max-queued-runs.
  await using server = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const streams: SseReader[] = [];
  const accepted: Json[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.url}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: `run ${i}` }),
      });
      assert.equal(res.status, 200, `run ${i} is admitted`);
      const sse = new SseReader(res);
      streams.push(sse);
      const [first] = await sse.until(() => true, "run_accepted");
      accepted.push(first!.data);
    }
    // One runs, four wait.
    assert.deepEqual(accepted.map((a) => a.queued), [false, true, true, true, true]);
    const refused = await call(server.url, "POST", "/run", token, { input: "one too many" });
    assert.equal(refused.status, 503, JSON.stringify(refused.json));
    assert.equal(refused.json.error.kind, "over_capacity");
    assert.match(refused.headers.get("retry-after") ?? "", /^[1-9]\d*$/);
    // Every admitted run ends with its result.
    for (const sse of streams) {
      const frames = await sse.rest();
      const result = frames.find((f) => f.event === "run_result");
      assert.equal(result?.data.status, "success");
    }
  } finally {
    for (const sse of streams) await sse.close();
  }
});

Deno.test("control plane: no package, generate or trust route", async () => {
  await using home = await tempDir("fw-cpr-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "routes", { model: scripted([{ text: "ok" }]) });
  const { token } = await memberToken(dir, home.path, "admin", ["*"]);
  await using server = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const probes: [string, string][] = [];
  for (const verb of ["package", "generate", "trust"]) {
    for (const method of ["GET", "POST", "PUT"]) {
      probes.push([method, `/${verb}`]);
      probes.push([method, `/${verb}/routes`]);
    }
  }
  probes.push(["POST", "/interface"], ["POST", "/trust/revoke"], ["GET", "/interface"]);
  for (const [method, path] of probes) {
    const res = await call(server.url, method, path, token, method === "GET" ? undefined : {});
    assert.ok(
      res.status === 404 || res.status === 405,
      `${method} ${path} answered ${res.status}: ${JSON.stringify(res.json)}`,
    );
    assert.equal(res.json.ok, false);
  }
  // Nothing was written by the probes: no package, no page, the trust store untouched.
  const files = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
  assert.deepEqual(files, [".framework", "harness.yaml"]);
});
