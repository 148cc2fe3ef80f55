/**
 * A row of filter links (all, success, error…): one is current; each is a real link to its route.
 *
 * @module
 */

import type { Route } from "../route.ts";
import { Link } from "./link.tsx";

/**
 * A segmented filter.
 *
 * @param props The choices (`value`, shown `label`), the current value, the route of a choice, and a
 *   label for the group.
 * @returns The links.
 */
export function Segmented(props: {
  label: string;
  choices: readonly (readonly [string, string])[];
  current: string;
  to: (value: string) => Route;
}) {
  return (
    <div class="segmented" role="group" aria-label={props.label}>
      {props.choices.map(([value, label]) => (
        <Link
          key={value || "all"}
          to={props.to(value)}
          class={props.current === value ? "seg active" : "seg"}
          aria-current={props.current === value ? "true" : undefined}
        >
          {label}
        </Link>
      ))}
    </div>
  );
}

/**
 * Filter choices from status names: "" is "all", underscores read as spaces.
 *
 * @param statuses The statuses ("" first for all).
 * @returns `[value, label]` pairs.
 */
export function statusChoices(statuses: readonly string[]): [string, string][] {
  return statuses.map((s) => [s, s ? s.replace(/_/g, " ") : "all"]);
}
