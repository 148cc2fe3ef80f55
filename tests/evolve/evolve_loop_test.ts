import assert from "node:assert/strict";
import { readConstructionLog } from "../../lib/construct/construction_log.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

/** The evolver's scripted answer: one YAML change and two code changes. */
const ANSWER = {
  rationale: "Runs fail on order lookups; give the model a lookup helper and a tighter turn limit.",
  yaml_changes: [{ path: "limits.max_turns", op: "set", value: 3 }],
  code_changes: [
    {
      path: "tools/lookup.ts",
      content: "export function lookup(args: { id: number }) {\n  return { id: args.id };\n}\n",
    },
    { path: "workspace/policy.md", content: "# Refund policy\n\nAsk for the order id first.\n" },
  ],
};

Deno.test("the whole evolution loop offline: failing runs, propose over HTTP and CLI, review, apply YAML, apply one of two code changes, reject", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "shop", {
    model: {
      provider: "scripted",
      max_retries: 0,
      replies: [{ text: "Sorry, I cannot find it." }],
    },
    verify: { validators: [{ builtin: "regex", name: "order-id", pattern: "order #\\d+" }] },
    limits: { max_turns: 5 },
    evolution: {
      objectives: ["Always mention the order number"],
      model: { provider: "scripted", replies: [{ text: JSON.stringify(ANSWER) }] },
    },
  }, { "workspace/policy.md": "# Old policy\n" });
  const cli = (args: string[]) => runCli(args, { home: home.path });

  // Three failing runs give the evidence.
  const runIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await cli(["run", dir, "--input", `where is my order ${i}?`, "--approve", "--json"]);
    assert.equal(r.code, 3, r.stderr);
    runIds.push(r.json().data.run_id);
  }

  await using server = await startControlPlane(dir, { home: home.path });
  const { token } = await memberToken(dir, home.path, "evolver", ["evolve", "read"]);
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: await res.json() };
  };
  const evolved = async () => (await http("GET", "/health")).json.data.evolved;
  assert.equal(await evolved(), 0);

  let httpProposal: string;
  await t.step("propose over HTTP: queued with the evidence, never applied", async () => {
    const before = await Deno.readTextFile(`${dir}/harness.yaml`);
    const r = await http("POST", "/evolve/propose", { objective: "Mention the order number" });
    assert.equal(r.status, 200);
    const p = r.json.data;
    httpProposal = p.id;
    assert.match(p.id, /^prop_[0-9A-Z]{26}$/);
    assert.equal(p.harness_id, "shop");
    assert.equal(p.status, "queued");
    assert.equal(p.trigger, "http");
    assert.equal(p.rationale, ANSWER.rationale);
    assert.deepEqual(p.evidence.run_ids.sort(), [...runIds].sort());
    assert.deepEqual(
      p.evidence.failure_signatures.map((
        f: { signature: string; count: number },
      ) => [f.signature, f.count]),
      [
        ["verify_failed:regex:order-id", 3],
      ],
    );
    assert.deepEqual(p.yaml_changes, [{
      path: "limits.max_turns",
      op: "set",
      value: 3,
      status: "pending",
      old: 5,
    }], "the value it had when drafted, for old → new");
    assert.deepEqual(p.code_changes.map((c: { id: string; status: string }) => [c.id, c.status]), [[
      "c1",
      "pending",
    ], ["c2", "pending"]]);
    assert.match(
      p.code_changes[1].diff,
      /^--- a\/workspace\/policy\.md\n\+\+\+ b\/workspace\/policy\.md\n@@/,
    );
    assert.equal(p.decided_at, null);
    assert.equal(
      await Deno.readTextFile(`${dir}/harness.yaml`),
      before,
      "proposing applies nothing",
    );
  });

  let cliProposal: string;
  await t.step("propose with the CLI", async () => {
    const p = jsonOk(
      await cli(["evolve", "propose", dir, "--objective", "Fewer failures", "--json"]),
    );
    cliProposal = p.id;
    assert.equal(p.trigger, "cli");
    assert.equal(p.objective, "Fewer failures");
  });

  await t.step("list and show, over HTTP and with the CLI", async () => {
    const list = await http("GET", "/proposals?status=queued");
    assert.deepEqual(list.json.data.proposals.map((p: { id: string }) => p.id), [
      cliProposal,
      httpProposal,
    ]);
    const shown = await http("GET", `/proposals/${httpProposal}`);
    assert.equal(
      shown.json.data.evidence.failure_signatures[0].signature,
      "verify_failed:regex:order-id",
    );
    const human = await cli(["proposals", "show", dir, httpProposal]);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /Rationale: Runs fail on order lookups/);
    assert.match(human.stdout, /verify_failed:regex:order-id/);
    assert.match(human.stdout, /c2 \[pending\] workspace\/policy\.md/);
    const cliList = jsonOk(await cli(["proposals", "list", dir, "--status", "queued", "--json"]));
    assert.equal(cliList.proposals.length, 2);
  });

  await t.step("apply the YAML changes only (over HTTP): code changes stay pending", async () => {
    const r = await http("POST", `/proposals/${httpProposal}/apply`, {
      apply_yaml: true,
      approve_code: [],
    });
    assert.equal(r.status, 200);
    const p = r.json.data;
    assert.equal(p.status, "partially_applied");
    assert.equal(p.yaml_changes[0].status, "applied");
    assert.deepEqual(p.code_changes.map((c: { status: string }) => c.status), [
      "pending",
      "pending",
    ]);
    assert.equal(jsonOk(await cli(["get", dir, "limits.max_turns", "--json"])).value, 3);
    assert.equal(await evolved(), 1, "the first application counts");
    const versions = listSpecVersions(openHive(), byId("shop"));
    assert.equal(versions[0]!.source, `proposal:${httpProposal}`);
  });

  await t.step("apply one of two code changes: the other stays pending", async () => {
    const r = await http("POST", `/proposals/${httpProposal}/apply`, {
      approve_code: ["c2"],
      apply_yaml: false,
    });
    assert.equal(r.status, 200);
    const p = r.json.data;
    assert.equal(p.status, "partially_applied");
    assert.deepEqual(p.code_changes.map((c: { id: string; status: string }) => [c.id, c.status]), [[
      "c1",
      "pending",
    ], ["c2", "applied"]]);
    assert.equal(
      await Deno.readTextFile(`${dir}/workspace/policy.md`),
      ANSWER.code_changes[1]!.content,
    );
    await assert.rejects(Deno.stat(`${dir}/tools/lookup.ts`), Deno.errors.NotFound);
    assert.equal(await evolved(), 1, "only the first application counts");
  });

  await t.step(
    "the last pending code change, with the CLI; then the proposal is closed (409)",
    async () => {
      const p = jsonOk(
        await cli(["proposals", "apply", dir, httpProposal, "--approve-code", "c1", "--json"]),
      );
      assert.equal(p.status, "applied");
      assert.equal(
        await Deno.readTextFile(`${dir}/tools/lookup.ts`),
        ANSWER.code_changes[0]!.content,
      );
      const again = await http("POST", `/proposals/${httpProposal}/apply`, {
        approve_code: ["c1"],
      });
      assert.equal(again.status, 409);
      assert.equal(again.json.error.kind, "conflict");
    },
  );

  await t.step("reject the other proposal with a reason", async () => {
    const missing = await http("POST", `/proposals/${cliProposal}/reject`, {});
    assert.equal(missing.status, 400);
    const r = await http("POST", `/proposals/${cliProposal}/reject`, {
      reason: "Covered by the other proposal",
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.data.status, "rejected");
    assert.equal(r.json.data.reason, "Covered by the other proposal");
    assert.ok(r.json.data.code_changes.every((c: { status: string }) => c.status === "skipped"));
    const rejected = jsonOk(
      await cli(["proposals", "list", dir, "--status", "rejected", "--json"]),
    );
    assert.deepEqual(rejected.proposals.map((p: { id: string }) => p.id), [cliProposal]);
    const applyRejected = await http("POST", `/proposals/${cliProposal}/apply`, {
      apply_yaml: true,
    });
    assert.equal(applyRejected.status, 409);
    assert.equal(await evolved(), 1, "a rejection does not count");
  });

  await t.step("the construction log shows each step", async () => {
    const log = await readConstructionLog(dir);
    const fromProposals = log.filter((e) => e.actor === `proposal:${httpProposal}`);
    assert.deepEqual(fromProposals.map((e) => [e.op, e.path, e.old, e.new]), [[
      "proposal",
      "limits.max_turns",
      5,
      3,
    ]]);
  });
});

Deno.test("a harness made by `framework init` walks the whole loop offline", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const cli = (args: string[]) => runCli(args, { home: home.path });
  const dir = jsonOk(await cli(["init", `${tmp.path}/hello`, "--json"])).dir;
  const p = jsonOk(await cli(["evolve", "propose", dir, "--json"]));
  assert.equal(p.status, "queued");
  assert.ok(p.rationale.length > 10);
  assert.ok(p.yaml_changes.length >= 1 && p.code_changes.length >= 1);
  assert.ok(
    [...p.yaml_changes, ...p.code_changes].every((c: { status: string }) => c.status === "pending"),
  );
  const applied = jsonOk(
    await cli([
      "proposals",
      "apply",
      dir,
      p.id,
      "--yaml",
      ...p.code_changes.flatMap((c: { id: string }) => ["--approve-code", c.id]),
      "--json",
    ]),
  );
  assert.equal(applied.status, "applied");
  assert.equal((await cli(["validate", dir])).code, 0, "the harness is still valid");
  const run = await cli(["run", dir, "--input", "hi", "--approve"]);
  assert.equal(run.code, 0, run.stderr);
});
