/**
 * The few icons the pages use, as inline SVG (no icon font, nothing fetched).
 *
 * @module
 */

const PATHS = {
  chevron: "M6 4l4 4-4 4",
  lock: "M5 7V5a3 3 0 016 0v2M4 7h8v6H4z",
  check: "M3 8.5l3 3 7-7",
  x: "M4 4l8 8M12 4l-8 8",
  fork: "M5 3v4a3 3 0 003 3h0a3 3 0 003-3V3M8 10v3",
  harness: "M3 4h10v8H3zM3 7h10",
  chat: "M3 4h10v6H7l-3 3v-3H3z",
  gear:
    "M8 5.5a2.5 2.5 0 100 5 2.5 2.5 0 000-5zM8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4",
  plus: "M8 3v10M3 8h10",
  stop: "M4.5 4.5h7v7h-7z",
  send: "M2.5 8L13.5 3 10 13.5 7.5 9z",
  trash: "M3 4.5h10M6 4.5V3h4v1.5M4.5 4.5l.7 9h5.6l.7-9",
  shield: "M8 1.8l5 2v4c0 3-2.2 5.2-5 6.4-2.8-1.2-5-3.4-5-6.4v-4z",
  alert: "M8 2l6.5 11.5h-13zM8 6.5v3.2M8 11.6v.2",
  download: "M8 2.5v8M4.5 7L8 10.5 11.5 7M3 13.5h10",
  memory: "M4 2.5h8v11H4zM6 5.5h4M6 8h4M6 10.5h2.5",
  refresh: "M13 8a5 5 0 11-1.5-3.5M13 2.5v3h-3",
} as const;

/** An icon name. */
export type IconName = keyof typeof PATHS;

/**
 * An inline icon, 16 units square, drawn with the current text colour.
 *
 * @param props The icon, its size and an optional label (otherwise it is decorative).
 * @returns The SVG.
 */
export function Icon(props: { name: IconName; size?: number; label?: string }) {
  const size = props.size ?? 16;
  return (
    <svg
      class="icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      stroke-width="1.5"
      stroke-linecap="round"
      stroke-linejoin="round"
      role={props.label ? "img" : undefined}
      aria-label={props.label}
      aria-hidden={props.label ? undefined : "true"}
    >
      <path d={PATHS[props.name]} />
    </svg>
  );
}
