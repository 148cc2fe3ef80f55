import assert from "node:assert/strict";
import canonicalize from "canonicalize";
import { freezeWithSlot } from "../../lib/frozen_slot.ts";
import { journalPayload, journalTogether, prepareJournalList } from "../../lib/journal/payload.ts";
import { compileRedaction, makeRedactor, REDACTED } from "../../lib/journal/redact.ts";

/** The definition, written the long way: plain JSON, then repaired strings and keys, then redacted. */
function reference(value: unknown, config?: { patterns?: string[]; fields?: string[] }) {
  const plain = JSON.parse(
    JSON.stringify(value, (_k, v) => (v instanceof Error ? { error: v.message } : v)) ?? "{}",
  );
  const repair = (v: unknown): unknown => {
    if (typeof v === "string") return v.toWellFormed();
    if (Array.isArray(v)) return v.map(repair);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        const key = k.toWellFormed();
        if (!Object.hasOwn(out, key)) {
          Object.defineProperty(out, key, {
            value: repair(item),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return out;
    }
    return v;
  };
  const payload = makeRedactor(config)(repair(plain));
  return { payload, json: canonicalize(payload) };
}

const CASES: [string, unknown][] = [
  ["empty", {}],
  ["key order", { b: 1, a: 2, A: 3, "é": 4, "\u{1f600}": 5, "10": 6, "9": 7 }],
  ["keys in reverse order", { z: 1, y: { c: 3, b: 2, a: 1 }, x: 0, "": -1 }],
  [
    "more keys than are put in order one by one",
    Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i])),
  ],
  ["numbers", { n: [0, -0, 1.5, 1e21, 1e-7, -12345678901234567890, Number.MAX_SAFE_INTEGER] }],
  ["non-finite numbers and undefined", { a: NaN, b: Infinity, c: undefined, d: [undefined, NaN] }],
  ["nested arrays and objects", { a: [{ z: [1, [2, { y: "x", x: null }]] }, true, false, null] }],
  ["strings that need escapes", { s: 'quote " backslash \\ nl \n tab \t nul \u0000 del \u007f' }],
  ["keys that need escapes", { 'q"k': 1, "b\\k": 2, "c\nk": 3, "\u0001": 4 }],
  ["lone surrogates in values", { s: "a\ud800b", list: ["\udc00", "ok"] }],
  [
    "lone surrogates in keys, two of which meet",
    Object.fromEntries([["k\ud800", 1], ["k\udbff", 2], ["j\udc00", 3]]),
  ],
  ["__proto__ as a key", JSON.parse('{"__proto__": {"x": "\\ud800"}, "a": 1}')],
  ["errors and dates", { err: new Error("boom"), at: new Date(0), nested: [new Error("e2")] }],
  ["toJSON", { v: { toJSON: () => ({ made: "by toJSON", b: 2, a: 1 }) } }],
  ["a long text", { text: "Order #12345 ships on Tuesday. ".repeat(200) }],
  // Plain data takes one walk (lib/journal/payload.ts); these are its edges.
  ["functions and symbols", { f: () => 1, s: Symbol("s"), list: [() => 1, Symbol("t"), 1] }],
  ["a null-prototype object", Object.assign(Object.create(null), { b: 1, a: { c: "\ud800" } })],
  ["a getter", {
    get g() {
      return { z: 1, y: 2 };
    },
    a: 0,
  }],
  ["a holey array", { list: [1, , 3] }],
  ["deeper than one walk goes", { d: Array.from({ length: 100 }).reduce((v) => ({ v }), 1) }],
  ["a class instance beside plain data", {
    p: new (class P {
      x = 1;
      y = "a";
    })(),
    q: { b: 2, a: 1 },
  }],
  ["a toJSON deep inside plain data", { a: [{ b: { toJSON: () => "made" } }], c: "\udc00" }],
];

Deno.test("journalPayload equals the definition (plain, repaired, canonical) on every case", () => {
  for (const [name, value] of CASES) {
    const got = journalPayload(value, undefined);
    const want = reference(value);
    assert.equal(got.json, want.json, name);
    assert.deepEqual(got.payload, want.payload, name);
    assert.equal(JSON.stringify(got.payload), JSON.stringify(want.payload), `${name}: key order`);
  }
});

Deno.test("journalPayload redacts as makeRedactor does, once per string, at any depth", () => {
  const config = { patterns: ["sk-[a-z0-9]+", "RED"], fields: ["password", "Token"] };
  const value = {
    text: "use sk-abc1 and sk-zz9",
    Password: "hunter2",
    nested: [{ token: { deep: "object" } }, "sk-in-array", ["sk-x"]],
    // A pattern that matches the replacement is not applied to it again.
    red: "RED alert",
    "k\ud800": "sk-lone\udc00",
  };
  const got = journalPayload(value, compileRedaction(config));
  const want = reference(value, config);
  assert.equal(got.json, want.json);
  assert.deepEqual(got.payload, want.payload);
  assert.equal((got.payload.nested as Record<string, unknown>[])[0]!.token, REDACTED);
  assert.equal(got.payload.red, `${REDACTED} alert`);
});

Deno.test("journalPayload refuses a cycle or a bigint as JSON.stringify does", () => {
  const cycle: Record<string, unknown> = { a: 1 };
  cycle.self = { back: [cycle] };
  assert.throws(() => journalPayload(cycle, undefined), TypeError);
  assert.throws(() => journalPayload({ n: 1n }, undefined), TypeError);
});

Deno.test("journalPayload: a payload that is not an object journals as {}", () => {
  for (const value of [undefined, null, 3, "text", [1, 2]]) {
    assert.deepEqual(journalPayload(value, undefined), { payload: {}, json: "{}" });
  }
});

Deno.test("journalPayload leaves the caller's value as it was", () => {
  const value = { s: "a\ud800", list: ["sk-1"], o: { password: "p" } };
  const copy = structuredClone(value);
  journalPayload(value, compileRedaction({ patterns: ["sk-1"], fields: ["password"] }));
  assert.deepEqual(value, copy);
});

Deno.test("journalPayload: a pattern that cuts a surrogate pair in half leaves U+FFFD, not a lone half", () => {
  const { payload, json } = journalPayload(
    { note: "ok \u{1f600}" },
    compileRedaction({ patterns: [".$"] }),
  );
  assert.ok((payload.note as string).isWellFormed());
  assert.equal(payload.note, `ok \ufffd${REDACTED}`);
  assert.equal(json, JSON.stringify({ note: `ok \ufffd${REDACTED}` }));
});

Deno.test("journalPayload: a frozen object of plain values is walked once per redaction, and journals as the definition", () => {
  const turn = Object.freeze({ role: "user", content: "my key is sk-abc1 \ud800" });
  const redaction = compileRedaction({ patterns: ["sk-[a-z0-9]+"] });
  for (const r of [undefined, redaction, undefined, redaction]) {
    const value = { append: [turn, { role: "user", content: "now" }] };
    const got = journalPayload(value, r);
    const want = reference(value, r ? { patterns: ["sk-[a-z0-9]+"] } : undefined);
    assert.equal(got.json, want.json);
    assert.deepEqual(got.payload, want.payload);
  }
  // The same frozen object gives the same copy each time (nothing in it can change).
  const a = journalPayload({ m: [turn] }, undefined).payload.m as unknown[];
  const b = journalPayload({ m: [turn] }, undefined).payload.m as unknown[];
  assert.deepEqual(a[0], b[0]);
  assert.notEqual(a[0], b[0]);
  // Each use gets a copy of its own, which its reader may change.
  (a[0] as Record<string, unknown>).role = "changed";
  assert.equal(
    (journalPayload({ m: [turn] }, undefined).payload.m as { role: string }[])[0]!.role,
    "user",
  );
  // A frozen object with an accessor is walked every time.
  let n = 0;
  const counter = Object.freeze({
    get count() {
      return ++n;
    },
  });
  assert.equal(journalPayload({ c: counter }, undefined).json, '{"c":{"count":1}}');
  assert.equal(journalPayload({ c: counter }, undefined).json, '{"c":{"count":2}}');
  // A frozen object holding an object that can still change is walked every time.
  const inner = { n: 1 };
  const holder = Object.freeze({ inner });
  assert.equal(journalPayload({ h: holder }, undefined).json, '{"h":{"inner":{"n":1}}}');
  inner.n = 2;
  assert.equal(journalPayload({ h: holder }, undefined).json, '{"h":{"inner":{"n":2}}}');
});

Deno.test("journalPayload: items journaled together take their text from the list they follow, and journal as the definition", () => {
  const turn = (q: string, a: string) => [
    freezeWithSlot({ role: "user", content: q }),
    freezeWithSlot({ role: "assistant", content: a }),
  ];
  const check = (value: unknown, r?: { patterns: string[] }) => {
    const got = journalPayload(value, r && compileRedaction(r));
    const want = reference(value, r);
    assert.equal(got.json, want.json);
    assert.deepEqual(got.payload, want.payload);
    return got;
  };
  // A thread's history as its runs are given it: a window of the newest turns, moved on by one turn
  // each run (two messages dropped, two added), the run's own message after it.
  let history = [...turn("q1", "a1"), ...turn("q2", 'a2 "quoted"\n')];
  journalTogether(history);
  check({ turn: 1, append: [...history, { role: "user", content: "q3" }] });
  for (let i = 3; i < 8; i++) {
    const next = [...history.slice(2), ...turn(`q${i}`, `a${i}`)];
    journalTogether(next, { items: history, dropped: 2 });
    history = next;
    const got = check({ turn: 1, append: [...history, { role: "user", content: `q${i + 1}` }] });
    // The journaled value holds the items themselves, frozen: no reader can change them.
    const items = got.payload.append as Record<string, unknown>[];
    assert.equal(items[0], history[0]);
    assert.ok(Object.isFrozen(items[0]));
    assert.throws(() => (items[0]!.content = "changed"), TypeError);
    // The run's own message after them is a copy of its own.
    assert.ok(!Object.isFrozen(items.at(-1)));
  }
  // Under a redaction that changes an item, and for an array that starts with other items (or the
  // list in another order), the items are walked one by one: the same text as the definition.
  const secret = [...turn("my key is sk-abc1", "ok"), ...turn("q", "a")];
  journalTogether(secret);
  check({ append: [...secret] }, { patterns: ["sk-[a-z0-9]+"] });
  check({ append: [...secret] });
  check({ append: [secret[1], secret[0], secret[2], secret[3]] });
  check({ append: [{ role: "system", content: "x" }, ...secret] });
  check({ append: secret.slice(0, 3) });
  // A list said to follow items it does not start with is made item by item.
  const wrong = [...turn("other", "items"), ...turn("q9", "a9")];
  journalTogether(wrong, { items: history, dropped: 2 });
  check({ append: [...wrong] });
});

Deno.test("journalPayload: items of strings alone, made together with nothing redacted, journal as the definition", () => {
  const item = (value: Record<string, unknown>) => freezeWithSlot(value);
  // Items a list's text is made of without the walk (strings alone), and items the walk decides (a
  // lone surrogate it repairs, a number, a nested object, keys to escape or put in order).
  const items = [
    item({ role: "user", content: 'quote " backslash \\ nl \n tab \t nul \u0000 del \u007f' }),
    item({ role: "assistant", content: "é \u{1f600} \u2028 </script>" }),
    item({ z: "last", a: "first", "é": "accent", A: "upper", "10": "ten", "9": "nine" }),
    item({ 'q"k': "quoted key", "c\nk": "newline key", "\u0001": "control key" }),
    item({ role: "user", content: "a\ud800b" }),
    item({ role: "user", content: "ok", turn: 3 }),
    item({ role: "tool", content: "x", meta: { b: "2", a: "1" } }),
    item({}),
  ];
  for (let from = 0; from < items.length; from++) {
    const list = [...items.slice(from), ...items.slice(0, from)];
    journalTogether(list);
    prepareJournalList(list, undefined);
    const value = { append: [...list, { role: "user", content: "next" }] };
    const got = journalPayload(value, undefined);
    const want = reference(value);
    assert.equal(got.json, want.json);
    assert.deepEqual(got.payload, want.payload);
  }
});

/**
 * Turns whose messages' walks are seen: the journal's walk reads each object's hidden slot (a symbol
 * key), which neither the identity check of a list nor a spread copy does.
 */
function watchedTurns() {
  const count = { walks: 0 };
  const seen = (value: Record<string, unknown>) =>
    new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key === "symbol") count.walks += 1;
        return Reflect.get(target, key, receiver);
      },
    });
  const turn = (q: string, a: string) => [
    freezeWithSlot(seen({ role: "user", content: q })),
    freezeWithSlot(seen({ role: "assistant", content: a })),
  ];
  return { count, turn };
}

Deno.test("journalPayload: a list made from the list it follows does not walk the items it kept", () => {
  const { count, turn } = watchedTurns();
  let history = [...turn("q1", "a1"), ...turn("q2", "a2"), ...turn("q3", "a3")];
  journalTogether(history);
  journalPayload({ append: [...history] }, undefined);
  for (let i = 4; i < 7; i++) {
    const next = [...history.slice(2), ...turn(`q${i}`, `a${i}`)];
    journalTogether(next, { items: history, dropped: 2 });
    history = next;
    count.walks = 0;
    const { json } = journalPayload({ append: [...history] }, undefined);
    // The first item's slot (where the list is found) and the two new items' walks, no more.
    assert.ok(count.walks <= 4, `${count.walks} reads of hidden slots`);
    assert.equal(json, canonicalize({ append: history.map((m) => ({ ...m })) }));
  }
});

Deno.test("prepareJournalList: a list made ahead is the text journaled, its items not walked again", () => {
  const { count, turn } = watchedTurns();
  // One settings object, as a spec snapshot gives every run: one compiled redaction.
  const config = { patterns: ["sk-[a-z0-9]+"] };
  assert.equal(compileRedaction(config), compileRedaction(config));
  let history = [...turn("q1", "a1"), ...turn("q2", "a2")];
  journalTogether(history);
  journalPayload({ append: [...history] }, compileRedaction(config));
  for (let i = 3; i < 6; i++) {
    const next = [...history.slice(2), ...turn(`q${i}`, `a${i}`)];
    journalTogether(next, { items: history, dropped: 2 });
    history = next;
    prepareJournalList(history, compileRedaction(config));
    count.walks = 0;
    const value = {
      turn: 1,
      append: [...history, { role: "user", content: `q${i + 1} sk-x${i}` }],
    };
    const got = journalPayload(value, compileRedaction(config));
    // The first item's slot, where the list is found: nothing else of the list is read.
    assert.ok(count.walks <= 1, `${count.walks} reads of hidden slots`);
    assert.equal(got.json, reference(value, config).json);
    assert.ok(!got.json.includes("sk-"));
  }
  // A history item the redaction changes: walked item by item, redacted as the definition says.
  const secret = [...history.slice(2), ...turn("my sk-abc1", "a")];
  journalTogether(secret, { items: history, dropped: 2 });
  prepareJournalList(secret, compileRedaction(config));
  const withSecret = { append: [...secret] };
  assert.equal(
    journalPayload(withSecret, compileRedaction(config)).json,
    reference(withSecret, config).json,
  );
  // Made under another redaction, the list is made again under the journal's own.
  const plain = [...history];
  prepareJournalList(history, undefined);
  assert.equal(
    journalPayload({ append: plain }, compileRedaction(config)).json,
    reference({ append: plain }, config).json,
  );
  // Items never marked together are left alone.
  prepareJournalList([{ role: "user", content: "x" }], undefined);
});

Deno.test("compileRedaction: one compiled redaction per settings object, compiled again once they change", () => {
  const config: { patterns?: string[]; fields?: string[] } = { patterns: ["a+"] };
  const first = compileRedaction(config);
  assert.equal(compileRedaction(config), first);
  assert.notEqual(compileRedaction({ patterns: ["a+"] }), first);
  config.patterns = ["b+"];
  const changed = compileRedaction(config);
  assert.notEqual(changed, first);
  assert.equal(journalPayload({ s: "aab" }, changed).json, `{"s":"aa${REDACTED}"}`);
  config.fields = ["secret"];
  assert.equal(
    journalPayload({ secret: 1 }, compileRedaction(config)).json,
    `{"secret":"${REDACTED}"}`,
  );
  assert.equal(compileRedaction({}), undefined);
  assert.equal(compileRedaction(undefined), undefined);
});
