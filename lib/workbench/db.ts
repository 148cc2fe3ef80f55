/**
 * The workbench's own database (`<home>/workbench/workbench.db`, or `$FRAMEWORK_UI_DB`): conversations,
 * their messages and artifacts, and memories. Versioned migrations like the hive's.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { databaseCache } from "../sqlite/database.ts";
import { workbenchDbPath } from "../paths.ts";

/** An open workbench database. */
export type WorkbenchDb = DatabaseSync;

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    selected_harness_id TEXT,
    selected_run_id TEXT
  );
  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]',
    run_id TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX messages_conversation ON messages(conversation_id, id);
  CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    message_id TEXT,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    harness_id TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX artifacts_conversation ON artifacts(conversation_id, id);
  CREATE TABLE memories (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    harness_id TEXT,
    content TEXT NOT NULL,
    conversation_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX memories_scope ON memories(scope, harness_id, id);
  `,
];

const databases = databaseCache(MIGRATIONS);

/**
 * Opens (or returns the cached connection to) the workbench database, creating and migrating it.
 *
 * @param path The database file (default `$FRAMEWORK_UI_DB` or `<home>/workbench/workbench.db`).
 * @returns The connection.
 */
export function openWorkbenchDb(path: string = workbenchDbPath()): WorkbenchDb {
  return databases.open(path);
}
