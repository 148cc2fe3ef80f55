/**
 * The verbs of `framework` and their descriptions, as plain data with no imports: the root help
 * (`framework`, `--help`) is printed from this table alone, and Deno walks every import a module
 * names (dynamic ones written as a literal too) before it runs, so this file must stay import-free
 * for that help to start as fast as a bare script. cli/verbs.ts pairs each group with the module
 * that registers it; tests/e2e/cli_verbs_test.ts keeps the descriptions equal to the verbs' own.
 *
 * @module
 */

/** A group of verbs that one module under cli/commands/ registers. */
export interface VerbTableGroup {
  /** The module's name under cli/commands/. */
  module: VerbModule;
  verbs: readonly (readonly [name: string, description: string])[];
}

/** The modules under cli/commands/ that register verbs. */
export type VerbModule =
  | "spec_commands"
  | "trust_command"
  | "run_commands"
  | "thread_commands"
  | "approval_commands"
  | "fork_commands"
  | "eval_commands"
  | "interface_commands"
  | "mcp_commands"
  | "keys_commands"
  | "control_plane_command"
  | "evolve_commands"
  | "workbench_command"
  | "hive_commands";

/** Every verb, in the order the help lists them. */
export const VERB_TABLE: readonly VerbTableGroup[] = [
  {
    module: "spec_commands",
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
  },
  {
    module: "trust_command",
    verbs: [[
      "trust",
      "Trust a harness folder (its code may then run here), list trusted folders, or revoke",
    ]],
  },
  {
    module: "run_commands",
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
  },
  {
    module: "thread_commands",
    verbs: [[
      "threads",
      "List, show or delete a harness's threads (conversations): its runs in order, their inputs and answers",
    ]],
  },
  {
    module: "approval_commands",
    verbs: [[
      "approvals",
      "List, show, approve or deny the tool calls a harness's runs wait on (approvals.tools in harness.yaml)",
    ]],
  },
  {
    module: "fork_commands",
    verbs: [
      ["fork", "Fork a run at one of its model calls into a new harness folder beside its parent"],
      [
        "resume",
        "Run a fork from the point it was forked at: the parent's prefix is replayed from its journal (verified first, nothing re-executed), then the run goes on live (exit 0 on success, 3 otherwise)",
      ],
    ],
  },
  {
    module: "eval_commands",
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
  },
  {
    module: "interface_commands",
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
  },
  {
    module: "mcp_commands",
    verbs: [["mcp", "MCP servers of a harness (local only), and mcp serve"]],
  },
  {
    module: "keys_commands",
    verbs: [["keys", "Keys and bearer tokens for the control plane"]],
  },
  {
    module: "control_plane_command",
    verbs: [[
      "control-plane",
      "Serve one harness over bearer-authenticated HTTP (see docs/control-plane.md)",
    ]],
  },
  {
    module: "evolve_commands",
    verbs: [
      ["evolve", "Improve a harness from its own failures"],
      ["proposals", "Review, apply and reject proposals"],
    ],
  },
  {
    module: "workbench_command",
    verbs: [[
      "workbench",
      "Open the workbench: chat with the copilot, run, trace and improve harnesses (docs/workbench.md)",
    ]],
  },
  {
    module: "hive_commands",
    verbs: [[
      "hive",
      "The hive's store: migrate a SQLite hive and its journals into PostgreSQL (docs/deploy.md)",
    ]],
  },
];

/**
 * A verb's description, as its command registers it and the root help lists it: written once, here.
 *
 * @example
 * ```ts
 * verbDescription("run"); // "Run a harness once (exit 0 on success, 3 for any other status)"
 * ```
 * @param name The verb.
 * @returns Its description.
 * @throws When the verb is not in the table (a verb registered without a line of help).
 */
export function verbDescription(name: string): string {
  for (const group of VERB_TABLE) {
    for (const [verb, description] of group.verbs) if (verb === name) return description;
  }
  throw new Error(`No verb ${JSON.stringify(name)} in cli/verb_table.ts: add it there`);
}
