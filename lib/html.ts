/**
 * Text placed in HTML, escaped once for every page the framework writes: the generated interface,
 * the workbench's document and its error pages.
 *
 * @module
 */

/**
 * Escapes text for HTML content and attribute values (`&`, `<`, `>`, `"` and `'`).
 *
 * @example
 * ```ts
 * escapeHtml(`<b title="x">Tom & Jerry's</b>`);
 * // "&#60;b title=&#34;x&#34;&#62;Tom &#38; Jerry&#39;s&#60;/b&#62;"
 * ```
 * @param text The text.
 * @returns The escaped text.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
