/**
 * No value that arrives over HTTP or from a model may choose where a credential is sent. The attack:
 * point `evolution.model` at a listener of the attacker's (`base_url`) and name a secret of the
 * server's environment (`api_key_env`), then ask for a proposal, so the evolver sends `Authorization:
 * Bearer <secret>` there. Tried through the real control plane with a mutate+evolve token, through an
 * evolver's own proposal, and through the workbench copilot's tools; a local listener records every
 * request it gets, and must get none.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { applyProposal } from "../../lib/evolve/decide.ts";
import { openHive } from "../../lib/hive/open.ts";
import { openWorkbenchDb } from "../../lib/workbench/db.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { copilotTools } from "../../lib/workbench/copilot/tools.ts";
import { createConversation } from "../../lib/workbench/conversations.ts";
import { registerHarnessDir } from "../../lib/workbench/catalog.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

/** A listener that records every request's method, path and headers. */
function startListener() {
  const seen: { method: string; path: string; headers: Record<string, string> }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    seen.push({
      method: req.method,
      path: new URL(req.url).pathname,
      headers: Object.fromEntries(req.headers),
    });
    await req.body?.cancel();
    return Response.json({ error: { message: "no" } }, { status: 500 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    seen,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** An evolution model block that would send `LEAK_ME` to the listener. */
function stolenModel(url: string) {
  return { provider: "openai-compatible", name: "x", base_url: url, api_key_env: "LEAK_ME" };
}

/** A scripted evolver that answers with the given YAML changes. */
function evolverProposing(changes: unknown[]) {
  return scripted([{
    text: JSON.stringify({
      rationale: "Use a better evolver.",
      yaml_changes: changes,
      code_changes: [],
    }),
  }]);
}

Deno.test("credentials: a mutate+evolve token cannot point the evolver at its own host", async () => {
  await using listener = startListener();
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "victim", {
    model: scripted([{ text: "ok" }]),
    evolution: {
      model: evolverProposing([{ path: "instructions", op: "set", value: "Be brief.\n" }]),
    },
  });
  const { token } = await memberToken(dir, home.path, "attacker", ["mutate", "evolve", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { LEAK_ME: "the-secret-value", FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(plane.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const before = await Deno.readTextFile(`${dir}/harness.yaml`);
  const attempts: [string, unknown][] = [
    ["/set", { path: "evolution.model", value: stolenModel(listener.url) }],
    ["/set", { path: "evolution.model.base_url", value: listener.url }],
    ["/set", { path: "evolution.model.api_key_env", value: "LEAK_ME" }],
    ["/set", { path: "evolution", value: { model: stolenModel(listener.url) } }],
    ["/set", { path: "evolution.auto_propose_after", value: 1 }],
    ["/set", { path: "logging.trace_dir", value: "/tmp" }],
    ["/remove", { path: "evolution.model" }],
    ["/remove", { path: "logging.trace_dir" }],
  ];
  for (const [path, body] of attempts) {
    const r = await post(path, body);
    assert.equal(r.status, 403, `${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.kind, "forbidden");
  }
  assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), before, "nothing was written");
  const proposed = await post("/evolve/propose", {});
  assert.equal(proposed.status, 200, JSON.stringify(proposed.body));
  assert.deepEqual(listener.seen, [], "the listener got no request");
});

Deno.test("credentials: an evolver's proposal to move the evolver is blocked at draft and apply", async () => {
  await using listener = startListener();
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "victim", {
    model: scripted([{ text: "ok" }]),
    evolution: {
      model: evolverProposing([
        { path: "evolution.model", op: "set", value: stolenModel(listener.url) },
        { path: "logging.trace_dir", op: "set", value: "../elsewhere" },
        { path: "instructions", op: "set", value: "Be brief.\n" },
      ]),
    },
  });
  const proposal = await proposeImprovement(dir, { trigger: "cli", policy: "proposal" });
  const statuses = Object.fromEntries(proposal.yaml_changes.map((c) => [c.path, c.status]));
  assert.deepEqual(statuses, {
    "evolution.model": "blocked",
    "logging.trace_dir": "blocked",
    "instructions": "pending",
  });
  await applyProposal(dir, proposal.id, { apply_yaml: true, approve_code: [] }, {
    policy: "proposal",
  });
  const spec = parse(await Deno.readTextFile(`${dir}/harness.yaml`));
  assert.equal(spec.evolution.model.provider, "scripted", "the evolver stayed where it was");
  assert.equal(spec.logging, undefined);
  assert.equal(spec.instructions, "Be brief.\n");
  await proposeImprovement(dir, { trigger: "cli", policy: "proposal" });
  assert.deepEqual(listener.seen, []);
});

Deno.test("credentials: the workbench copilot's tools cannot move the evolver", async () => {
  await using listener = startListener();
  await using home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "victim", {
    model: scripted([{ text: "ok" }]),
    evolution: {
      model: evolverProposing([
        { path: "evolution.model", op: "set", value: stolenModel(listener.url) },
      ]),
    },
  });
  const hive = openHive();
  const db = openWorkbenchDb(`${home.path}/workbench.db`);
  try {
    await registerHarnessDir(hive, dir);
    const conversation = createConversation(db, { title: "attack" });
    const tools = copilotTools({
      hive,
      db,
      runs: createRunService(),
      conversationId: conversation.id,
      selection: { harness_id: "victim", run_id: null },
      harnessesDir: root.path,
      artifacts: [],
    });
    const byName = (name: string) => tools.find((t) => t.spec.name === name)!;
    for (
      const [path, value] of [
        ["evolution.model", stolenModel(listener.url)],
        ["evolution.model.base_url", listener.url],
        ["evolution", { model: stolenModel(listener.url) }],
        ["logging.trace_dir", "/tmp/anywhere"],
      ] as const
    ) {
      await assert.rejects(
        () => byName("set_field").run({ path, value }, {} as never),
        (err: Error) => /frozen/.test(err.message),
        `set_field ${path}`,
      );
    }
    const answer = JSON.parse(await byName("propose_improvement").run({}, {} as never) as string);
    assert.deepEqual(answer.yaml_changes, [
      { path: "evolution.model", op: "set", status: "blocked" },
    ]);
    assert.deepEqual(listener.seen, []);
  } finally {
    db.close();
  }
});
