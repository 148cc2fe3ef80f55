/**
 * An empty state: what is missing and what to do about it.
 *
 * @module
 */

import type { ComponentChildren } from "preact";

/**
 * An empty state.
 *
 * @param props A title and what to do.
 * @returns The block.
 */
export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty" role="status">
      <p class="empty-title">{props.title}</p>
      {props.children ? <div class="empty-body">{props.children}</div> : null}
    </div>
  );
}

/**
 * A loading or error line for data that is not there yet.
 *
 * @param props The error, when the load failed.
 * @returns The line.
 */
export function Pending(props: { error?: { message: string } | undefined; what?: string }) {
  if (props.error) {
    return (
      <p class="error-line" role="alert">
        {props.what ? `${props.what}: ` : ""}
        {props.error.message}
      </p>
    );
  }
  return <p class="muted loading">Loading{props.what ? ` ${props.what}` : ""}…</p>;
}

/**
 * A form's or an action's error, said at once to a screen reader (nothing when there is none): the
 * one block every form shows under its buttons.
 *
 * @param props The error text, and an id or test id when something points at it.
 * @returns The line, or nothing.
 */
export function ErrorLine(
  props: { error: string | null | undefined; id?: string; testId?: string },
) {
  if (!props.error) return null;
  return (
    <p class="field-error" role="alert" id={props.id} data-testid={props.testId}>
      {props.error}
    </p>
  );
}
