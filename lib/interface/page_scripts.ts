/**
 * The generated page's own script, as text placed inline in the page (docs/shipping.md, The page).
 * It holds no framework object and no credential: a hosted page's token is typed by the person and
 * kept in `sessionStorage`; a framed page (the workbench's Use tab) only posts messages to its
 * parent. Every piece of text it shows becomes a DOM text node, never HTML.
 *
 * Three parts: what every page shares (Markdown drawn with DOM nodes, the bridge's messages, calls
 * on its own origin with the pasted token), then the one-request form (`text`, `url`, `file`) or the
 * conversation (`chat`).
 *
 * @module
 */

import type { InterfaceInput } from "../interface_inputs.ts";

/** What every page shares. */
const COMMON = String.raw`
  const config = JSON.parse(document.getElementById("fw-config").textContent);
  const $ = (id) => document.getElementById(id);
  const framed = window.parent !== window;
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
  // A run's outcome line: status, turns, cost; then its error, if any.
  function outcome(result) {
    const head = document.createElement("p");
    head.className = "meta";
    head.append(text("span", result.status, "status status-" + result.status));
    head.append(" · " + result.turns + " turn" + (result.turns === 1 ? "" : "s"));
    head.append(" · $" + Number(result.cost_usd).toFixed(6));
    const nodes = [head];
    if (result.error) nodes.push(text("p", result.error.reason + ": " + result.error.message, "error"));
    return nodes;
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
  // A call on the page's own origin with the pasted token; an error keeps its HTTP status.
  async function call(method, path, body) {
    const token = $("token").value.trim();
    if (!token) throw new Error("Paste a token with the run scope first.");
    sessionStorage.setItem("framework-token", token);
    const headers = { authorization: "Bearer " + token };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json().catch(() => null);
    if (!answer || !answer.ok) {
      const err = new Error(answer && answer.error ? answer.error.message : "HTTP " + res.status);
      err.status = res.status;
      throw err;
    }
    return answer.data;
  }
`;

/** One request, one run: the form of `text`, `url` and `file` pages. */
const FORM = String.raw`
  const form = $("run-form");
  const out = $("result");
  function show(result) {
    out.replaceChildren(...outcome(result), markdown(result.output || ""));
    out.hidden = false;
  }
  function fail(message) {
    out.replaceChildren(text("p", message, "error"));
    out.hidden = false;
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
          result = await call("POST", "run", { input: await file.text() });
        }
      } else {
        const value = $("input").value;
        if (!value.trim()) throw new Error("Write something first.");
        result = framed
          ? await viaParent({ type: "framework:run", harness: config.harness, input: value })
          : await call("POST", "run", { input: value });
      }
      show(result);
    } catch (err) {
      fail(err && err.message ? err.message : String(err));
    } finally {
      button.disabled = false;
    }
  }
`;

/**
 * A conversation: one thread per page session. Framed, the page asks its parent with
 * `thread: true` (the workbench's bridge makes the thread and keeps it; the page never names one).
 * Hosted, it makes a thread with `POST threads` on the first message, keeps its id in
 * `sessionStorage` and sends each message with `POST threads/{id}/run`; a reload shows the
 * conversation again when the token may read it.
 */
const CHAT = String.raw`
  const THREAD_KEY = "framework-thread";
  const log = $("log");
  const input = $("input");
  const send = $("run");
  const restart = $("new");
  let thread = framed ? null : sessionStorage.getItem(THREAD_KEY);
  if (framed) restart.hidden = true;

  function said(cls, who, nodes) {
    const li = document.createElement("li");
    li.className = "turn " + cls;
    li.append(text("p", who, "who"), ...nodes);
    log.append(li);
    $("log-empty").hidden = true;
    toEnd();
    return li;
  }
  function asked(value) {
    return said("turn-user", "You", [text("div", value, "said")]);
  }
  function answered(li, result) {
    li.replaceChildren(text("p", config.title, "who"), ...outcome(result), markdown(result.output || ""));
    toEnd();
  }
  function note(message, cls) {
    log.append(text("li", message, "note " + (cls || "muted")));
    toEnd();
  }
  // The newest turn, just above the message being written (which stays at the bottom).
  function toEnd() {
    window.scrollTo({ top: document.documentElement.scrollHeight });
  }
  function forget() {
    thread = null;
    sessionStorage.removeItem(THREAD_KEY);
  }
  async function hostedTurn(value) {
    if (!thread) {
      thread = (await call("POST", "threads", {})).thread_id;
      sessionStorage.setItem(THREAD_KEY, thread);
    }
    try {
      return await call("POST", "threads/" + encodeURIComponent(thread) + "/run", { input: value });
    } catch (err) {
      if (err.status !== 404) throw err;
      forget();
      throw new Error("This conversation is gone (deleted, or another key's). Send again to start a new one.");
    }
  }
  async function turn() {
    const value = input.value;
    if (!value.trim()) {
      note("Write a message first.", "error");
      return;
    }
    send.disabled = true;
    asked(value);
    input.value = "";
    const answer = said("turn-harness", config.title, [text("p", "Thinking…", "muted")]);
    try {
      const result = framed
        ? await viaParent({ type: "framework:run", harness: config.harness, input: value, thread: true })
        : await hostedTurn(value);
      answered(answer, result);
    } catch (err) {
      const message = err && err.message ? err.message : String(err);
      answer.replaceChildren(text("p", config.title, "who"), text("p", message, "error"));
      // The message goes back in the box, to send again.
      if (!input.value) input.value = value;
      toEnd();
    } finally {
      send.disabled = false;
      input.focus();
    }
  }
  // Enter sends; Shift+Enter is a new line. No <form> submission (a sandboxed preview may not).
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!send.disabled) turn();
    }
  });
  send.addEventListener("click", () => turn());
  restart.addEventListener("click", () => {
    forget();
    log.replaceChildren();
    $("log-empty").hidden = false;
    input.focus();
  });
  // Hosted and reloaded: the conversation so far, when the token may read it.
  if (thread && $("token").value) {
    send.disabled = true;
    call("GET", "threads/" + encodeURIComponent(thread)).then((t) => {
      for (const r of t.runs) {
        asked(r.input);
        const li = said("turn-harness", config.title, []);
        answered(li, { ...r, output: r.output || "" });
      }
    }).catch((err) => {
      if (err.status === 404) forget();
      else note("The conversation goes on; its earlier messages are not shown (" + err.message + ").");
    }).finally(() => {
      send.disabled = false;
    });
  }
`;

/**
 * The page's script for an input kind.
 *
 * @param kind What the page asks for.
 * @returns The script's text (placed in a `<script>` of the page).
 */
export function pageScript(kind: InterfaceInput): string {
  return `\n(() => {${COMMON}${kind === "chat" ? CHAT : FORM}})();\n`;
}
