import assert from "node:assert/strict";
import { deadline } from "../lib/deadline.ts";
import { linkSignals } from "../lib/linked_signal.ts";

Deno.test("linkSignals() aborts with the first source's reason", () => {
  const a = new AbortController();
  const b = new AbortController();
  const link = linkSignals(a.signal, undefined, b.signal);
  assert.equal(link.signal.aborted, false);
  b.abort("b went");
  assert.equal(link.signal.aborted, true);
  assert.equal(link.signal.reason, "b went");
  a.abort("a went");
  assert.equal(link.signal.reason, "b went");
});

Deno.test("linkSignals() of an aborted source is aborted at once", () => {
  const a = new AbortController();
  a.abort("early");
  const link = linkSignals(a.signal);
  assert.equal(link.signal.aborted, true);
  assert.equal(link.signal.reason, "early");
});

Deno.test("linkSignals() lets go of its sources when disposed", () => {
  const source = new AbortController();
  let added = 0;
  let removed = 0;
  const add = source.signal.addEventListener.bind(source.signal);
  const remove = source.signal.removeEventListener.bind(source.signal);
  source.signal.addEventListener = (...args: Parameters<typeof add>) => (added++, add(...args));
  source.signal.removeEventListener = (...args: Parameters<typeof remove>) => (
    removed++, remove(...args)
  );
  {
    using link = linkSignals(source.signal);
    assert.equal(link.signal.aborted, false);
  }
  assert.equal(added, 1);
  assert.equal(removed, 1);
  source.abort();
});

Deno.test("deadline() aborts with a TimeoutError, and clear() cancels it", async () => {
  const quick = deadline(5);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(quick.signal.aborted, true);
  assert.equal((quick.signal.reason as DOMException).name, "TimeoutError");
  const cleared = deadline(5);
  cleared.clear();
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(cleared.signal.aborted, false);
});
