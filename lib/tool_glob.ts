/**
 * Tool-name globs, as `approvals.tools` writes them: a name, or a pattern where `*` stands for any
 * run of characters (`github__*` is every tool of the `github` MCP server, `file_*` both file tools).
 * Vocabulary: the spec's checks, the runner and the pages read it alike.
 *
 * @module
 */

/**
 * Whether a tool name matches one of the globs.
 *
 * @example
 * ```ts
 * matchesToolGlob("github__create_issue", ["file_write", "github__*"]); // true
 * matchesToolGlob("file_read", ["file_write"]); // false
 * ```
 * @param name The tool's name.
 * @param globs Names or `*` globs.
 * @returns Whether one matches the whole name.
 */
export function matchesToolGlob(name: string, globs: readonly string[]): boolean {
  return globs.some((glob) => {
    const pattern = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${pattern.join(".*")}$`).test(name);
  });
}
