/**
 * Local stand-ins for model APIs, served on 127.0.0.1 for provider tests: an OpenAI-compatible
 * `/v1/chat/completions` and an Anthropic `/v1/messages`, each answering non-streaming JSON or SSE
 * (when the request asks for `stream: true`). Replies are queued per test; every request is recorded.
 *
 * @module
 */

/** One queued reply. */
export type FakeReply =
  | {
    text?: string;
    tool_calls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
    usage?: { input: number; output: number };
  }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string; contentType?: string };

/** A recorded request. */
export interface RecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A running fake server. */
export interface FakeLlm extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies, used in order (one per request). */
  queue(...replies: FakeReply[]): void;
}

function openaiBody(r: Extract<FakeReply, { text?: string }>, model: string) {
  const tool_calls = r.tool_calls?.map((c, i) => ({
    id: c.id ?? `call_${i + 1}`,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: r.text ?? null,
        ...(tool_calls?.length ? { tool_calls } : {}),
      },
      finish_reason: tool_calls?.length ? "tool_calls" : "stop",
    }],
    usage: {
      prompt_tokens: r.usage?.input ?? 10,
      completion_tokens: r.usage?.output ?? 5,
      total_tokens: (r.usage?.input ?? 10) + (r.usage?.output ?? 5),
    },
  };
}

function openaiStream(r: Extract<FakeReply, { text?: string }>, model: string): string {
  const base = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
  };
  const chunks: unknown[] = [{
    ...base,
    choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
  }];
  const text = r.text ?? "";
  for (let i = 0; i < text.length; i += 4) {
    chunks.push({
      ...base,
      choices: [{ index: 0, delta: { content: text.slice(i, i + 4) }, finish_reason: null }],
    });
  }
  r.tool_calls?.forEach((c, i) => {
    const args = JSON.stringify(c.arguments);
    chunks.push({
      ...base,
      choices: [{
        index: 0,
        delta: {
          tool_calls: [{
            index: i,
            id: c.id ?? `call_${i + 1}`,
            type: "function",
            function: { name: c.name, arguments: "" },
          }],
        },
        finish_reason: null,
      }],
    });
    chunks.push({
      ...base,
      choices: [{
        index: 0,
        delta: { tool_calls: [{ index: i, function: { arguments: args } }] },
        finish_reason: null,
      }],
    });
  });
  chunks.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: r.tool_calls?.length ? "tool_calls" : "stop" }],
  });
  chunks.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: r.usage?.input ?? 10,
      completion_tokens: r.usage?.output ?? 5,
      total_tokens: (r.usage?.input ?? 10) + (r.usage?.output ?? 5),
    },
  });
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

function anthropicContent(r: Extract<FakeReply, { text?: string }>) {
  return [
    ...(r.text ? [{ type: "text", text: r.text }] : []),
    ...(r.tool_calls ?? []).map((c, i) => ({
      type: "tool_use",
      id: c.id ?? `toolu_${i + 1}`,
      name: c.name,
      input: c.arguments,
    })),
  ];
}

function anthropicBody(r: Extract<FakeReply, { text?: string }>, model: string) {
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model,
    content: anthropicContent(r),
    stop_reason: r.tool_calls?.length ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: r.usage?.input ?? 10, output_tokens: r.usage?.output ?? 5 },
  };
}

function anthropicStream(r: Extract<FakeReply, { text?: string }>, model: string): string {
  const events: [string, unknown][] = [];
  events.push(["message_start", {
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: r.usage?.input ?? 10, output_tokens: 1 },
    },
  }]);
  anthropicContent(r).forEach((block, index) => {
    if (block.type === "text") {
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }]);
      const text = (block as { text: string }).text;
      for (let i = 0; i < text.length; i += 4) {
        events.push(["content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: text.slice(i, i + 4) },
        }]);
      }
    } else {
      const b = block as { id: string; name: string; input: unknown };
      events.push(["content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      }]);
      events.push(["content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
      }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", {
    type: "message_delta",
    delta: { stop_reason: r.tool_calls?.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: r.usage?.output ?? 5 },
  }]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join("");
}

/**
 * Starts a fake model server on a free port of 127.0.0.1.
 *
 * @example
 * ```ts
 * await using llm = await startFakeLlm();
 * llm.queue({ text: "hi" });
 * ```
 * @returns The server; dispose it to stop it.
 */
export function startFakeLlm(): Promise<FakeLlm> {
  const replies: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const body = await req.json().catch(() => ({}));
    requests.push({ path: url.pathname, headers: Object.fromEntries(req.headers), body });
    const reply = replies.shift();
    if (!reply) return Response.json({ error: { message: "no reply queued" } }, { status: 500 });
    if ("status" in reply) {
      return Response.json(reply.body ?? { error: { message: `fake status ${reply.status}` } }, {
        status: reply.status,
        headers: reply.headers ?? {},
      });
    }
    if ("raw" in reply) {
      return new Response(reply.raw, {
        headers: { "content-type": reply.contentType ?? "application/json" },
      });
    }
    const model = String(body.model ?? "fake");
    const anthropic = url.pathname.endsWith("/messages");
    if (body.stream) {
      return new Response(anthropic ? anthropicStream(reply, model) : openaiStream(reply, model), {
        headers: { "content-type": "text/event-stream" },
      });
    }
    return Response.json(anthropic ? anthropicBody(reply, model) : openaiBody(reply, model));
  });
  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    queue: (...r) => void replies.push(...r),
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  });
}
