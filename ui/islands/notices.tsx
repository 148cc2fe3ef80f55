/**
 * Short notices ("Memory deleted", an error that belongs to no field), stacked at the bottom of the
 * rail: over the rail's foot, never over a form of the chat or the workspace.
 *
 * @module
 */

import { useStore } from "../store.ts";

/**
 * The notices island.
 *
 * @returns The notices showing, oldest first.
 */
export function Notices() {
  const store = useStore();
  return (
    <div class="notices" aria-live="polite">
      {store.notices.value.map((n) => (
        <div
          key={n.id}
          class={`notice-toast notice-${n.kind}`}
          role={n.kind === "error" ? "alert" : "status"}
        >
          <span>{n.text}</span>
          <button
            type="button"
            class="icon-button"
            aria-label="Dismiss"
            onClick={() => store.dismiss(n.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
