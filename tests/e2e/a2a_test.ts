/**
 * A control plane as an A2A agent, driven by the official `@a2a-js/sdk` client, unmodified (its card
 * fetched from the well-known path, JSON-RPC, the token as the `Authorization` header per call): the
 * card; a message sent and answered `completed`; a streamed one (the task, `working` status updates,
 * the output artifact, then `completed`); a second message with the same context id continues the
 * thread (its model call holds the first turn); a task read back; a slow run cancelled (`canceled`,
 * its journal has `run_stopped`); and 401 without a token.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ClientFactory } from "@a2a-js/sdk/client";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A user message, as the SDK's types spell it. */
function userMessage(text: string, contextId = ""): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{
      content: { $case: "text", value: text },
      metadata: undefined,
      filename: "",
      mediaType: "",
    }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const send = (text: string, contextId = "") => ({
  tenant: "",
  message: userMessage(text, contextId),
  configuration: undefined,
  metadata: undefined,
});

/** The text of a task's artifacts. */
function artifactText(task: Json): string {
  return task.artifacts.flatMap((a: Json) => a.parts).map((p: Json) => p.content?.value ?? "")
    .join("");
}

Deno.test("the official A2A client against a control plane", async (t) => {
  await using home = await tempDir("fw-a2a-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", {
    description: "Answers questions about orders",
    model: scripted([{ text: "Hello there." }], {
      scenarios: [
        { match: "^one", replies: [{ text: "Answer one." }] },
        { match: "^two", replies: [{ text: "Answer two." }] },
        { match: "^slow", replies: [{ text: "Slow answer.", delay_ms: 30_000 }] },
      ],
    }),
    skills: [{ name: "orders", description: "Finds an order", instructions: "Look it up." }],
  });
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "2"],
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const client = await new ClientFactory().createFromUrl(plane.url);
  const auth = { serviceParameters: { authorization: `Bearer ${alice.token}` } };
  const trace = async (runId: string): Promise<Json> => {
    const res = await fetch(`${plane.url}/trace/${runId}`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.data;
  };
  let firstTask: Json;

  await t.step("the agent card, fetched without a token", async () => {
    const res = await fetch(`${plane.url}/.well-known/agent-card.json`);
    assert.equal(res.status, 200);
    const card = await res.json();
    assert.equal(card.name, "talker");
    assert.equal(card.description, "Answers questions about orders");
    assert.match(card.version, /^[0-9a-f]{64}$/);
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${plane.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ]);
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(card.defaultInputModes, ["text/plain"]);
    assert.deepEqual(card.defaultOutputModes, ["text/plain"]);
    assert.deepEqual(card.skills.map((s: Json) => s.id), ["orders"]);
    assert.equal(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme, "Bearer");
    // The client read the same card.
    const read = await client.getAgentCard();
    assert.equal(read.name, "talker");
    assert.equal(client.protocolVersion, "1.0");
  });

  await t.step("send: a message is a run, answered completed", async () => {
    const task: Json = await client.sendMessage(send("one: where is my order?"), auth);
    assert.match(task.id, /^run_[0-9A-Z]{26}$/);
    assert.match(task.contextId, /^thr_/);
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(task), "Answer one.");
    assert.equal(task.metadata.status, "success");
    assert.equal(task.metadata.harness_id, "talker");
    assert.equal(typeof task.metadata.cost_usd, "number");
    firstTask = task;
    const t1 = await trace(task.id);
    assert.equal(t1.events.at(-1).type, "run_finished");
  });

  await t.step("stream: the task, working updates, then completed", async () => {
    const events: Json[] = [];
    for await (const e of client.sendMessageStream(send("two: and the other one?"), auth)) {
      events.push(e.payload);
    }
    const cases = events.map((e) => e.$case);
    assert.equal(cases[0], "task");
    const updates = events.filter((e) => e.$case === "statusUpdate").map((e) =>
      e.value.status.state
    );
    assert.ok(updates.length >= 2, JSON.stringify(cases));
    assert.ok(updates.slice(0, -1).every((s) => s === TaskState.TASK_STATE_WORKING));
    assert.equal(updates.at(-1), TaskState.TASK_STATE_COMPLETED);
    assert.equal(cases.at(-1), "statusUpdate");
    const artifact = events.find((e) => e.$case === "artifactUpdate");
    assert.equal(artifact.value.artifact.parts[0].content.value, "Answer two.");
    const taskId = events[0].value.id;
    assert.ok(events.every((e) => (e.value.taskId ?? e.value.id) === taskId));
  });

  await t.step("the same context id continues the thread", async () => {
    const task: Json = await client.sendMessage(send("two: continue", firstTask.contextId), auth);
    assert.equal(task.contextId, firstTask.contextId);
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    const t2 = await trace(task.id);
    const started = t2.events.find((e: Json) => e.type === "run_started").payload;
    assert.equal(started.thread_id, firstTask.contextId);
    // The model was given the first turn.
    const call = t2.events.find((e: Json) => e.type === "model_call");
    assert.deepEqual(call.payload.append, [
      { role: "user", content: "one: where is my order?" },
      { role: "assistant", content: "Answer one." },
      { role: "user", content: "two: continue" },
    ]);
    // An unknown context is refused, saying what to do.
    await assert.rejects(
      client.sendMessage(send("one", "thr_unknown"), auth),
      (e: Error) => /Unknown context/.test(e.message) && /omit contextId/.test(e.message),
    );
  });

  await t.step("get: a task read back", async () => {
    const task: Json = await client.getTask({ tenant: "", id: firstTask.id }, auth);
    assert.equal(task.id, firstTask.id);
    assert.equal(task.contextId, firstTask.contextId);
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(task), "Answer one.");
    await assert.rejects(
      client.getTask({ tenant: "", id: "run_00000000000000000000000000" }, auth),
      (e: Error) => e.name === "TaskNotFoundError",
    );
  });

  await t.step("cancel: a slow run stops now, canceled, its journal has run_stopped", async () => {
    const stream = client.sendMessageStream(send("slow: take your time"), auth);
    let taskId = "";
    for await (const e of stream) {
      const p: Json = e.payload;
      if (p.$case === "task") taskId = p.value.id;
      if (p.$case === "statusUpdate" && p.value.status.state === TaskState.TASK_STATE_WORKING) {
        break;
      }
    }
    assert.ok(taskId);
    const live: Json = await client.getTask({ tenant: "", id: taskId }, auth);
    assert.equal(live.status.state, TaskState.TASK_STATE_WORKING);
    const canceled: Json = await client.cancelTask(
      { tenant: "", id: taskId, metadata: undefined },
      auth,
    );
    assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED);
    assert.equal(canceled.metadata.status, "error");
    assert.equal(canceled.metadata.reason, "stopped");
    const read: Json = await client.getTask({ tenant: "", id: taskId }, auth);
    assert.equal(read.status.state, TaskState.TASK_STATE_CANCELED);
    const t3 = await trace(taskId);
    const stopped = t3.events.find((e: Json) => e.type === "run_stopped");
    assert.ok(stopped, "run_stopped is journalled");
    assert.equal(stopped.payload.by, `a2a:${alice.key_id}`);
    assert.equal(t3.integrity.ok, true);
    const bytes = await Deno.readFile(`${dir}/.framework/traces/${taskId}.jsonl`);
    assert.equal(verifyJournal(bytes).ok, true);
    // An ended task cannot be cancelled.
    await assert.rejects(
      client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, auth),
      (e: Error) => e.name === "TaskNotCancelableError",
    );
  });

  await t.step("401 without a token", async () => {
    await assert.rejects(client.sendMessage(send("one")), (e: Error) => /401/.test(e.message));
    const res = await fetch(`${plane.url}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
  });
});
