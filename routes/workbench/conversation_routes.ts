/**
 * The workbench's conversations: list, create, read (with messages, artifacts and a turn in flight),
 * change (title, selection — only what exists), delete, a chat turn streamed over SSE, and the chat's
 * slash commands (for the composer's completion).
 *
 * @module
 */

import { Hono } from "hono";
import { okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import {
  CHAT_MESSAGE_REQUEST,
  CONVERSATION_CREATE_REQUEST,
  CONVERSATION_PATCH_REQUEST,
  readRequest,
} from "../../lib/requests.ts";
import { conversationView, startChatTurn } from "../../lib/workbench/chat.ts";
import {
  createConversation,
  deleteConversation,
  listConversations,
} from "../../lib/workbench/conversations.ts";
import { changeConversation, checkSelection } from "../../lib/workbench/selection.ts";
import { SLASH_COMMANDS } from "../../lib/workbench/slash_commands.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The conversation routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function conversationRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { db, hive } = ctx;
  app.get("/api/conversations", () => okResponse({ conversations: listConversations(db) }));
  app.get("/api/chat/commands", () => okResponse({ commands: SLASH_COMMANDS }));
  app.post("/api/conversations", async (c) => {
    const b = readRequest(CONVERSATION_CREATE_REQUEST, await ctx.body(c, true));
    if (b.harness_id) checkSelection(hive, { harness_id: b.harness_id });
    return okResponse(
      createConversation(db, {
        ...(b.title !== undefined ? { title: b.title } : {}),
        ...(b.harness_id ? { selected_harness_id: b.harness_id } : {}),
      }),
      201,
    );
  });
  app.get("/api/conversations/:id", (c) => okResponse(conversationView(db, c.req.param("id"))));
  app.patch("/api/conversations/:id", async (c) => {
    const patch = readRequest(CONVERSATION_PATCH_REQUEST, await ctx.body(c));
    return okResponse(changeConversation(db, hive, c.req.param("id"), patch));
  });
  app.delete("/api/conversations/:id", (c) => {
    deleteConversation(db, c.req.param("id"));
    return okResponse({ deleted: c.req.param("id") });
  });
  app.post("/api/conversations/:id/messages", async (c) => {
    const b = readRequest(CHAT_MESSAGE_REQUEST, await ctx.body(c));
    if (b.selection) checkSelection(hive, b.selection);
    const turn = await startChatTurn(ctx, c.req.param("id"), {
      message: b.message,
      ...(b.selection ? { selection: b.selection } : {}),
    });
    return sseResponse((async function* () {
      for await (const f of turn.frames) {
        const { frame, ...data } = f;
        yield { event: frame, data, ...(frame === "trace" ? { id: f.seq } : {}) };
      }
    })());
  });
  return app;
}
