/**
 * Keyboard shortcuts of the pages: single keys that act only when the reader is not typing.
 *
 * @module
 */

import { useEffect, useRef } from "preact/hooks";

/**
 * Whether a key press is meant for a text field (or carries a modifier), so a shortcut must not act.
 *
 * @param ev The key event.
 * @returns Whether to leave it alone.
 */
export function isTyping(ev: KeyboardEvent): boolean {
  const t = ev.target as HTMLElement | null;
  return ev.metaKey || ev.ctrlKey || ev.altKey ||
    (!!t &&
      (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
        t.isContentEditable));
}

/**
 * Listens for shortcut keys on the document while the component is mounted.
 *
 * @param keys Handlers by `KeyboardEvent.key`; a handler returning false lets the key through.
 */
export function useShortcuts(keys: Record<string, (ev: KeyboardEvent) => boolean | void>): void {
  const current = useRef(keys);
  current.current = keys;
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (isTyping(ev)) return;
      const handler = current.current[ev.key];
      if (handler && handler(ev) !== false) ev.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
