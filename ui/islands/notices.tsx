/**
 * Short notices at the bottom of the page ("Memory deleted", an error that belongs to no field).
 *
 * @module
 */

import { useStore } from "../store.ts";

/**
 * The notices island.
 *
 * @returns The notice, when there is one.
 */
export function Notices() {
  const store = useStore();
  const n = store.notice.value;
  return (
    <div class="notices" aria-live="polite">
      {n
        ? (
          <div
            class={`notice-toast notice-${n.kind}`}
            role={n.kind === "error" ? "alert" : "status"}
          >
            <span>{n.text}</span>
            <button
              type="button"
              class="icon-button"
              aria-label="Dismiss"
              onClick={() => store.notice.value = null}
            >
              ×
            </button>
          </div>
        )
        : null}
    </div>
  );
}
