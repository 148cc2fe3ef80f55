import assert from "node:assert/strict";
import { type Caller, frozenRootOf, HTTP_ONLY_ROOTS, SAFETY_ROOTS } from "../../lib/spec/frozen.ts";

const ALL = [...SAFETY_ROOTS, ...HTTP_ONLY_ROOTS];

/** Parents of a root that are not the whole spec: `evolution` for `evolution.objectives`. */
function parentsOf(root: string): string[] {
  const parts = root.split(".");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("."));
}

Deno.test("frozenRootOf() lists the ten safety roots and three HTTP-only roots", () => {
  assert.deepEqual([...SAFETY_ROOTS].sort(), [
    "evolution.auto_propose",
    "evolution.objectives",
    "evolution.trace_excerpts",
    "extensions",
    "guardrails",
    "hooks",
    "id",
    "logging.redact",
    "mcp_servers",
    "model",
  ]);
  assert.deepEqual([...HTTP_ONLY_ROOTS].sort(), ["name", "tools", "verify.validators"]);
});

Deno.test("frozenRootOf() decides every root, child and parent for each caller", async (t) => {
  const expectations: Record<Caller, readonly string[]> = {
    cli: [],
    proposal: SAFETY_ROOTS,
    http: ALL,
    proposal_http: ALL,
  };
  for (const [caller, frozen] of Object.entries(expectations) as [Caller, readonly string[]][]) {
    await t.step(caller, () => {
      for (const root of ALL) {
        const isFrozen = frozen.includes(root);
        const want = isFrozen ? root : undefined;
        assert.equal(frozenRootOf(root, caller), want, `${caller}: the root ${root}`);
        assert.equal(
          frozenRootOf(`${root}.child.0`, caller),
          want,
          `${caller}: a child of ${root}`,
        );
        assert.equal(frozenRootOf(`${root}.0`, caller), want, `${caller}: an entry of ${root}`);
        for (const parent of parentsOf(root)) {
          if (isFrozen) {
            assert.ok(frozenRootOf(parent, caller), `${caller}: ${parent} is a parent of ${root}`);
          }
        }
      }
      // The whole spec is a parent of every root.
      assert.equal(!!frozenRootOf("", caller), frozen.length > 0);
    });
  }
});

Deno.test("frozenRootOf() lets through fields that are not frozen", () => {
  for (const caller of ["http", "proposal", "proposal_http", "cli"] as Caller[]) {
    for (
      const path of [
        "limits.max_turns",
        "skills.refunds",
        "instructions",
        "description",
        "evolution.model",
        "logging.trace_dir",
        "verify_x",
        "models",
        "identity",
      ]
    ) {
      assert.equal(frozenRootOf(path, caller), undefined, `${caller}: ${path}`);
    }
  }
  assert.equal(frozenRootOf("name", "proposal"), undefined, "name is frozen over HTTP only");
  assert.equal(frozenRootOf("tools.0", "proposal"), undefined, "tools are frozen over HTTP only");
});

Deno.test("frozenRootOf() refuses parents over HTTP: logging, evolution, verify", () => {
  assert.equal(frozenRootOf("logging", "http"), "logging.redact");
  assert.equal(frozenRootOf("evolution", "http"), "evolution.auto_propose");
  assert.equal(frozenRootOf("verify", "http"), "verify.validators");
  assert.equal(frozenRootOf("verify", "proposal"), undefined);
  assert.equal(frozenRootOf("logging", "proposal"), "logging.redact");
});

Deno.test("frozenRootOf() compares case-insensitively and accepts segments", () => {
  assert.equal(frozenRootOf("MODEL.name", "http"), "model");
  assert.equal(frozenRootOf("Logging.Redact.fields", "proposal"), "logging.redact");
  assert.equal(frozenRootOf(["guardrails", 0, "pattern"], "http"), "guardrails");
});
