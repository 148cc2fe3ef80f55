/**
 * The OpenAI-compatible endpoints on a real control plane, driven by the official `openai` npm
 * client, unmodified (`baseURL: <plane>/v1`, `apiKey: <token>`): the model list; chat completions,
 * plain (with the caller's system message added after the harness's instructions) and streamed (the
 * concatenated deltas are the run's output, the usage the journal's tokens); responses, plain,
 * streamed, continued with `previous_response_id` (the second run's first model call holds the first
 * turn) and read back; each error class the client raises (401, 403 for a read-only key creating,
 * 404 for another model, 400 for `tools`, 429 with `Retry-After` while the only slot is busy); and
 * no request field can pick a provider, an address or a file. Every run is in `/trace` and its
 * journal verifies.
 *
 * @module
 */

import assert from "node:assert/strict";
import OpenAI from "openai";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SERVER_ENV = { FRAMEWORK_AUTHORIZED_KEYS: "" };

/** A scripted model answering by the input's first word; `slow…` takes its time. */
function model() {
  return scripted([{ text: "Hello there." }], {
    scenarios: [
      {
        match: "^one",
        replies: [{ text: "Answer one.", usage: { input_tokens: 30, output_tokens: 3 } }],
      },
      { match: "^two", replies: [{ text: "Answer two." }] },
      { match: "^slow", replies: [{ text: "Slow answer.", delay_ms: 2000 }] },
    ],
  });
}

Deno.test("the official openai client against a control plane's /v1/", async (t) => {
  await using home = await tempDir("fw-oai-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", {
    instructions: "Be kind.",
    model: model(),
  });
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  const reader = await memberToken(dir, home.path, "reader", ["read"]);
  // One slot and no queue: a second run while one goes is refused at once (the 429 step).
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "1", "--max-queued-runs", "0"],
    env: SERVER_ENV,
  });
  const client = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: alice.token });
  const runIds: string[] = [];
  const trace = async (runId: string): Promise<Json> => {
    const res = await fetch(`${plane.url}/trace/${runId}`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.data;
  };
  const finishedOf = async (runId: string) =>
    (await trace(runId)).events.find((e: Json) => e.type === "run_finished").payload;
  const tokensOf = async (runId: string) => {
    const usage = (await trace(runId)).events.filter((e: Json) => e.type === "model_response")
      .map((e: Json) => e.payload.usage);
    const sum = (k: string) => usage.reduce((a: number, u: Json) => a + u[k], 0);
    return { input: sum("input_tokens"), output: sum("output_tokens") };
  };

  await t.step("models.list: the harness is the one model", async () => {
    const models = await client.models.list();
    assert.deepEqual(models.data.map((m) => [m.id, m.object, m.owned_by]), [
      ["talker", "model", "framework"],
    ]);
    assert.equal(typeof models.data[0]!.created, "number");
    // A read-only key may list.
    const asReader = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: reader.token });
    assert.equal((await asReader.models.list()).data.length, 1);
  });

  await t.step("chat.completions.create: history, the caller's system message, usage", async () => {
    const completion = await client.chat.completions.create({
      model: "talker",
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello, how can I help?" },
        { role: "user", content: [{ type: "text", text: "one: where is my order?" }] },
      ],
      temperature: 0.2, // the harness's spec decides: accepted, without effect
    });
    const runId = completion.id.replace(/^chatcmpl-/, "");
    runIds.push(runId);
    assert.match(runId, /^run_[0-9A-Z]{26}$/);
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.model, "talker");
    assert.equal(completion.choices[0]!.message.content, "Answer one.");
    assert.equal(completion.choices[0]!.finish_reason, "stop");
    assert.deepEqual(completion.usage, {
      prompt_tokens: 30,
      completion_tokens: 3,
      total_tokens: 33,
    });
    const ext = (completion as Json).framework;
    assert.deepEqual(ext, { run_id: runId, status: "success", cost_usd: 0, turns: 1 });
    const events = (await trace(runId)).events;
    const started = events.find((e: Json) => e.type === "run_started").payload;
    // The harness's instructions first and whole; the caller's after them, never instead.
    assert.equal(started.system, "Be kind.\n\n## Instructions from the caller\nAnswer briefly.");
    assert.equal(started.caller_instructions, "Answer briefly.");
    assert.equal(started.input, "one: where is my order?");
    const call = events.find((e: Json) => e.type === "model_call").payload;
    assert.deepEqual(call.append, [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello, how can I help?" },
      { role: "user", content: "one: where is my order?" },
    ]);
  });

  await t.step("chat.completions.create streamed: the deltas are the run's output", async () => {
    const stream = await client.chat.completions.create({
      model: "talker",
      messages: [{ role: "user", content: "two: and now?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: Json[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const runId = chunks[0].id.replace(/^chatcmpl-/, "");
    runIds.push(runId);
    assert.ok(chunks.every((c) => c.id === chunks[0].id && c.object === "chat.completion.chunk"));
    assert.equal(chunks[0].choices[0].delta.role, "assistant");
    const text = chunks.flatMap((c) => c.choices.map((x: Json) => x.delta.content ?? "")).join("");
    const finished = await finishedOf(runId);
    assert.equal(text, finished.output);
    assert.equal(text, "Answer two.");
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    assert.equal(finish.choices[0].finish_reason, "stop");
    assert.equal(finish.framework.run_id, runId);
    const last = chunks.at(-1);
    assert.deepEqual(last.choices, []);
    const tokens = await tokensOf(runId);
    assert.deepEqual(last.usage, {
      prompt_tokens: tokens.input,
      completion_tokens: tokens.output,
      total_tokens: tokens.input + tokens.output,
    });
  });

  let first: Json;
  await t.step("responses.create, and previous_response_id continues its thread", async () => {
    first = await client.responses.create({
      model: "talker",
      input: "one: my order is 42",
      instructions: "Answer in one line.",
      metadata: { customer: "c-42" },
    });
    const firstRun = first.id.replace(/^resp_/, "");
    runIds.push(firstRun);
    assert.equal(first.object, "response");
    assert.equal(first.status, "completed");
    assert.equal(first.output_text, "Answer one.");
    assert.equal(first.instructions, "Answer in one line.");
    assert.equal(first.usage.input_tokens, 30);
    assert.equal(first.framework.run_id, firstRun);
    const threadId = first.framework.thread_id;
    assert.match(threadId, /^thr_/);
    assert.deepEqual(first.metadata, { customer: "c-42" });
    // The conversation is an ordinary thread of the calling key.
    const thread = await (await fetch(`${plane.url}/threads/${threadId}`, {
      headers: { authorization: `Bearer ${alice.token}` },
    })).json();
    assert.equal(thread.data.owner, alice.key_id);
    assert.deepEqual(thread.data.metadata, { customer: "c-42" });

    const second: Json = await client.responses.create({
      model: "talker",
      input: [{ role: "user", content: [{ type: "input_text", text: "two: where is it?" }] }],
      previous_response_id: first.id,
    });
    const secondRun = second.id.replace(/^resp_/, "");
    runIds.push(secondRun);
    assert.equal(second.output_text, "Answer two.");
    assert.equal(second.previous_response_id, first.id);
    assert.equal(second.framework.thread_id, threadId);
    const events = (await trace(secondRun)).events;
    assert.equal(events.find((e: Json) => e.type === "run_started").payload.thread_id, threadId);
    const call = events.find((e: Json) => e.type === "model_call").payload;
    assert.deepEqual(call.append, [
      { role: "user", content: "one: my order is 42" },
      { role: "assistant", content: "Answer one." },
      { role: "user", content: "two: where is it?" },
    ]);

    // Read back, as stored.
    const again: Json = await client.responses.retrieve(second.id);
    assert.equal(again.output_text, "Answer two.");
    assert.equal(again.previous_response_id, first.id);
    assert.equal(
      (await client.responses.retrieve(first.id) as Json).instructions,
      "Answer in one line.",
    );
    // Continuing from the older response would drop the newer turn: refused, naming the newest.
    await assert.rejects(
      client.responses.create({ model: "talker", input: "one", previous_response_id: first.id }),
      (e: Json) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal(e.param, "previous_response_id");
        assert.match(e.message, new RegExp(second.id));
        return true;
      },
    );
    // Another key's conversation is not found.
    const other = await memberToken(dir, home.path, "other", ["run", "read"]);
    const asOther = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: other.token });
    await assert.rejects(asOther.responses.retrieve(second.id), OpenAI.NotFoundError);
    await assert.rejects(
      asOther.responses.create({ model: "talker", input: "x", previous_response_id: second.id }),
      OpenAI.NotFoundError,
    );
  });

  await t.step("responses.create streamed: Responses events, deltas are the output", async () => {
    const stream = await client.responses.create({
      model: "talker",
      input: "two: streamed",
      stream: true,
    });
    const events: Json[] = [];
    for await (const e of stream) events.push(e);
    const types = events.map((e) => e.type);
    assert.equal(types[0], "response.created");
    assert.ok(types.includes("response.output_text.delta"));
    assert.equal(types.at(-1), "response.completed");
    assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
    const done = events.at(-1).response;
    const runId = done.id.replace(/^resp_/, "");
    runIds.push(runId);
    assert.equal(events[0].response.id, done.id);
    assert.equal(events[0].response.status, "in_progress");
    const text = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta)
      .join("");
    assert.equal(text, (await finishedOf(runId)).output);
    assert.equal(done.output[0].content[0].text, text);
    assert.equal(done.usage.input_tokens, (await tokensOf(runId)).input);
  });

  await t.step("each error class the client raises", async () => {
    const bad = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: "not-a-token", maxRetries: 0 });
    await assert.rejects(bad.models.list(), (e: Json) => {
      assert.ok(e instanceof OpenAI.AuthenticationError);
      assert.equal(e.status, 401);
      assert.equal(e.type, "authentication_error");
      return true;
    });
    const asReader = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: reader.token });
    await assert.rejects(
      asReader.chat.completions.create({
        model: "talker",
        messages: [{ role: "user", content: "hi" }],
      }),
      (e: Json) => {
        assert.ok(e instanceof OpenAI.PermissionDeniedError);
        assert.equal(e.type, "permission_error");
        return true;
      },
    );
    await assert.rejects(
      client.chat.completions.create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
      }),
      (e: Json) => {
        assert.ok(e instanceof OpenAI.NotFoundError);
        assert.equal(e.type, "not_found_error");
        assert.equal(e.param, "model");
        assert.match(e.message, /"talker"/);
        return true;
      },
    );
    await assert.rejects(
      client.chat.completions.create({
        model: "talker",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "read_file", parameters: {} } }],
      }),
      (e: Json) => {
        assert.ok(e instanceof OpenAI.BadRequestError);
        assert.equal(e.type, "invalid_request_error");
        assert.equal(e.param, "tools");
        assert.match(e.message, /"tools": not supported/);
        return true;
      },
    );
  });

  await t.step("no request field picks a provider, an address or a file", async () => {
    const smuggled: [Record<string, unknown>, string][] = [
      [{ provider: "openai" }, "provider"],
      [{ base_url: "http://127.0.0.1:9/v1" }, "base_url"],
      [{ input_file: ".env" }, "input_file"],
    ];
    for (const [extra, param] of smuggled) {
      await assert.rejects(
        client.chat.completions.create({
          model: "talker",
          messages: [{ role: "user", content: "hi" }],
          ...extra,
        } as Json),
        (e: Json) => e instanceof OpenAI.BadRequestError && e.param === param,
      );
    }
    await assert.rejects(
      client.chat.completions.create({
        model: "talker",
        messages: [{
          role: "user",
          content: [{ type: "file", file: { filename: ".env", file_data: "x" } }],
        }],
      } as Json),
      (e: Json) => e instanceof OpenAI.BadRequestError && e.param === "messages.0.content.0.type",
    );
    await assert.rejects(
      client.responses.create({
        model: "talker",
        input: [{
          role: "user",
          content: [{ type: "input_file", file_url: "file:///etc/passwd" }],
        }],
      } as Json),
      (e: Json) => e instanceof OpenAI.BadRequestError && e.param === "input.0.content.0.type",
    );
  });

  await t.step("429 RateLimitError with Retry-After while the only slot is busy", async () => {
    const slow = await client.chat.completions.create({
      model: "talker",
      messages: [{ role: "user", content: "slow: take your time" }],
      stream: true,
    });
    const chunks = slow[Symbol.asyncIterator]();
    const role = await chunks.next(); // the run has its slot once the role chunk comes
    const runId = (role.value as Json).id.replace(/^chatcmpl-/, "");
    runIds.push(runId);
    const impatient = new OpenAI({
      baseURL: `${plane.url}/v1`,
      apiKey: alice.token,
      maxRetries: 0,
    });
    await assert.rejects(
      impatient.chat.completions.create({
        model: "talker",
        messages: [{ role: "user", content: "hi" }],
      }),
      (e: Json) => {
        assert.ok(e instanceof OpenAI.RateLimitError);
        assert.equal(e.status, 429);
        assert.equal(e.type, "rate_limit_error");
        assert.match(e.headers.get("retry-after") ?? "", /^[1-9][0-9]*$/);
        return true;
      },
    );
    let text = "";
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      text += (next.value as Json).choices[0]?.delta.content ?? "";
    }
    assert.equal(text, "Slow answer.");
  });

  await t.step("every run is in /trace and its journal verifies", async () => {
    assert.equal(runIds.length, 6);
    for (const runId of runIds) {
      const data = await trace(runId);
      assert.equal(data.integrity.ok, true, runId);
      const bytes = await Deno.readFile(`${dir}/.framework/traces/${runId}.jsonl`);
      assert.equal(verifyJournal(bytes).ok, true, runId);
    }
  });
});

Deno.test("outside /v1/ the ok wrapper stays; inside it, OpenAI's shape", async () => {
  await using home = await tempDir("fw-oai-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", { model: model() });
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  await using plane = await startControlPlane(dir, { home: home.path, env: SERVER_ENV });
  const get = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${plane.url}${path}`, init);
    return { status: res.status, json: await res.json() };
  };
  assert.deepEqual(await get("/v1/nothing"), {
    status: 404,
    json: {
      error: {
        message: "No route GET /v1/nothing",
        type: "not_found_error",
        param: null,
        code: null,
      },
    },
  });
  assert.equal(
    (await get("/v1/models", { method: "DELETE" })).json.error.type,
    "invalid_request_error",
  );
  const badJson = await get("/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${alice.token}` },
    body: "{not json",
  });
  assert.equal(badJson.status, 400);
  assert.match(badJson.json.error.message, /not JSON/);
  // Answered before the router, POST /v1/chat/completions keeps the shape of every /v1/ error.
  const noToken = await get("/v1/chat/completions", { method: "POST", body: "{}" });
  assert.equal(noToken.status, 401);
  assert.equal(noToken.json.error.type, "authentication_error");
  const wrongMethod = await get("/v1/chat/completions");
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.json.error.type, "invalid_request_error");
  const run = await get("/nothing");
  assert.equal(run.status, 404);
  assert.equal(run.json.ok, false);
  assert.equal(run.json.error.kind, "not_found");
});

Deno.test("a response waiting in the queue can be read back and is not continued", async () => {
  await using home = await tempDir("fw-oai-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "talker", { model: model() });
  const alice = await memberToken(dir, home.path, "alice", ["run", "read"]);
  const other = await memberToken(dir, home.path, "other", ["run", "read"]);
  // One slot and a queue: a second run waits for the first.
  await using plane = await startControlPlane(dir, {
    home: home.path,
    args: ["--max-concurrent-runs", "1", "--max-queued-runs", "4"],
    env: SERVER_ENV,
  });
  const client = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: alice.token, maxRetries: 0 });
  const slow = (await client.chat.completions.create({
    model: "talker",
    messages: [{ role: "user", content: "slow: take your time" }],
    stream: true,
  }))[Symbol.asyncIterator]();
  await slow.next(); // the slow run has the slot once its role chunk comes

  const queued = (await client.responses.create({
    model: "talker",
    input: "two: after the slow one",
    stream: true,
  }))[Symbol.asyncIterator]();
  const created = (await queued.next()).value as Json;
  assert.equal(created.type, "response.created");
  assert.equal(created.response.status, "queued");
  const id: string = created.response.id;
  // While it waits, its id is known to the client: reading it back says so, to its key alone.
  const waiting: Json = await client.responses.retrieve(id);
  assert.equal(waiting.id, id);
  assert.equal(waiting.status, "queued");
  assert.deepEqual(waiting.output, []);
  assert.equal(waiting.framework.status, "queued");
  const asOther = new OpenAI({ baseURL: `${plane.url}/v1`, apiKey: other.token, maxRetries: 0 });
  await assert.rejects(asOther.responses.retrieve(id), OpenAI.NotFoundError);
  // Continuing it before it has answered is the conversation's run going: 409, not "unknown".
  await assert.rejects(
    client.responses.create({ model: "talker", input: "one", previous_response_id: id }),
    (e: Json) => {
      assert.ok(e instanceof OpenAI.ConflictError, String(e));
      return true;
    },
  );

  const types: string[] = [];
  for (let next = await queued.next(); !next.done; next = await queued.next()) {
    types.push((next.value as Json).type);
  }
  assert.deepEqual(types.slice(0, 2), ["response.queued", "response.in_progress"]);
  assert.equal(types.at(-1), "response.completed");
  for (let next = await slow.next(); !next.done; next = await slow.next()) { /* drain */ }
  const done: Json = await client.responses.retrieve(id);
  assert.equal(done.status, "completed");
  assert.equal(done.output_text, "Answer two.");
});
