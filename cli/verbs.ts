/**
 * The verbs of `framework`, each with the module that registers it, so a command loads only what its
 * own verb needs (`framework --help` loads none of them). The names and descriptions are in
 * cli/verb_table.ts.
 *
 * @module
 */

import type { Command } from "commander";
import { VERB_TABLE, type VerbModule, type VerbTableGroup } from "./verb_table.ts";

/** A module of verbs: the names it registers and how to load its registration. */
export interface VerbGroup extends VerbTableGroup {
  load: () => Promise<(program: Command) => void>;
}

const LOADERS: Record<VerbModule, VerbGroup["load"]> = {
  spec_commands: async () => (await import("./commands/spec_commands.ts")).registerSpecCommands,
  trust_command: async () => (await import("./commands/trust_command.ts")).registerTrustCommand,
  run_commands: async () => (await import("./commands/run_commands.ts")).registerRunCommands,
  thread_commands: async () =>
    (await import("./commands/thread_commands.ts")).registerThreadCommands,
  approval_commands: async () =>
    (await import("./commands/approval_commands.ts")).registerApprovalCommands,
  fork_commands: async () => (await import("./commands/fork_commands.ts")).registerForkCommands,
  eval_commands: async () => (await import("./commands/eval_commands.ts")).registerEvalCommands,
  interface_commands: async () =>
    (await import("./commands/interface_commands.ts")).registerInterfaceCommands,
  mcp_commands: async () => (await import("./commands/mcp_commands.ts")).registerMcpCommands,
  keys_commands: async () => (await import("./commands/keys_commands.ts")).registerKeysCommands,
  control_plane_command: async () =>
    (await import("./commands/control_plane_command.ts")).registerControlPlaneCommand,
  evolve_commands: async () =>
    (await import("./commands/evolve_commands.ts")).registerEvolveCommands,
  workbench_command: async () =>
    (await import("./commands/workbench_command.ts")).registerWorkbenchCommand,
  hive_commands: async () => (await import("./commands/hive_commands.ts")).registerHiveCommands,
};

/** Every verb with its loader, in the order the help lists them. */
export const VERB_GROUPS: readonly VerbGroup[] = VERB_TABLE.map((g) => ({
  ...g,
  load: LOADERS[g.module],
}));

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
