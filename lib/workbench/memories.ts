/**
 * Memories: facts kept across conversations, global or scoped to one harness. They are separate from
 * conversations and explicit: they reach the copilot only through its memory tools, and nothing from a
 * conversation becomes a memory unless the copilot calls `remember_memory`.
 *
 * @module
 */

import { badInput, notFound } from "../errors.ts";
import { ulid } from "../ids.ts";
import type { WorkbenchDb } from "./db.ts";
import { statement } from "../sqlite/statements.ts";

/** A memory. */
export interface Memory {
  id: string;
  /** `global` or `harness`. */
  scope: "global" | "harness";
  /** The harness, for harness-scoped memories. */
  harness_id: string | null;
  content: string;
  /** The conversation it was remembered in. */
  conversation_id: string | null;
  created_at: string;
  updated_at: string;
}

const MAX_CONTENT = 2000;

/**
 * Remembers a fact.
 *
 * @param db The workbench database.
 * @param m The scope, harness, content and origin.
 * @returns The memory.
 */
export function rememberMemory(
  db: WorkbenchDb,
  m: {
    scope: "global" | "harness";
    harness_id?: string | null;
    content: string;
    conversation_id?: string | null;
  },
): Memory {
  if (m.scope !== "global" && m.scope !== "harness") {
    throw badInput('A memory\'s scope is "global" or "harness"');
  }
  if (m.scope === "harness" && !m.harness_id) throw badInput("A harness memory needs a harness");
  const content = typeof m.content === "string" ? m.content.trim() : "";
  if (!content) throw badInput("A memory needs content");
  if (content.length > MAX_CONTENT) throw badInput(`A memory is at most ${MAX_CONTENT} characters`);
  const now = new Date().toISOString();
  const memory: Memory = {
    id: `mem_${ulid()}`,
    scope: m.scope,
    harness_id: m.scope === "harness" ? m.harness_id! : null,
    content,
    conversation_id: m.conversation_id ?? null,
    created_at: now,
    updated_at: now,
  };
  statement(
    db,
    "INSERT INTO memories (id, scope, harness_id, content, conversation_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    memory.id,
    memory.scope,
    memory.harness_id,
    memory.content,
    memory.conversation_id,
    now,
    now,
  );
  return memory;
}

/** Filters of {@link listMemories}. */
export interface MemoryFilter {
  /** `global`, `harness`, or all. */
  scope?: "global" | "harness";
  /** Only this harness's memories (with scope `harness`), or global plus this harness's (no scope). */
  harness_id?: string;
  /** Words that must all occur (case-insensitive). */
  query?: string;
}

/**
 * Lists memories, newest first.
 *
 * @param db The workbench database.
 * @param filter Scope, harness, words.
 * @returns The memories.
 */
export function listMemories(db: WorkbenchDb, filter: MemoryFilter = {}): Memory[] {
  const where: string[] = [];
  const args: string[] = [];
  if (filter.scope === "global") where.push("scope = 'global'");
  else if (filter.scope === "harness") {
    where.push("scope = 'harness'");
    if (filter.harness_id) {
      where.push("harness_id = ?");
      args.push(filter.harness_id);
    }
  } else if (filter.harness_id) {
    where.push("(scope = 'global' OR harness_id = ?)");
    args.push(filter.harness_id);
  }
  const rows = statement(
    db,
    `SELECT * FROM memories ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC`,
  )
    .all(...args) as unknown as Memory[];
  const words = (filter.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  return rows.map((r) => ({ ...r })).filter((m) =>
    words.every((w) => m.content.toLowerCase().includes(w))
  );
}

/**
 * One memory, or `not_found`.
 *
 * @param db The workbench database.
 * @param id The memory id.
 * @returns The memory.
 */
export function getMemory(db: WorkbenchDb, id: string): Memory {
  const row = statement(db, "SELECT * FROM memories WHERE id = ?").get(id) as Memory | undefined;
  if (!row) throw notFound(`Unknown memory ${JSON.stringify(id)}`, { id });
  return { ...row };
}

/**
 * Forgets a memory.
 *
 * @param db The workbench database.
 * @param id The memory id.
 * @returns The forgotten memory.
 */
export function forgetMemory(db: WorkbenchDb, id: string): Memory {
  const m = getMemory(db, id);
  statement(db, "DELETE FROM memories WHERE id = ?").run(id);
  return m;
}
