/**
 * Unified diffs of text files (Myers' O(ND) line diff), for code changes of proposals: what a person
 * reads before approving one.
 *
 * @module
 */

type Op = { kind: " " | "-" | "+"; line: string };

/** Splits text into lines, keeping track of a missing final newline. */
function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}

/** The shortest edit script between two line lists (Myers). */
function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Map<number, number>[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1))
        ? v.get(k + 1) ?? 0
        : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) break outer;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1))
      ? k + 1
      : k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ kind: " ", line: a[--x]! }) && y--;
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "+", line: b[--y]! });
      else ops.push({ kind: "-", line: a[--x]! });
    }
  }
  return ops.reverse();
}

/**
 * A unified diff between two texts (`--- a/path`, `+++ b/path`, hunks with 3 lines of context).
 *
 * @example
 * ```ts
 * unifiedDiff("tools/x.ts", "a\nb\n", "a\nc\n");
 * // --- a/tools/x.ts\n+++ b/tools/x.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n
 * ```
 * @param path The file's path (shown in the header).
 * @param before The old text (null for a new file).
 * @param after The new text.
 * @param context Lines of context around each change.
 * @returns The diff, empty when nothing changes.
 */
export function unifiedDiff(
  path: string,
  before: string | null,
  after: string,
  context = 3,
): string {
  const a = lines(before ?? "");
  const b = lines(after);
  const ops = editScript(a, b);
  if (ops.every((o) => o.kind === " ") && (before ?? "").endsWith("\n") === after.endsWith("\n")) {
    return "";
  }
  const out = [`--- ${before === null ? "/dev/null" : `a/${path}`}`, `+++ b/${path}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === " ") {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last nearby change.
    let start = Math.max(0, i - context);
    let end = i;
    let lastChange = i;
    while (end < ops.length && end - lastChange <= 2 * context) {
      if (ops[end]!.kind !== " ") lastChange = end;
      end++;
    }
    end = Math.min(ops.length, lastChange + context + 1);
    let aLine = 0;
    let bLine = 0;
    for (let j = 0; j < start; j++) {
      if (ops[j]!.kind !== "+") aLine++;
      if (ops[j]!.kind !== "-") bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    out.push(
      `@@ -${aCount ? aLine + 1 : aLine},${aCount} +${bCount ? bLine + 1 : bLine},${bCount} @@`,
    );
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
    start = end;
  }
  if (before !== null && !before.endsWith("\n") && a.length) {
    out.push("\\ No newline at end of file (before)");
  }
  if (!after.endsWith("\n") && b.length) out.push("\\ No newline at end of file");
  return out.join("\n") + "\n";
}
