/**
 * The harness's page is read through the one safe-path check. `GET /` of the real control plane
 * needs no token, so a page that is a link — a symlink to `.env` or to `/proc/self/environ` (the
 * server's whole environment), a hard link to `.env`, a linked `interfaces/` folder — would answer
 * its bytes to anyone; each is refused with a message that says how to write a fresh page, on the
 * control plane and in the workbench's Use tab route alike, and `framework generate --force` then
 * replaces the link with a page without touching what it pointed at.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const SECRET = "OPENAI_API_KEY=sk-linked-page-secret";
const ENVIRON = "sk-environ-of-the-server";
const PAGE = "interfaces/default/index.html";

/** The ways a page can be a link, each set up on a fresh `interfaces/` folder. */
const LINKS: [string, (dir: string, outside: string) => Promise<void>][] = [
  ["a symlink to .env", (dir) => Deno.symlink("../../.env", join(dir, PAGE))],
  ["a symlink to /proc/self/environ", (dir) => Deno.symlink("/proc/self/environ", join(dir, PAGE))],
  ["a hard link to .env", (dir) => Deno.link(join(dir, ".env"), join(dir, PAGE))],
  ["a symlinked interfaces/ folder", async (dir, outside) => {
    await Deno.remove(join(dir, "interfaces"), { recursive: true });
    await Deno.mkdir(join(outside, "default"), { recursive: true });
    await Deno.writeTextFile(join(outside, "default/index.html"), `<p>${SECRET}</p>`);
    await Deno.symlink(outside, join(dir, "interfaces"));
  }],
];

async function linkedHarness(root: string): Promise<string> {
  return await writeHarness(root, "paged", { model: scripted([{ text: "ok" }]) }, {
    ".env": `${SECRET}\n`,
  });
}

async function resetInterfaces(dir: string): Promise<void> {
  await Deno.remove(join(dir, "interfaces"), { recursive: true }).catch(() => {});
  await Deno.mkdir(join(dir, "interfaces/default"), { recursive: true });
}

Deno.test("control plane: GET / refuses a linked page and answers none of its bytes", async () => {
  await using home = await tempDir("fw-lp-home-");
  await using root = await tempDir("fw-lp-root-");
  const dir = await linkedHarness(root.path);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "", PLANTED_ENVIRON: ENVIRON },
  });
  for (const [what, link] of LINKS) {
    await resetInterfaces(dir);
    await link(dir, join(root.path, "outside"));
    const res = await fetch(`${plane.url}/`);
    const body = await res.text();
    assert.equal(res.status, 400, `${what}: ${body}`);
    assert.ok(!body.includes("sk-linked") && !body.includes(ENVIRON), `${what}: nothing leaks`);
    const error = JSON.parse(body).error;
    assert.equal(error.kind, "bad_input", what);
    assert.match(error.message, /page is refused: Refused path/, what);
    assert.match(error.message, /framework generate <harness folder> --force/, what);
    assert.ok(!error.message.includes(dir), `${what}: no server path in the message`);
    await Deno.remove(join(root.path, "outside"), { recursive: true }).catch(() => {});
  }
  // No page at all: the one made from the spec, as before.
  await resetInterfaces(dir);
  const fresh = await fetch(`${plane.url}/`);
  assert.equal(fresh.status, 200);
  assert.match(await fresh.text(), /<html/i);
});

Deno.test("generate --force replaces a linked page and leaves what it pointed at alone", async () => {
  await using home = await tempDir("fw-lp-home-");
  await using root = await tempDir("fw-lp-root-");
  const dir = await linkedHarness(root.path);
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: root.path });
  await resetInterfaces(dir);
  await Deno.link(join(dir, ".env"), join(dir, PAGE));
  jsonOk(await cli(["generate", dir, "--force", "--json"]));
  assert.equal(await Deno.readTextFile(join(dir, ".env")), `${SECRET}\n`, ".env is unchanged");
  assert.equal((await Deno.stat(join(dir, ".env"))).nlink, 1, "the link is gone");
  // A linked folder on the way is refused: the page is never written outside.
  await resetInterfaces(dir);
  const outside = join(root.path, "outside");
  await Deno.mkdir(join(outside, "default"), { recursive: true });
  await Deno.remove(join(dir, "interfaces"), { recursive: true });
  await Deno.symlink(outside, join(dir, "interfaces"));
  const refused = await cli(["generate", dir, "--force", "--json"]);
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  assert.match(refused.json().error!.message, /outside the harness folder/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(join(outside, "default"))), []);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  await Deno.remove(join(dir, "interfaces"));
  jsonOk(await cli(["generate", dir, "--json"]));
  const page = await fetch(`${plane.url}/`);
  assert.equal(page.status, 200);
  assert.ok(!(await page.text()).includes("sk-linked"));
});

Deno.test("workbench: the Use tab's page route refuses a linked page", async () => {
  await using home = await tempDir("fw-lp-home-");
  await using cwd = await tempDir("fw-lp-cwd-");
  const dir = await linkedHarness(join(cwd.path, "harnesses"));
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { PLANTED_ENVIRON: ENVIRON },
  });
  for (const [what, link] of LINKS.slice(0, 3)) {
    await resetInterfaces(dir);
    await link(dir, join(cwd.path, "outside"));
    const res = await fetch(`${wb.url}/api/harnesses/paged/interface`);
    const body = await res.text();
    assert.equal(res.status, 400, `${what}: ${body}`);
    assert.ok(!body.includes("sk-linked") && !body.includes(ENVIRON), `${what}: nothing leaks`);
    assert.match(JSON.parse(body).error.message, /page is refused/, what);
  }
  await resetInterfaces(dir);
  const made = await workbenchCall(wb, "POST", "/api/harnesses/paged/interface", {});
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const page = await fetch(`${wb.url}/api/harnesses/paged/interface`);
  assert.equal(page.status, 200);
  assert.ok(!(await page.text()).includes("sk-linked"));
});
