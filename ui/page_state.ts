/**
 * What the server hands the browser with a page: the route it rendered, the API data it used, the
 * workbench's health, and whether this is a development checkout.
 *
 * @module
 */

import type { Route } from "./route.ts";
import type { Health } from "./types.ts";

/** The state a page starts from. */
export interface PageState {
  route: Route;
  /** API data by path, exactly as the islands ask for it. */
  data: Record<string, unknown>;
  /** API errors by path (a harness that is not there), so the page says so before any script runs. */
  errors?: Record<string, { status: number; kind: string; message: string }>;
  health: Health;
  /** A development checkout: the page reloads when the server restarts. */
  dev: boolean;
}

/** The id of the `<script type="application/json">` element holding the state. */
export const STATE_ELEMENT_ID = "fw-state";

/**
 * JSON safe to put inside a `<script>` element.
 *
 * @param value The state.
 * @returns JSON with `<`, U+2028 and U+2029 escaped.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
