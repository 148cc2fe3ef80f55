/**
 * The generated interface of a harness: one self-contained, accessible HTML page (no external asset,
 * no credential in it) that asks for the harness's input — text, a URL or a file — and shows the
 * result: status, output (Markdown rendered with DOM nodes, never as HTML), cost and turns, and
 * errors plainly; or, for `chat`, a conversation whose every message is a turn of one thread. The
 * same page works two ways:
 *
 * - in the workbench's Use tab, inside a sandboxed frame, it only talks to its parent by
 *   `postMessage` (`framework:run` → `framework:result` or `framework:error`; a chat adds
 *   `thread: true`, and the bridge keeps the frame's one thread);
 * - served by a deployment (`framework control-plane` at `GET /`), it calls `POST /run` — a chat
 *   `POST /threads` then `POST /threads/{id}/run` — on its own origin with a bearer token the person
 *   pastes, kept in `sessionStorage` only.
 *
 * @module
 */

import { escapeHtml } from "../html.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { InterfaceInput } from "../interface_inputs.ts";
import { pageScript } from "./page_scripts.ts";

export type { InterfaceInput };

const STYLE = `
:root { color-scheme: light dark; --fg: #1c2330; --muted: #5b6473; --line: #d6dbe3; --accent: #3b5bdb;
  --bad: #b42318; --bg: #ffffff; --panel: #f6f7f9; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #a3acbb; --line: #39414f;
  --accent: #8da2fb; --bad: #ff8a80; --bg: #14181f; --panel: #1c212a; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 44rem; margin: 0 auto; padding: 2rem 1rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
.lede { color: var(--muted); margin: 0 0 1.5rem; }
#run-form { display: grid; gap: .75rem; }
label { font-weight: 600; display: grid; gap: .35rem; }
textarea, input { font: inherit; font-weight: 400; color: inherit; background: var(--panel); border: 1px solid var(--line);
  border-radius: 8px; padding: .6rem .7rem; width: 100%; }
textarea { min-height: 8rem; resize: vertical; }
button { font: inherit; font-weight: 600; padding: .6rem 1.2rem; border-radius: 8px; border: 0;
  background: var(--accent); color: #fff; justify-self: start; cursor: pointer; }
button:disabled { opacity: .6; cursor: progress; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
#result { margin-top: 1.5rem; padding: 1rem; border: 1px solid var(--line); border-radius: 8px;
  background: var(--panel); overflow-wrap: anywhere; }
.meta { color: var(--muted); font-size: .9rem; margin-top: 0; }
.status { font-weight: 700; }
.status-success { color: #1f7a43; }
.error { color: var(--bad); }
.muted { color: var(--muted); }
pre { overflow-x: auto; background: var(--bg); padding: .6rem; border-radius: 6px; }
small { color: var(--muted); font-weight: 400; }
.log { list-style: none; margin: 0 0 1rem; padding: 0; display: grid; gap: .75rem; }
.turn { padding: .6rem .8rem; border-radius: 10px; border: 1px solid var(--line); overflow-wrap: anywhere; }
.turn > :last-child { margin-bottom: 0; }
.turn-user { background: var(--panel); margin-left: 15%; }
.turn-harness { margin-right: 8%; }
.who { margin: 0 0 .25rem; font-size: .8rem; font-weight: 700; color: var(--muted); }
.said { white-space: pre-wrap; }
.note { font-size: .9rem; }
#log-empty { color: var(--muted); margin: 0 0 1rem; }
.composer { position: sticky; bottom: 0; background: var(--bg); padding: .5rem 0 1rem; }
.composer textarea { min-height: 3.5rem; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; }
button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--line); }
`;

/**
 * The page of a harness.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * const { spec } = await loadSpec("./harnesses/hello");
 * const html = interfacePage(spec); // "<!doctype html>…"
 * ```
 * @param spec The harness's spec (its `interface` block, `name`, `description`).
 * @param input The input kind (overrides `interface.input`).
 * @returns The HTML text.
 */
export function interfacePage(spec: HarnessSpec, input?: InterfaceInput): string {
  const block = spec.interface ?? {};
  const kind: InterfaceInput = input ?? block.input ?? "text";
  const title = block.title ?? spec.name ?? spec.id;
  const description = block.description ?? spec.description ?? "";
  const config = JSON.stringify({ harness: spec.id, input: kind, title }).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${description ? `<p class="lede">${escapeHtml(description)}</p>` : ""}
${kind === "chat" ? chatBody(title) : formBody(kind, title, block.accept)}
</main>
<script type="application/json" id="fw-config">${config}</script>
<script>${pageScript(kind)}</script>
</body>
</html>
`;
}

/** The token field of a hosted page (hidden in a preview, which never holds one). */
const TOKEN_ROW =
  `<label id="token-row" for="token">Access token <small>(kept in this tab only)</small>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false">
</label>`;

/** The one-request form of a `text`, `url` or `file` page, and where its result shows. */
function formBody(kind: InterfaceInput, title: string, accept: string | undefined): string {
  const field = kind === "file"
    ? `<input id="input" name="input" type="file" required${
      accept ? ` accept="${escapeHtml(accept)}"` : ""
    }>`
    : kind === "url"
    ? `<input id="input" name="input" type="url" required placeholder="https://…" inputmode="url">`
    : `<textarea id="input" name="input" required></textarea>`;
  const label = kind === "file" ? "File" : kind === "url" ? "URL" : "Your request";
  return `<div id="run-form" role="form" aria-label="Run ${escapeHtml(title)}">
<label for="input">${label}
${field}
</label>
${TOKEN_ROW}
<button id="run" type="button">Run</button>
</div>
<section id="result" aria-live="polite" hidden></section>`;
}

/** The conversation of a `chat` page: its turns, then the message being written. */
function chatBody(title: string): string {
  return `<ol id="log" class="log" role="log" aria-live="polite" aria-label="Conversation with ${
    escapeHtml(title)
  }"></ol>
<p id="log-empty">Nothing said yet: write a message below. Each message is a turn of one conversation, and ${
    escapeHtml(title)
  } remembers the earlier ones.</p>
<div id="run-form" class="composer" role="form" aria-label="Talk to ${escapeHtml(title)}">
<label for="input">Your message <small>(Enter sends, Shift+Enter for a new line)</small>
<textarea id="input" name="input" rows="3" required></textarea>
</label>
${TOKEN_ROW}
<div class="actions">
<button id="run" type="button">Send</button>
<button id="new" type="button" class="secondary">New conversation</button>
</div>
</div>`;
}

/**
 * The content security policy a page is served with: its own inline style and script, and
 * `connect-src` for `POST /run` (a chat's `/threads`) when it is hosted (`'self'`), or nothing at
 * all in a preview.
 *
 * @param hosted Whether the page calls `/run` on its own origin.
 * @returns The header value.
 */
export function interfaceCsp(hosted: boolean): string {
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    "img-src data:",
    `connect-src ${hosted ? "'self'" : "'none'"}`,
    "form-action 'none'",
    "base-uri 'none'",
    hosted ? "frame-ancestors 'none'" : "frame-ancestors 'self'",
    ...(hosted ? [] : ["sandbox allow-scripts"]),
  ].join("; ");
}
