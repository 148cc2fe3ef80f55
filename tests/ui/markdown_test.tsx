/**
 * The chat's Markdown renderer (`ui/components/markdown.tsx`) and the page state's script escaping
 * (`ui/page_state.ts`): what a reply may format, and that nothing in a reply becomes markup.
 *
 * @module
 */

import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { Markdown } from "../../ui/components/markdown.tsx";
import { scriptJson } from "../../ui/page_state.ts";

const md = (text: string) => renderToString(<Markdown text={text} />);

/** The tag names of every element in some HTML. */
const tagsOf = (html: string) => [...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!);

/** The attribute names of every element in some HTML. */
function attributesOf(html: string): string[] {
  const out: string[] = [];
  for (const tag of html.matchAll(/<[a-zA-Z][\w-]*((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)) {
    for (const a of tag[1]!.matchAll(/\s+([^\s=>"]+)(?:="[^"]*")?/g)) {
      out.push(a[1]!.toLowerCase());
    }
  }
  return out;
}

Deno.test("Markdown: paragraphs sit in one .md block", () => {
  const html = md("First paragraph.\n\nSecond paragraph.");
  assert.equal(html, '<div class="md"><p>First paragraph.</p><p>Second paragraph.</p></div>');
});

Deno.test("Markdown: fenced code keeps its text verbatim and unformatted", () => {
  const html = md("Before\n```ts\nconst a = **b** < c && `d`;\n  indented\n```\nAfter");
  assert.match(
    html,
    /<pre class="md-code"><code>const a = \*\*b\*\* &lt; c &amp;&amp; `d`;\n {2}indented<\/code><\/pre>/,
  );
  assert.match(html, /<p>Before<\/p>/);
  assert.match(html, /<p>After<\/p>/);
  assert.doesNotMatch(html, /<strong>/);
  // An unclosed fence runs to the end.
  assert.match(md("```\nx\ny"), /<pre class="md-code"><code>x\ny<\/code><\/pre>/);
});

Deno.test("Markdown: inline code, bold and italics", () => {
  const html = md("Run `framework run` with **care** and *patience*.");
  assert.equal(
    html,
    '<div class="md"><p>Run <code>framework run</code> with <strong>care</strong> and ' +
      "<em>patience</em>.</p></div>",
  );
  // Inline code is not formatted inside.
  assert.match(md("`**not bold**`"), /<code>\*\*not bold\*\*<\/code>/);
});

Deno.test("Markdown: bullet and numbered lists", () => {
  const bullets = md("Steps:\n- one\n* **two**\n- three");
  assert.match(
    bullets,
    /<p>Steps:<\/p><ul><li>one<\/li><li><strong>two<\/strong><\/li><li>three<\/li><\/ul>/,
  );
  const numbered = md("1. first\n2) second\n10. tenth");
  assert.match(numbered, /<ol><li>first<\/li><li>second<\/li><li>tenth<\/li><\/ol>/);
  assert.doesNotMatch(numbered, /<ul>/);
});

Deno.test("Markdown: headings become emphasized paragraphs, not heading elements", () => {
  const html = md("## Result\nbody");
  assert.match(html, /<p class="md-heading">Result<\/p>/);
  assert.doesNotMatch(html, /<h\d/);
});

Deno.test("Markdown: http and https links open in a new tab with rel=noopener", () => {
  const html = md("See https://example.com/a?b=1&c=2. Or http://example.org/x, please.");
  assert.match(
    html,
    /<a href="https:\/\/example\.com\/a\?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">https:\/\/example\.com\/a\?b=1&amp;c=2<\/a>\. Or /,
  );
  assert.match(html, /<a href="http:\/\/example\.org\/x" [^>]*rel="noopener noreferrer"[^>]*>/);
  for (const a of html.matchAll(/<a [^>]*>/g)) assert.match(a[0], /rel="noopener noreferrer"/);
  assert.deepEqual(attributesOf(html), ["class", "href", "target", "rel", "href", "target", "rel"]);
});

Deno.test("Markdown: Windows line ends read like Unix ones", () => {
  assert.equal(md("a\r\n\r\n- b\r\n- c"), md("a\n\n- b\n- c"));
});

const ATTACKS = [
  "<script>alert(1)</script>",
  '<img src=x onerror="alert(1)">',
  "<img src=x onerror=alert(1)>",
  '<a href="javascript:alert(1)">x</a>',
  "[click](javascript:alert(1))",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(document.cookie)",
  "data:text/html,<script>alert(1)</script>",
  '<svg onload="alert(1)"></svg>',
  '<iframe src="https://evil.example"></iframe>',
  '"><script>alert(1)</script>',
  "**<b onmouseover=alert(1)>bold</b>**",
  "`<script>alert(1)</script>`",
  "```\n</code></pre><script>alert(1)</script>\n```",
  "- <style>body{display:none}</style>",
  'https://example.com/"onmouseover="alert(1)',
  "https://example.com/<script>alert(1)</script>",
];

Deno.test("Markdown: markup in a reply is text, never elements or attributes", () => {
  const allowedTags = new Set(["div", "p", "pre", "code", "strong", "em", "ul", "ol", "li", "a"]);
  const allowedAttributes = new Set(["class", "href", "target", "rel"]);
  for (const text of ATTACKS) {
    const html = md(text);
    for (const tag of tagsOf(html)) assert.ok(allowedTags.has(tag), `<${tag}> from ${text}`);
    for (const attr of attributesOf(html)) {
      assert.ok(allowedAttributes.has(attr), `${attr}= from ${text}: ${html}`);
    }
    assert.doesNotMatch(html, /<script|<img|<svg|<iframe|<style|<b /i, text);
    for (const tag of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
      assert.doesNotMatch(tag[0], /\son\w+\s*=/i, `${text}: ${html}`);
    }
    // No raw `<` reaches the output except as the start of an allowed element.
    assert.equal(
      html.replace(/<\/?(div|p|pre|code|strong|em|ul|ol|li|a)\b/g, "").includes("<"),
      false,
    );
    // Every link points at http(s) only.
    for (const a of html.matchAll(/href="([^"]*)"/g)) {
      assert.match(a[1]!, /^https?:\/\//, `${text}: ${html}`);
    }
  }
});

Deno.test("Markdown: the text of an attack is shown escaped", () => {
  assert.match(md("<script>alert(1)</script>"), /&lt;script>alert\(1\)&lt;\/script>/);
  const img = md('<img src=x onerror="alert(1)">');
  assert.match(img, /&lt;img src=x onerror=&quot;alert\(1\)&quot;>/);
  // A javascript: URL is plain text, not a link.
  const js = md("[click](javascript:alert(1)) and javascript:alert(2)");
  assert.doesNotMatch(js, /<a\b/);
  assert.match(js, /javascript:alert\(2\)/);
});

Deno.test("scriptJson(): </script> cannot close the element", () => {
  const value = { text: "</script><script>alert(1)</script>", nested: ["<!--", "</SCRIPT >"] };
  const json = scriptJson(value);
  assert.doesNotMatch(json, /</);
  assert.doesNotMatch(json, /<\/script/i);
  assert.doesNotMatch(json, /<!--/);
  assert.match(json, /\\u003c\/script>/);
  assert.deepEqual(JSON.parse(json), value);
});

Deno.test("scriptJson(): U+2028 and U+2029 are escaped and read back", () => {
  const value = { text: "a\u2028b\u2029c" };
  const json = scriptJson(value);
  assert.equal(json.includes("\u2028"), false);
  assert.equal(json.includes("\u2029"), false);
  assert.match(json, /a\\u2028b\\u2029c/);
  assert.deepEqual(JSON.parse(json), value);
  // It stays a JavaScript expression too.
  assert.deepEqual(new Function(`return ${json};`)(), value);
});

Deno.test("scriptJson(): ordinary values are plain JSON", () => {
  for (const v of [null, 1, "x", [1, "a"], { a: { b: [true, false] }, "&": "'\"" }]) {
    assert.equal(scriptJson(v), JSON.stringify(v));
  }
});

Deno.test("Markdown: any fence opener (```c++, ```js {1,3}, ````) renders code and ends", () => {
  for (
    const text of [
      "```c++\nint x;\n```",
      "```c#\nvar x;\n```\nafter",
      "```js {1,3}\nlet a;\n```",
      "````\nfour\n````",
      "```\nnever closed",
      "text\n```ts\ncode\n```",
    ]
  ) {
    const html = renderToString(<Markdown text={text} />);
    assert.match(html, /<pre class="md-code"><code>/, text);
    assert.doesNotMatch(html, /<p><\/p>/, text);
  }
});

Deno.test("Markdown: block quotes, nested, holding lists and code; a paragraph ends at one", () => {
  const html = md("Before\n> Quoted **text**\n> - a\n> - b\n>\n> > inner\nAfter");
  assert.match(html, /<p>Before<\/p><blockquote>/);
  assert.match(
    html,
    /<blockquote><p>Quoted <strong>text<\/strong><\/p><ul><li>a<\/li><li>b<\/li><\/ul>/,
  );
  assert.match(html, /<blockquote><p>inner<\/p><\/blockquote><\/blockquote><p>After<\/p>/);
  // Markup inside a quote is still text.
  assert.doesNotMatch(md("> <script>alert(1)</script>"), /<script>/);
  // Very deep nesting stops being quotes instead of recursing without bound.
  assert.ok(md(">".repeat(5000) + " deep").includes("deep"));
});
