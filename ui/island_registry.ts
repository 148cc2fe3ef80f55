/**
 * The islands a page can hold, by the name the server writes in `data-island` and the browser reads
 * back to hydrate it.
 *
 * @module
 */

import { Chat } from "./islands/chat.tsx";
import { MemoryPage } from "./islands/memory_page.tsx";
import { Notices } from "./islands/notices.tsx";
import { Rail } from "./islands/rail.tsx";
import { Workspace } from "./islands/workspace.tsx";

/** Island components by name. */
export const ISLANDS = {
  rail: Rail,
  chat: Chat,
  workspace: Workspace,
  memory: MemoryPage,
  notices: Notices,
} as const;

/** An island's name. */
export type IslandName = keyof typeof ISLANDS;

/** The islands of a page, in document order. */
export function islandsOf(page: "workbench" | "memory"): IslandName[] {
  return page === "memory"
    ? ["rail", "memory", "notices"]
    : ["rail", "chat", "workspace", "notices"];
}
