/**
 * A small, safe Markdown renderer for chat replies: paragraphs, fenced code, inline code, bold,
 * italics, lists, block quotes (nested, holding any block) and http(s) links. It builds elements, never HTML strings, so a reply cannot inject
 * markup.
 *
 * @module
 */

import type { ComponentChildren, JSX } from "preact";

/**
 * Renders Markdown text.
 *
 * @param props The text.
 * @returns The blocks.
 */
export function Markdown(props: { text: string }) {
  return <div class="md">{blocks(props.text)}</div>;
}

function blocks(text: string, depth = 0): JSX.Element[] {
  const out: JSX.Element[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    // Any line opening with ``` starts a fence (```ts, ```c++, ```js {1,3}, ````).
    const fence = /^```/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^```+\s*$/.test(lines[i]!)) body.push(lines[i++]!);
      i++;
      out.push(<pre key={out.length} class="md-code"><code>{body.join("\n")}</code></pre>);
      continue;
    }
    if (/^\s*([-*]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      while (i < lines.length && /^\s*([-*]|\d+[.)])\s+/.test(lines[i]!)) {
        items.push(lines[i++]!.replace(/^\s*([-*]|\d+[.)])\s+/, ""));
      }
      const children = items.map((t, k) => <li key={k}>{inline(t)}</li>);
      out.push(
        ordered ? <ol key={out.length}>{children}</ol> : <ul key={out.length}>{children}</ul>,
      );
      continue;
    }
    // A block quote runs over its `>` lines; its inside is Markdown again (bounded nesting).
    if (/^\s*>/.test(line) && depth < 8) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i]!)) {
        quoted.push(lines[i++]!.replace(/^\s*> ?/, ""));
      }
      out.push(<blockquote key={out.length}>{blocks(quoted.join("\n"), depth + 1)}</blockquote>);
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      out.push(<p key={out.length} class="md-heading">{inline(heading[2]!)}</p>);
      i++;
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    // A paragraph runs to a blank line, a fence or a list; it always takes its first line.
    const para: string[] = [lines[i++]!];
    while (
      i < lines.length && lines[i]!.trim() && !/^```/.test(lines[i]!) &&
      !/^\s*([-*]|\d+[.)])\s+/.test(lines[i]!) && !/^\s*>/.test(lines[i]!)
    ) para.push(lines[i++]!);
    out.push(<p key={out.length}>{inline(para.join("\n"))}</p>);
  }
  return out;
}

const INLINE =
  /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\n]+\*)|(\bhttps?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index! > last) out.push(text.slice(last, m.index));
    const t = m[0];
    if (m[1]) out.push(<code>{t.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong>{t.slice(2, -2)}</strong>);
    else if (m[3]) out.push(<em>{t.slice(1, -1)}</em>);
    else out.push(<a href={t} target="_blank" rel="noopener noreferrer">{t}</a>);
    last = m.index! + t.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
