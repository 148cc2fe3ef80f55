/**
 * Durable conversations with the copilot: messages (with their tool activity), artifacts, and the
 * selected harness and run, stored as they happen so a refresh or a restart resumes the conversation.
 *
 * @module
 */

import { badInput, notFound } from "../errors.ts";
import { ulid } from "../ids.ts";
import type { WorkbenchDb } from "./db.ts";
import { statement } from "../sqlite/statements.ts";

/** A conversation. */
export interface Conversation {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  selected_harness_id: string | null;
  selected_run_id: string | null;
}

/** One part of a message: text, a tool call with its result, or a run link. */
export type MessagePart =
  | { type: "text"; text: string }
  | { type: "tool"; name: string; arguments: unknown; ok: boolean; result: string }
  | { type: "artifact"; artifact_id: string }
  | { type: "notice"; text: string };

/** A message of a conversation. */
export interface ChatMessage {
  id: string;
  conversation_id: string;
  role: "user" | "assistant";
  content: string;
  parts: MessagePart[];
  /** The copilot run that produced an assistant message. */
  run_id: string | null;
  created_at: string;
}

/** Something the copilot produced worth keeping apart from the text (a spec, a run, a page). */
export interface Artifact {
  id: string;
  conversation_id: string;
  message_id: string | null;
  kind: string;
  title: string;
  content: string;
  harness_id: string | null;
  created_at: string;
}

function rowToMessage(r: Record<string, unknown>): ChatMessage {
  return { ...(r as unknown as ChatMessage), parts: JSON.parse(r.parts as string) };
}

/**
 * Creates a conversation.
 *
 * @param db The workbench database.
 * @param init Title and selection.
 * @returns The conversation.
 */
export function createConversation(
  db: WorkbenchDb,
  init: { title?: string; selected_harness_id?: string | null; selected_run_id?: string | null } =
    {},
): Conversation {
  const now = new Date().toISOString();
  const c: Conversation = {
    id: `conv_${ulid()}`,
    title: init.title?.trim() || "New conversation",
    created_at: now,
    updated_at: now,
    selected_harness_id: init.selected_harness_id ?? null,
    selected_run_id: init.selected_run_id ?? null,
  };
  statement(
    db,
    "INSERT INTO conversations (id, title, created_at, updated_at, selected_harness_id, selected_run_id) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(c.id, c.title, c.created_at, c.updated_at, c.selected_harness_id, c.selected_run_id);
  return c;
}

/**
 * One conversation, or `not_found`.
 *
 * @param db The workbench database.
 * @param id The conversation id.
 * @returns The conversation.
 */
export function getConversation(db: WorkbenchDb, id: string): Conversation {
  const row = statement(db, "SELECT * FROM conversations WHERE id = ?").get(id) as
    | Conversation
    | undefined;
  if (!row) throw notFound(`Unknown conversation ${JSON.stringify(id)}`, { id });
  return { ...row };
}

/**
 * Every conversation, most recently active first.
 *
 * @param db The workbench database.
 * @returns The conversations.
 */
export function listConversations(db: WorkbenchDb): Conversation[] {
  return (statement(db, "SELECT * FROM conversations ORDER BY updated_at DESC, id DESC")
    .all() as unknown as Conversation[])
    .map((r) => ({ ...r }));
}

/**
 * Changes a conversation's title or selection.
 *
 * @param db The workbench database.
 * @param id The conversation id.
 * @param patch The fields to change (`null` clears a selection).
 * @returns The conversation.
 */
export function updateConversation(
  db: WorkbenchDb,
  id: string,
  patch: { title?: string; selected_harness_id?: string | null; selected_run_id?: string | null },
): Conversation {
  const c = getConversation(db, id);
  if (patch.title !== undefined) {
    if (typeof patch.title !== "string" || !patch.title.trim()) {
      throw badInput("A title must be non-empty text");
    }
    c.title = patch.title.trim().slice(0, 200);
  }
  if (patch.selected_harness_id !== undefined) c.selected_harness_id = patch.selected_harness_id;
  if (patch.selected_run_id !== undefined) c.selected_run_id = patch.selected_run_id;
  c.updated_at = new Date().toISOString();
  statement(
    db,
    "UPDATE conversations SET title = ?, selected_harness_id = ?, selected_run_id = ?, updated_at = ? WHERE id = ?",
  ).run(c.title, c.selected_harness_id, c.selected_run_id, c.updated_at, id);
  return c;
}

/**
 * Deletes a conversation with its messages and artifacts (memories are separate and stay).
 *
 * @param db The workbench database.
 * @param id The conversation id.
 */
export function deleteConversation(db: WorkbenchDb, id: string): void {
  getConversation(db, id);
  statement(db, "DELETE FROM conversations WHERE id = ?").run(id);
}

/**
 * Appends a message.
 *
 * @param db The workbench database.
 * @param m The message without id and time.
 * @returns The stored message.
 */
export function addMessage(
  db: WorkbenchDb,
  m: Omit<ChatMessage, "id" | "created_at">,
): ChatMessage {
  const msg: ChatMessage = { ...m, id: `msg_${ulid()}`, created_at: new Date().toISOString() };
  statement(
    db,
    "INSERT INTO messages (id, conversation_id, role, content, parts, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    msg.id,
    msg.conversation_id,
    msg.role,
    msg.content,
    JSON.stringify(msg.parts),
    msg.run_id,
    msg.created_at,
  );
  statement(db, "UPDATE conversations SET updated_at = ? WHERE id = ?").run(
    msg.created_at,
    msg.conversation_id,
  );
  return msg;
}

/**
 * The messages of a conversation, oldest first.
 *
 * @param db The workbench database.
 * @param conversationId The conversation.
 * @returns The messages.
 */
export function listMessages(db: WorkbenchDb, conversationId: string): ChatMessage[] {
  return (statement(db, "SELECT * FROM messages WHERE conversation_id = ? ORDER BY id").all(
    conversationId,
  ) as Record<
    string,
    unknown
  >[]).map(rowToMessage);
}

/**
 * Stores an artifact.
 *
 * @param db The workbench database.
 * @param a The artifact without id and time.
 * @returns The stored artifact.
 */
export function addArtifact(db: WorkbenchDb, a: Omit<Artifact, "id" | "created_at">): Artifact {
  const art: Artifact = { ...a, id: `art_${ulid()}`, created_at: new Date().toISOString() };
  statement(
    db,
    "INSERT INTO artifacts (id, conversation_id, message_id, kind, title, content, harness_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(
    art.id,
    art.conversation_id,
    art.message_id,
    art.kind,
    art.title,
    art.content,
    art.harness_id,
    art.created_at,
  );
  return art;
}

/**
 * Links artifacts made during a turn to the message that reports them.
 *
 * @param db The workbench database.
 * @param ids The artifact ids.
 * @param messageId The message.
 */
export function attachArtifacts(db: WorkbenchDb, ids: string[], messageId: string): void {
  const st = statement(db, "UPDATE artifacts SET message_id = ? WHERE id = ?");
  for (const id of ids) st.run(messageId, id);
}

/**
 * The artifacts of a conversation, oldest first.
 *
 * @param db The workbench database.
 * @param conversationId The conversation.
 * @returns The artifacts.
 */
export function listArtifacts(db: WorkbenchDb, conversationId: string): Artifact[] {
  return statement(db, "SELECT * FROM artifacts WHERE conversation_id = ? ORDER BY id").all(
    conversationId,
  ) as unknown as Artifact[];
}
