/**
 * Formatting numbers, times and ids for the pages. Everything here is deterministic, so the server and
 * the browser render the same text.
 *
 * @module
 */

/**
 * A cost in US dollars: small amounts keep their significant digits.
 *
 * @param usd The cost.
 * @returns `$0.0042`, `$1.20`, `$0`.
 */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "—";
  if (usd === 0) return "$0";
  // Two significant digits, never in exponent notation ($0.0000012, not $1.2e-6).
  if (usd < 0.01) {
    return `$${usd.toLocaleString("en-US", { maximumSignificantDigits: 2, useGrouping: false })}`;
  }
  return `$${usd.toFixed(2)}`;
}

/**
 * A duration.
 *
 * @param ms Milliseconds.
 * @returns `820 ms`, `1.2 s`, `3 m 05 s`.
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} m ${String(s % 60).padStart(2, "0")} s`;
}

/**
 * A ratio as a percentage.
 *
 * @param r 0..1, or null.
 * @returns `87%` or `—`.
 */
export function formatPercent(r: number | null | undefined): string {
  return r === null || r === undefined ? "—" : `${Math.round(r * 1000) / 10}%`;
}

/**
 * An ISO time as the server and the browser both render it before the browser takes over.
 *
 * @param iso An ISO time.
 * @returns `2026-11-21 14:03 UTC`.
 */
export function formatUtc(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * How long ago a time was.
 *
 * @param iso An ISO time.
 * @param now The current time in ms.
 * @returns `just now`, `5 min ago`, `3 h ago`, `2 d ago`.
 */
export function formatAgo(iso: string, now: number): string {
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/**
 * How long until a time (an expiry).
 *
 * @param iso An ISO time.
 * @param now The current time in ms.
 * @returns `in 9 min`, `in 2 h`, `in under a minute`, or `passed`.
 */
export function formatUntil(iso: string, now: number): string {
  const s = (Date.parse(iso) - now) / 1000;
  if (s <= 0) return "passed";
  if (s < 60) return "in under a minute";
  if (s < 3600) return `in ${Math.round(s / 60)} min`;
  if (s < 86_400) return `in ${Math.round(s / 3600)} h`;
  return `in ${Math.round(s / 86_400)} d`;
}

/**
 * A run or record id shortened to its distinctive tail.
 *
 * @param id `run_01M80954FFJQZHMNEQNQJBWTCR`.
 * @returns `run_…NQJBWTCR`.
 */
export function shortId(id: string): string {
  const cut = id.indexOf("_");
  const prefix = cut > 0 ? id.slice(0, cut + 1) : "";
  const rest = id.slice(prefix.length);
  return rest.length > 10 ? `${prefix}…${rest.slice(-8)}` : id;
}

/**
 * A value as compact one-line text (for summaries).
 *
 * @param value Any JSON value.
 * @param max At most this many characters.
 * @returns The text.
 */
export function oneLine(value: unknown, max = 120): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
