/**
 * A link to a workbench route: a real `<a href>` (so it opens in a new tab and works before the
 * script runs) that moves without reloading on a plain click.
 *
 * @module
 */

import type { ComponentChildren, JSX } from "preact";
import { type Route, routeHref } from "../route.ts";
import { useStore } from "../store.ts";

/**
 * A route link.
 *
 * @param props The route, the content and extra anchor attributes.
 * @returns The anchor.
 */
export function Link(
  props:
    & { to: Route; children: ComponentChildren; onNavigate?: () => void }
    & Omit<
      JSX.HTMLAttributes<HTMLAnchorElement>,
      "href"
    >,
) {
  const store = useStore();
  const { to, children, onNavigate, ...rest } = props;
  return (
    <a
      {...rest}
      href={routeHref(to)}
      onClick={(ev) => {
        if (
          ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey ||
          ev.altKey
        ) return;
        ev.preventDefault();
        store.navigate(to);
        onNavigate?.();
      }}
    >
      {children}
    </a>
  );
}
