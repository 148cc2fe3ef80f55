/**
 * The verbs of `framework`, each with the module that registers it, so a command loads only what its
 * own verb needs (`framework --help` loads none of them). The descriptions here are the ones the root
 * help shows; tests/e2e/cli_verbs_test.ts keeps them equal to the verbs' own.
 *
 * @module
 */

import type { Command } from "commander";

/** A module of verbs: the names it registers and how to load its registration. */
export interface VerbGroup {
  verbs: readonly (readonly [name: string, description: string])[];
  load: () => Promise<(program: Command) => void>;
}

/** Every verb, in the order the help lists them. */
export const VERB_GROUPS: readonly VerbGroup[] = [
  {
    verbs: [
      [
        "init",
        "Create a harness folder from a template (offline scripted model, a tool, a validator, a skill)",
      ],
      ["validate", "Check harness.yaml and list every problem (exit 2 when invalid)"],
      [
        "get",
        "Print the spec, or one dotted field of it (e.g. limits.max_turns, skills.refunds)",
      ],
      ["set", `Set one dotted field to a JSON value (12 is a number, '"12"' a string)`],
      ["add", "Add a skill, tool, validator, guardrail or hook"],
      ["remove", "Remove a field or entry by dotted path, or an entry by --kind and --name"],
      [
        "schema",
        "Print the JSON Schema of harness.yaml (or of an eval set with --eval), for editors",
      ],
    ],
    load: async () => (await import("./commands/spec_commands.ts")).registerSpecCommands,
  },
  {
    verbs: [[
      "trust",
      "Trust a harness folder (its code may then run here), list trusted folders, or revoke",
    ]],
    load: async () => (await import("./commands/trust_command.ts")).registerTrustCommand,
  },
  {
    verbs: [
      ["run", "Run a harness once (exit 0 on success, 3 for any other status)"],
      [
        "serve",
        'Read one JSON request per line on stdin ({"input": …} or {"input_file": …}) and write NDJSON frames',
      ],
      ["runs", "List a harness's runs, newest first"],
      ["stats", "Success rate, cost, turns, durations and recent failures of a harness"],
      ["trace", "Show a run's journal, verify its hash chain, or export its bytes verbatim"],
    ],
    load: async () => (await import("./commands/run_commands.ts")).registerRunCommands,
  },
  {
    verbs: [
      ["fork", "Fork a run at one of its model calls into a new harness folder beside its parent"],
      [
        "resume",
        "Run a fork from the point it was forked at: the parent's prefix is replayed from its journal (verified first, nothing re-executed), then the run goes on live (exit 0 on success, 3 otherwise)",
      ],
    ],
    load: async () => (await import("./commands/fork_commands.ts")).registerForkCommands,
  },
  {
    verbs: [
      [
        "eval",
        "Run an eval set (evals/<set>.yaml) against the harness: one journalled run per case (exit 3 when a case fails)",
      ],
      [
        "versions",
        "A harness's recorded versions; compare two (diff) or write one back (restore)",
      ],
    ],
    load: async () => (await import("./commands/eval_commands.ts")).registerEvalCommands,
  },
  {
    verbs: [
      [
        "generate",
        "Write the harness's page, interfaces/default/index.html: one self-contained file a person can use",
      ],
      [
        "package",
        "Write a deployable .tar.gz of the harness (no .framework, .env, traces or uploads), or check one with --verify",
      ],
    ],
    load: async () => (await import("./commands/interface_commands.ts")).registerInterfaceCommands,
  },
  {
    verbs: [["mcp", "MCP servers of a harness (local only), and mcp serve"]],
    load: async () => (await import("./commands/mcp_commands.ts")).registerMcpCommands,
  },
  {
    verbs: [["keys", "Keys and bearer tokens for the control plane"]],
    load: async () => (await import("./commands/keys_commands.ts")).registerKeysCommands,
  },
  {
    verbs: [[
      "control-plane",
      "Serve one harness over bearer-authenticated HTTP (see docs/control-plane.md)",
    ]],
    load: async () =>
      (await import("./commands/control_plane_command.ts")).registerControlPlaneCommand,
  },
  {
    verbs: [
      ["evolve", "Improve a harness from its own failures"],
      ["proposals", "Review, apply and reject proposals"],
    ],
    load: async () => (await import("./commands/evolve_commands.ts")).registerEvolveCommands,
  },
  {
    verbs: [[
      "workbench",
      "Open the workbench: chat with the copilot, run, trace and improve harnesses (docs/workbench.md)",
    ]],
    load: async () => (await import("./commands/workbench_command.ts")).registerWorkbenchCommand,
  },
];

/**
 * The group that registers a verb.
 *
 * @param verb A verb name.
 * @returns Its group, or undefined.
 */
export function groupOf(verb: string | undefined): VerbGroup | undefined {
  return verb === undefined
    ? undefined
    : VERB_GROUPS.find((g) => g.verbs.some(([n]) => n === verb));
}
