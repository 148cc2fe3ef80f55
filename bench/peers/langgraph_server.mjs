// The LangGraph.js peer of the runs benchmark: a prebuilt ReAct agent over a scripted chat model (one
// tool call, then an answer) and one tool, behind a minimal node:http server. Persists nothing.
// Usage: node langgraph_server.mjs  (prints its port)
import http from "node:http";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

class ScriptedModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  _generate(messages) {
    const last = messages[messages.length - 1];
    const kind = typeof last.getType === "function" ? last.getType() : last._getType();
    const message = kind === "tool"
      ? new AIMessage({ content: "done", usage_metadata: usage })
      : new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", name: "list_files", args: {}, type: "tool_call" }],
        usage_metadata: usage,
      });
    return Promise.resolve({ generations: [{ text: String(message.content), message }] });
  }
}
const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

const listFiles = tool(() => Promise.resolve(JSON.stringify(["harness.yaml"])), {
  name: "list_files",
  description: "List the files of the harness",
  schema: z.object({}),
});
const agent = createReactAgent({ llm: new ScriptedModel({}), tools: [listFiles] });

http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  try {
    const { input } = JSON.parse(body);
    const out = await agent.invoke({ messages: [{ role: "user", content: input }] });
    const last = out.messages[out.messages.length - 1];
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, data: { output: last.content, turns: 2 } }));
  } catch (err) {
    res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error: String(err) }));
  }
}).listen(0, "127.0.0.1", function () {
  console.log(this.address().port);
});
