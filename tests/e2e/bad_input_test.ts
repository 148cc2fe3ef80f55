/**
 * Bad input answers 400 (exit 2) in the ok wrapper and changes nothing, in the real processes: a
 * malformed `Host` header (control plane and workbench; a `Host` holding a path never picks the
 * route), a skill named like an index, a 300-character harness id, template names that every object
 * inherits (`constructor`, `toString`, `hasOwnProperty`) and a `__proto__` path segment.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { runCli } from "../helpers/cli.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

/** Sends one raw HTTP/1.1 request and returns the status code and the body text. */
async function rawRequest(
  url: string,
  host: string,
  path = "/health",
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buf = new Uint8Array(8192);
    for (let n; (n = await conn.read(buf)) !== null;) {
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    conn.close();
  }
}

/** The body of a chunked or plain response, as JSON (the ok wrapper). */
function okWrapper(body: string): { ok: boolean; error?: { kind: string; message: string } } {
  const start = body.indexOf("{");
  return JSON.parse(body.slice(start, body.lastIndexOf("}") + 1));
}

const MALFORMED_HOSTS = [
  "exa mple",
  "[::1",
  "a/b",
  "x/stats?",
  "127.0.0.1:99999",
  "",
  "a@b",
  "%zz",
];

Deno.test("control plane: a malformed Host is 400 in the ok wrapper and never picks a route", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "h", { model: scripted([{ text: "ok" }]) });
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  // A well-formed Host first: the one the server has seen last does not let another through.
  assert.equal((await rawRequest(plane.url, new URL(plane.url).host)).status, 200);
  for (const host of MALFORMED_HOSTS) {
    const r = await rawRequest(plane.url, host);
    assert.equal(r.status, 400, `Host ${JSON.stringify(host)}: ${r.body}`);
    const body = okWrapper(r.body);
    assert.equal(body.ok, false);
    assert.equal(body.error?.kind, "bad_input");
    assert.match(body.error!.message, /Host header/);
  }
  const fine = await rawRequest(plane.url, new URL(plane.url).host);
  assert.equal(fine.status, 200);
});

Deno.test("workbench: a malformed Host is 400 in the ok wrapper, not a plain-text 500", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  for (const host of MALFORMED_HOSTS) {
    for (const path of ["/", "/api/harnesses"]) {
      const r = await rawRequest(wb.url, host, path);
      assert.equal(r.status, 400, `Host ${JSON.stringify(host)} ${path}: ${r.body}`);
      assert.equal(okWrapper(r.body).error?.kind, "bad_input");
    }
  }
});

Deno.test('control plane: /remove {kind: skill, name: "0"} never removes the first skill', async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const skill = (name: string) => ({ name, description: `${name} d`, instructions: "i" });
  const dir = await writeHarness(root.path, "h", {
    model: scripted([{ text: "ok" }]),
    skills: [skill("refunds"), skill("returns")],
  });
  const { token } = await memberToken(dir, home.path, "editor", ["mutate"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const remove = async (body: unknown) => {
    const res = await fetch(`${plane.url}/remove`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const before = await Deno.readTextFile(`${dir}/harness.yaml`);
  const refused = await remove({ kind: "skill", name: "0" });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.error.message, /No entry named "0"/);
  assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), before);

  // With a skill really named "0", the name wins over the index.
  await writeHarness(root.path, "h", {
    model: scripted([{ text: "ok" }]),
    skills: [skill("refunds"), skill("0"), skill("returns")],
  });
  const byName = await remove({ kind: "skill", name: "0" });
  assert.equal(byName.status, 200, JSON.stringify(byName.body));
  const spec1 = parse(await Deno.readTextFile(`${dir}/harness.yaml`));
  assert.deepEqual(spec1.skills.map((s: { name: string }) => s.name), ["refunds", "returns"]);
  const third = await remove({ kind: "skill", name: "1" });
  assert.equal(third.status, 400, "a name is never read as an index");
});

Deno.test("workbench: a 300-character id and inherited template names are 400, and nothing is made", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const long = await workbenchCall(wb, "POST", "/api/harnesses", { id: "a".repeat(300) });
  assert.equal(long.status, 400, JSON.stringify(long.json));
  assert.match(long.json.error.message, /at most 64 characters/);
  for (const template of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
    const r = await workbenchCall(wb, "POST", "/api/harnesses", { id: "x", template });
    assert.equal(r.status, 400, `${template}: ${JSON.stringify(r.json)}`);
    assert.match(r.json.error.message, /Unknown template/);
  }
  const lookup = await workbenchCall(wb, "GET", `/api/harnesses/${"a".repeat(300)}`);
  assert.equal(lookup.status, 404);
  const entries = [];
  for await (const e of Deno.readDir(cwd.path)) entries.push(e.name);
  assert.deepEqual(entries.filter((n) => n !== "harnesses"), []);
  const made: string[] = [];
  try {
    for await (const e of Deno.readDir(`${cwd.path}/harnesses`)) made.push(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  assert.deepEqual(made, [], "no harness folder was made");
});

Deno.test("CLI: inherited template names and __proto__ paths are bad input (exit 2)", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  for (const template of ["constructor", "toString", "hasOwnProperty"]) {
    const r = await runCli(["init", `${root.path}/t`, "--template", template, "--json"], {
      home: home.path,
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.json().error?.kind, "bad_input");
    await assert.rejects(Deno.stat(`${root.path}/t`), Deno.errors.NotFound);
  }
  const dir = await writeHarness(root.path, "h", { model: scripted([{ text: "ok" }]) });
  const proto = await runCli(["set", dir, "extensions.__proto__.polluted", "1", "--json"], {
    home: home.path,
  });
  assert.equal(proto.code, 2, proto.stdout + proto.stderr);
  const ctor = await runCli(["remove", dir, "extensions.constructor", "--json"], {
    home: home.path,
  });
  assert.equal(ctor.code, 2, ctor.stdout + ctor.stderr);
  assert.match(ctor.json().error!.message, /nothing is set there/);
  const set = await runCli(["set", dir, "extensions.constructor", "1", "--json"], {
    home: home.path,
  });
  assert.equal(set.code, 0, set.stdout + set.stderr);
  assert.deepEqual(parse(await Deno.readTextFile(`${dir}/harness.yaml`)).extensions, {
    constructor: 1,
  });
});
