/**
 * `/health` is answered from a snapshot (no file or SQL work per request): it must still show the spec
 * the server would run, whoever changed it, and the request log must still get one line per request.
 */
import assert from "node:assert/strict";
import { runCli } from "../helpers/cli.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempHome } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
async function health(url: string): Promise<any> {
  const res = await fetch(`${url}/health`);
  assert.equal(res.status, 200);
  return (await res.json()).data;
}

Deno.test("GET /health follows edits made by the server itself, by another process and by hand", async () => {
  await using home = await tempHome();
  const dir = await writeHarness(home.path, "probe", {
    name: "Probe",
    model: scripted([{ text: "ok" }]),
  });
  const { token } = await memberToken(dir, home.path, "admin", ["mutate", "read"]);
  await using server = await startControlPlane(dir, { home: home.path });
  const first = await health(server.url);
  assert.equal(first.name, "Probe");
  assert.equal(await health(server.url).then((h) => h.spec_version), first.spec_version);

  // Through the server: the very next probe shows it (no waiting for a file event).
  const set = await fetch(`${server.url}/set`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ path: "description", value: "edited over HTTP" }),
  });
  const setBody = await set.text();
  assert.equal(set.status, 200, setBody);
  const second = await health(server.url);
  assert.equal(second.spec_version, JSON.parse(setBody).data.spec_version);
  assert.notEqual(second.spec_version, first.spec_version);

  // By another process (the CLI): seen within the snapshot's bound (a file event, else its age).
  const cli = await runCli(["set", dir, "name", "Probe 3", "--string", "--json"], {
    home: home.path,
  });
  assert.equal(cli.code, 0, cli.stderr);
  let third = await health(server.url);
  const deadline = Date.now() + 3000;
  while (third.name !== "Probe 3" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    third = await health(server.url);
  }
  assert.equal(third.name, "Probe 3");

  // By hand, in place (same inode): seen the same way.
  const text = await Deno.readTextFile(`${dir}/harness.yaml`);
  await Deno.writeTextFile(`${dir}/harness.yaml`, text.replace("Probe 3", "Probe 4"));
  let fourth = await health(server.url);
  const deadline2 = Date.now() + 3000;
  while (fourth.name !== "Probe 4" && Date.now() < deadline2) {
    await new Promise((r) => setTimeout(r, 20));
    fourth = await health(server.url);
  }
  assert.equal(fourth.name, "Probe 4");

  // One log line per probe, written without blocking.
  await server.stop();
  const probes = server.stderr().filter((l) => / GET \/health 200 \d+ms key=-$/.test(l));
  assert.ok(probes.length >= 5, `a log line per /health request (got ${probes.length})`);
});
