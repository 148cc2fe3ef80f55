/**
 * A button's action: while it runs the button is busy, and when it fails its error is shown as a
 * notice, so each action only says what it does.
 *
 * @module
 */

import { useState } from "preact/hooks";
import { useStore } from "./store.ts";

/**
 * Wraps an action for a button.
 *
 * @example
 * ```ts
 * import { callApi } from "./api.ts";
 * import { paths } from "./paths.ts";
 * import { useStore } from "./store.ts";
 *
 * // In a component: the button shows `busy`, a failure becomes a notice.
 * const store = useStore();
 * const [trust, busy] = useAction(async () => {
 *   await callApi(store.fetcher, paths.trust("hello"), { method: "POST" });
 * });
 * ```
 * @param action What the button does.
 * @returns The action to call, and whether it is running.
 */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): [(...args: A) => Promise<void>, boolean] {
  const store = useStore();
  const [busy, setBusy] = useState(false);
  const run = async (...args: A) => {
    setBusy(true);
    try {
      await action(...args);
    } catch (err) {
      store.notify((err as Error).message, "error");
    } finally {
      setBusy(false);
    }
  };
  return [run, busy];
}
