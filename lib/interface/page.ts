/**
 * The generated interface of a harness: one self-contained, accessible HTML page (no external asset,
 * no credential in it) that asks for the harness's input — text, a URL or a file — and shows the
 * result: status, output (Markdown rendered with DOM nodes, never as HTML), cost and turns, and
 * errors plainly. The same page works two ways:
 *
 * - in the workbench's Use tab, inside a sandboxed frame, it only talks to its parent by
 *   `postMessage` (`framework:run` → `framework:result` or `framework:error`);
 * - served by a deployment (`framework control-plane` at `GET /`), it calls `POST /run` on its own
 *   origin with a bearer token the person pastes, kept in `sessionStorage` only.
 *
 * @module
 */

import { escapeHtml } from "../html.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";

/** What the page asks for. */
export type InterfaceInput = "text" | "url" | "file";

/** The page's own script: no framework object, no credential; the token is typed by the person. */
const SCRIPT = String.raw`
(() => {
  const config = JSON.parse(document.getElementById("fw-config").textContent);
  const $ = (id) => document.getElementById(id);
  const framed = window.parent !== window;
  const form = $("run-form");
  const out = $("result");
  const tokenRow = $("token-row");
  if (framed) tokenRow.hidden = true;
  else $("token").value = sessionStorage.getItem("framework-token") || "";

  function text(tag, value, cls) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    el.textContent = value;
    return el;
  }
  // Markdown, safely: every piece of text becomes a text node; links only http(s).
  function inline(parent, line) {
    const re = /(\x60[^\x60]+\x60)|(\*\*[^*]+\*\*)|(\*[^*]+\*)|(https?:\/\/[^\s<>()]+)/g;
    let at = 0;
    for (const m of line.matchAll(re)) {
      if (m.index > at) parent.append(line.slice(at, m.index));
      const t = m[0];
      if (m[1]) parent.append(text("code", t.slice(1, -1)));
      else if (m[2]) parent.append(text("strong", t.slice(2, -2)));
      else if (m[3]) parent.append(text("em", t.slice(1, -1)));
      else {
        const a = text("a", t);
        a.href = t;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        parent.append(a);
      }
      at = m.index + t.length;
    }
    if (at < line.length) parent.append(line.slice(at));
  }
  function markdown(src) {
    const root = document.createElement("div");
    const lines = String(src).replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (line.startsWith("\x60\x60\x60")) {
        const body = [];
        i++;
        while (i < lines.length && !lines[i].startsWith("\x60\x60\x60")) body.push(lines[i++]);
        i++;
        const pre = document.createElement("pre");
        pre.append(text("code", body.join("\n")));
        root.append(pre);
        continue;
      }
      const h = /^(#{1,4})\s+(.*)$/.exec(line);
      if (h) {
        const el = document.createElement("h" + Math.min(6, h[1].length + 2));
        inline(el, h[2]);
        root.append(el);
        i++;
        continue;
      }
      if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
        const ordered = /^\s*\d+\./.test(line);
        const list = document.createElement(ordered ? "ol" : "ul");
        while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
          const li = document.createElement("li");
          inline(li, lines[i].replace(/^\s*([-*]|\d+\.)\s+/, ""));
          list.append(li);
          i++;
        }
        root.append(list);
        continue;
      }
      if (!line.trim()) {
        i++;
        continue;
      }
      const p = document.createElement("p");
      const para = [];
      while (i < lines.length && lines[i].trim() && !lines[i].startsWith("\x60\x60\x60")) {
        para.push(lines[i++]);
      }
      para.forEach((l, k) => {
        if (k) p.append(document.createElement("br"));
        inline(p, l);
      });
      root.append(p);
    }
    return root;
  }
  function show(result) {
    out.replaceChildren();
    const head = document.createElement("p");
    head.className = "meta";
    head.append(text("span", result.status, "status status-" + result.status));
    head.append(" · " + result.turns + " turn" + (result.turns === 1 ? "" : "s"));
    head.append(" · $" + Number(result.cost_usd).toFixed(6));
    out.append(head);
    if (result.error) out.append(text("p", result.error.reason + ": " + result.error.message, "error"));
    out.append(markdown(result.output || ""));
    out.hidden = false;
  }
  function fail(message) {
    out.replaceChildren(text("p", message, "error"));
    out.hidden = false;
  }
  let pending = null;
  window.addEventListener("message", (e) => {
    if (!framed || e.source !== window.parent || !pending) return;
    const m = e.data;
    if (m && m.type === "framework:result") pending.resolve(m.result);
    else if (m && m.type === "framework:error") pending.reject(new Error(String(m.error)));
    else return;
    pending = null;
  });
  function viaParent(message) {
    return new Promise((resolve, reject) => {
      pending = { resolve, reject };
      window.parent.postMessage(message, "*");
    });
  }
  async function viaRun(body) {
    const token = $("token").value.trim();
    if (!token) throw new Error("Paste a token with the run scope first.");
    sessionStorage.setItem("framework-token", token);
    const res = await fetch("run", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + token },
      body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => null);
    if (!answer || !answer.ok) {
      throw new Error(answer && answer.error ? answer.error.message : "HTTP " + res.status);
    }
    return answer.data;
  }
  // No <form> submission: a sandboxed preview may not submit forms. Enter in a one-line field runs.
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.tagName === "INPUT" && e.target.type !== "file") {
      e.preventDefault();
      run();
    }
  });
  $("run").addEventListener("click", () => run());
  async function run() {
    const button = $("run");
    button.disabled = true;
    out.hidden = false;
    out.replaceChildren(text("p", "Running…", "muted"));
    try {
      let result;
      if (config.input === "file") {
        const file = $("input").files[0];
        if (!file) throw new Error("Choose a file first.");
        if (framed) {
          const bytes = new Uint8Array(await file.arrayBuffer());
          result = await viaParent({
            type: "framework:run",
            harness: config.harness,
            file: { name: file.name, bytes },
          });
        } else {
          result = await viaRun({ input: await file.text() });
        }
      } else {
        const value = $("input").value;
        if (!value.trim()) throw new Error("Write something first.");
        result = framed
          ? await viaParent({ type: "framework:run", harness: config.harness, input: value })
          : await viaRun({ input: value });
      }
      show(result);
    } catch (err) {
      fail(err && err.message ? err.message : String(err));
    } finally {
      button.disabled = false;
    }
  }
})();
`;

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
  const config = JSON.stringify({ harness: spec.id, input: kind }).replace(/</g, "\\u003c");
  const field = kind === "file"
    ? `<input id="input" name="input" type="file" required${
      block.accept ? ` accept="${escapeHtml(block.accept)}"` : ""
    }>`
    : kind === "url"
    ? `<input id="input" name="input" type="url" required placeholder="https://…" inputmode="url">`
    : `<textarea id="input" name="input" required></textarea>`;
  const label = kind === "file" ? "File" : kind === "url" ? "URL" : "Your request";
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
<div id="run-form" role="form" aria-label="Run ${escapeHtml(title)}">
<label for="input">${label}
${field}
</label>
<label id="token-row" for="token">Access token <small>(kept in this tab only)</small>
<input id="token" name="token" type="password" autocomplete="off" spellcheck="false">
</label>
<button id="run" type="button">Run</button>
</div>
<section id="result" aria-live="polite" hidden></section>
</main>
<script type="application/json" id="fw-config">${config}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The content security policy a page is served with: its own inline style and script, and
 * `connect-src` for `POST /run` when it is hosted (`'self'`), or nothing at all in a preview.
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
