import assert from "node:assert/strict";
import {
  type EditPolicy,
  frozenRootOf,
  HTTP_ONLY_ROOTS,
  REMOTE_ROOTS,
  SAFETY_ROOTS,
} from "../../lib/harness_spec/frozen.ts";

const PROPOSAL = [...SAFETY_ROOTS, ...REMOTE_ROOTS];
const ALL = [...PROPOSAL, ...HTTP_ONLY_ROOTS];

/** A concrete path for a root (`*` becomes a playbook name). */
const concrete = (root: string) => root.replace("*", "research");

/** Parents of a root that are not the whole spec: `evolution` for `evolution.objectives`. */
function parentsOf(root: string): string[] {
  const parts = root.split(".");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("."));
}

Deno.test("frozenRootOf() lists the safety, remote and HTTP-only roots", () => {
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
  assert.deepEqual([...REMOTE_ROOTS].sort(), [
    "approvals",
    "evolution.auto_propose_after",
    "evolution.model",
    "fork",
    "logging.trace_dir",
    "playbooks.*.model",
  ]);
  assert.deepEqual([...HTTP_ONLY_ROOTS].sort(), [
    "delegation",
    "name",
    "playbooks.*.on_enter",
    "playbooks.*.on_exit",
    "tools",
    "verify.validators",
  ]);
});

Deno.test("frozenRootOf() decides every root, child and parent for each policy", async (t) => {
  const expectations: Record<EditPolicy, readonly string[]> = {
    local: [],
    workbench: PROPOSAL,
    proposal: PROPOSAL,
    remote: ALL,
  };
  for (
    const [policy, frozen] of Object.entries(expectations) as [EditPolicy, readonly string[]][]
  ) {
    await t.step(policy, () => {
      for (const root of ALL) {
        const isFrozen = frozen.includes(root);
        const want = isFrozen ? root : undefined;
        const path = concrete(root);
        assert.equal(frozenRootOf(path, policy), want, `${policy}: the root ${root}`);
        assert.equal(
          frozenRootOf(`${path}.child.0`, policy),
          want,
          `${policy}: a child of ${root}`,
        );
        assert.equal(frozenRootOf(`${path}.0`, policy), want, `${policy}: an entry of ${root}`);
        for (const parent of parentsOf(path)) {
          if (isFrozen) {
            assert.ok(frozenRootOf(parent, policy), `${policy}: ${parent} is a parent of ${root}`);
          }
        }
      }
      // The whole spec is a parent of every root.
      assert.equal(!!frozenRootOf("", policy), frozen.length > 0);
    });
  }
});

Deno.test("frozenRootOf() lets through fields that are not frozen", () => {
  for (const policy of ["remote", "proposal", "workbench", "local"] as EditPolicy[]) {
    for (
      const path of [
        "limits.max_turns",
        "skills.refunds",
        "instructions",
        "description",
        "evolution.models",
        "logging.trace_dirs",
        "playbooks.research.instructions",
        "playbooks.0.tools",
        "verify_x",
        "models",
        "identity",
      ]
    ) {
      assert.equal(frozenRootOf(path, policy), undefined, `${policy}: ${path}`);
    }
  }
  assert.equal(frozenRootOf("name", "proposal"), undefined, "name is frozen over HTTP only");
  assert.equal(frozenRootOf("tools.0", "proposal"), undefined, "tools are frozen over HTTP only");
  assert.equal(frozenRootOf("delegation.peers", "proposal"), undefined);
});

Deno.test("frozenRootOf() freezes credential and trace roots for every remote policy", () => {
  for (const policy of ["remote", "proposal", "workbench"] as EditPolicy[]) {
    assert.equal(frozenRootOf("evolution.model.base_url", policy), "evolution.model");
    assert.equal(frozenRootOf("evolution.model.api_key_env", policy), "evolution.model");
    assert.equal(frozenRootOf("logging.trace_dir", policy), "logging.trace_dir");
    assert.equal(
      frozenRootOf("evolution.auto_propose_after", policy),
      "evolution.auto_propose_after",
    );
  }
  assert.equal(frozenRootOf("evolution.model", "local"), undefined);
});

Deno.test("frozenRootOf() matches a * segment with any playbook", () => {
  assert.equal(frozenRootOf("playbooks.research.on_enter", "remote"), "playbooks.*.on_enter");
  assert.equal(frozenRootOf(["playbooks", 2, "on_exit"], "remote"), "playbooks.*.on_exit");
  assert.equal(frozenRootOf("playbooks", "remote"), "playbooks.*.model");
  assert.equal(frozenRootOf("playbooks.research", "remote"), "playbooks.*.model");
  assert.equal(frozenRootOf("playbooks.research.instructions", "remote"), undefined);
  // A playbook's model carries a base_url and a key name, like evolution.model.
  assert.equal(frozenRootOf("playbooks.research.model.base_url", "proposal"), "playbooks.*.model");
  assert.equal(frozenRootOf("playbooks.research.model", "workbench"), "playbooks.*.model");
  assert.equal(frozenRootOf("playbooks.research.on_enter", "proposal"), undefined);
});

Deno.test("frozenRootOf() refuses parents over HTTP: logging, evolution, verify", () => {
  assert.equal(frozenRootOf("logging", "remote"), "logging.redact");
  assert.equal(frozenRootOf("evolution", "remote"), "evolution.auto_propose");
  assert.equal(frozenRootOf("verify", "remote"), "verify.validators");
  assert.equal(frozenRootOf("verify", "proposal"), undefined);
  assert.equal(frozenRootOf("logging", "proposal"), "logging.redact");
});

Deno.test("frozenRootOf() compares case-insensitively and accepts segments", () => {
  assert.equal(frozenRootOf("MODEL.name", "remote"), "model");
  assert.equal(frozenRootOf("Logging.Redact.fields", "proposal"), "logging.redact");
  assert.equal(frozenRootOf(["guardrails", 0, "pattern"], "remote"), "guardrails");
});
