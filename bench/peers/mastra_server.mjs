// The Mastra peer of the runs benchmark: an Agent over a scripted AI SDK (v2) language model (one tool
// call, then an answer) and one tool, behind a minimal node:http server. No storage configured.
// Usage: node mastra_server.mjs  (prints its port)
import http from "node:http";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const model = {
  specificationVersion: "v2",
  provider: "scripted",
  modelId: "scripted",
  supportedUrls: {},
  doGenerate(options) {
    const last = options.prompt[options.prompt.length - 1];
    const answered = last.role === "tool";
    return Promise.resolve({
      content: answered
        ? [{ type: "text", text: "done" }]
        : [{ type: "tool-call", toolCallId: "call_1", toolName: "list_files", input: "{}" }],
      finishReason: answered ? "stop" : "tool-calls",
      usage,
      warnings: [],
    });
  },
  async doStream(options) {
    const r = await this.doGenerate(options);
    const parts = [{ type: "stream-start", warnings: [] }];
    for (const c of r.content) {
      if (c.type === "text") {
        parts.push({ type: "text-start", id: "t1" }, {
          type: "text-delta",
          id: "t1",
          delta: c.text,
        }, { type: "text-end", id: "t1" });
      } else parts.push(c);
    }
    parts.push({ type: "finish", finishReason: r.finishReason, usage });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      }),
    };
  },
};

const listFiles = createTool({
  id: "list_files",
  description: "List the files of the harness",
  inputSchema: z.object({}),
  execute: () => Promise.resolve(["harness.yaml"]),
});
const agent = new Agent({
  id: "hello",
  name: "hello",
  instructions: "You are a helpful assistant.",
  model,
  tools: { list_files: listFiles },
});

http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  try {
    const { input } = JSON.parse(body);
    const out = await agent.generate(input);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, data: { output: out.text, turns: out.steps?.length } }));
  } catch (err) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error: String(err?.stack ?? err) }));
  }
}).listen(0, "127.0.0.1", function () {
  console.log(this.address().port);
});
