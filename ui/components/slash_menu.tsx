/**
 * The composer's command completion: typing `/` lists the chat's slash commands (read from the API,
 * which owns them), narrowed as the name is typed; arrows move, Tab or Enter completes, Escape
 * closes, a click completes. The commands themselves run on the server.
 *
 * @module
 */

import { useState } from "preact/hooks";
import { paths } from "../paths.ts";
import { useApi } from "../store.ts";

/** A command as the API lists it. */
export interface SlashCommandView {
  name: string;
  usage: string;
  description: string;
  tool: string | null;
}

/** The id of the list (the composer points at it). */
export const SLASH_MENU_ID = "slash-menu";

/** The commands that match a draft still naming its command (`/`, `/ru`), or none. */
function matching(commands: SlashCommandView[], draft: string): SlashCommandView[] {
  const m = /^\/([a-z]*)$/.exec(draft);
  return m ? commands.filter((c) => c.name.startsWith(m[1]!)) : [];
}

/**
 * The completion state of a composer: the open list, and a key handler that completes.
 *
 * @param draft The composer's text.
 * @param setDraft Replaces it.
 * @returns The matching commands, the active one, the key handler (true when it used the key) and
 *   what a click does.
 */
export function useSlashMenu(draft: string, setDraft: (text: string) => void) {
  const list = useApi<{ commands: SlashCommandView[] }>(paths.chatCommands());
  const [active, setActive] = useState(0);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  const shown = closedFor === draft ? [] : matching(list.data?.commands ?? [], draft);
  const current = shown[Math.min(active, shown.length - 1)];
  const complete = (c: SlashCommandView) => {
    setDraft(`/${c.name} `);
    setActive(0);
    requestAnimationFrame(() => document.getElementById("composer")?.focus());
  };
  const onKey = (e: KeyboardEvent): boolean => {
    if (!shown.length || !current) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((shown.indexOf(current) + step + shown.length) % shown.length);
    } else if (
      e.key === "Tab" || (e.key === "Enter" && !e.shiftKey && draft !== `/${current.name}`)
    ) {
      complete(current);
    } else if (e.key === "Escape") {
      setClosedFor(draft);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };
  return { shown, current, onKey, complete };
}

/**
 * The list of matching commands, above the composer.
 *
 * @param props The matching commands, the active one, and what a click does.
 * @returns The list, or nothing.
 */
export function SlashMenu(props: {
  shown: SlashCommandView[];
  current: SlashCommandView | undefined;
  complete: (c: SlashCommandView) => void;
}) {
  if (!props.shown.length) return null;
  return (
    <ul class="slash-menu" id={SLASH_MENU_ID} role="listbox" aria-label="Commands">
      {props.shown.map((c) => (
        <li
          key={c.name}
          id={`slash-${c.name}`}
          role="option"
          aria-selected={c === props.current}
          class={c === props.current ? "active" : ""}
          data-command={c.name}
          onMouseDown={(e) => {
            // Keep the focus in the composer.
            e.preventDefault();
            props.complete(c);
          }}
        >
          <code class="slash-usage">{c.usage}</code>
          <span class="slash-description">{c.description}</span>
        </li>
      ))}
    </ul>
  );
}
