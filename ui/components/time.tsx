/**
 * A time: rendered the same on the server and in the browser at first (UTC), then as "5 min ago" with
 * the local time in its tooltip once the page runs.
 *
 * @module
 */

import { useEffect, useState } from "preact/hooks";
import { formatAgo, formatUtc } from "../format.ts";

/**
 * Whether the component has mounted in the browser (false while server-rendering and hydrating).
 *
 * @returns The flag.
 */
export function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

/**
 * A `<time>` element.
 *
 * @param props The ISO time.
 * @returns The element.
 */
export function Time(props: { iso: string | null | undefined }) {
  const mounted = useMounted();
  if (!props.iso) return <span class="muted">—</span>;
  return (
    <time
      dateTime={props.iso}
      title={mounted ? new Date(props.iso).toLocaleString() : formatUtc(props.iso)}
    >
      {mounted ? formatAgo(props.iso, Date.now()) : formatUtc(props.iso)}
    </time>
  );
}
