/**
 * Slash commands of the chat: `/run hello`, `/steer …`, `/stop`, `/fork 6 try-b`, `/eval`,
 * `/propose`, `/measure`, `/remember …`, `/help`. Each calls one of the copilot's own tools directly,
 * with no language model, so the chat is useful before a copilot model is configured (and quicker
 * for the things one knows how to ask). A command is a chat turn like any other: the copilot harness
 * runs with a two-step script made from the command (the tool call, then one line saying what it
 * did), so the turn is journalled, its tool activity and artifacts are the ones the copilot's tool
 * calls make, and the conversation stores it. A model, when one is set, keeps every tool.
 *
 * @module
 */

import type { Message, ModelProvider, ModelResponse, ToolCall } from "../models/types.ts";
import { isWholeNumberText } from "../whole_number.ts";

/** A command of the chat. */
export interface SlashCommand {
  /** Its name, typed after the slash. */
  name: string;
  /** How it is written. */
  usage: string;
  /** What it does. */
  description: string;
  /** The copilot tool it calls (none for `/help`). */
  tool: string | null;
}

/** Every command, in the order `/help` and the composer list them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "run",
    usage: "/run <input>",
    description: "Run the selected harness with this input; it goes on live (/steer, /stop)",
    tool: "execute_run",
  },
  {
    name: "steer",
    usage: "/steer <text>",
    description: "Tell the run started here something: its model reads it at the next turn",
    tool: "steer_run",
  },
  {
    name: "stop",
    usage: "/stop [now]",
    description: "Stop the run started here at its next turn boundary (now: at once)",
    tool: "stop_run",
  },
  {
    name: "fork",
    usage: "/fork <seq> <name>",
    description: "Fork the selected run at its model call <seq> into a new harness <name>",
    tool: "fork_run",
  },
  {
    name: "eval",
    usage: "/eval [set]",
    description: "Run an eval set of the selected harness (its only one, or <set>)",
    tool: "measure_harness",
  },
  {
    name: "propose",
    usage: "/propose [objective]",
    description:
      "Draft an improvement proposal from the harness's failures (queued, never applied)",
    tool: "propose_improvement",
  },
  {
    name: "measure",
    usage: "/measure",
    description: "Success rate, cost, turns and failure groups of the selected harness",
    tool: "measure_harness",
  },
  {
    name: "remember",
    usage: "/remember <text>",
    description: "Remember a fact across conversations (Settings › Memory lists it)",
    tool: "remember_memory",
  },
  { name: "help", usage: "/help", description: "List these commands", tool: null },
];

/** The commands that call a tool, as one line: `/run <input>, /steer <text>, …`. */
export function slashUsages(): string {
  return SLASH_COMMANDS.filter((c) => c.tool).map((c) => c.usage).join(", ");
}

/** What a message that is a command comes to. */
export type SlashDispatch =
  /** A tool call, made by a copilot turn with {@link commandModel} as its model. */
  | { command: SlashCommand; call: ToolCall }
  /** An answer needing no tool: `/help`, or how to write a command that was written wrongly. */
  | { command: SlashCommand; reply: string };

/** The commands as `/help` lists them. */
export function slashHelp(): string {
  return [
    "Commands call the copilot's tools directly, with no model:",
    "",
    ...SLASH_COMMANDS.map((c) => `- \`${c.usage}\` — ${c.description}`),
    "",
    "They act on the harness and run selected above the chat.",
  ].join("\n");
}

/**
 * Reads a chat message as a command: a slash and a command's name, then its arguments. Any other
 * message (`/etc/hosts is empty`, `/unknown`) is not a command and goes to the copilot as text.
 *
 * @example
 * ```ts
 * slashCommand("/run hello"); // { command: {name: "run", …}, call: {name: "execute_run", arguments: {input: "hello", wait: false}} }
 * slashCommand("/fork six b"); // { command: {name: "fork", …}, reply: "Usage: /fork <seq> <name> …" }
 * slashCommand("hello"); // null
 * ```
 * @param text The message.
 * @returns The tool call or the reply, or null for an ordinary message.
 */
export function slashCommand(text: string): SlashDispatch | null {
  const m = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  const command = m && SLASH_COMMANDS.find((c) => c.name === m[1]);
  if (!m || !command) return null;
  const rest = (m[2] ?? "").trim();
  const usage = (why: string) => ({
    command,
    reply: `${why}. Usage: \`${command.usage}\` — ${command.description}.`,
  });
  const call = (args: Record<string, unknown>) => ({
    command,
    call: { id: `slash_${command.name}`, name: command.tool!, arguments: args },
  });
  switch (command.name) {
    case "run":
      return rest ? call({ input: rest, wait: false }) : usage("Say what to run the harness with");
    case "steer":
      return rest ? call({ text: rest }) : usage("Say what to tell the run");
    case "stop":
      if (rest && rest !== "now") {
        return usage(`/stop takes only "now", not ${JSON.stringify(rest)}`);
      }
      return call({ now: rest === "now" });
    case "fork": {
      const [seq, name, ...more] = rest.split(/\s+/);
      if (!seq || !name || more.length || !isWholeNumberText(seq)) {
        return usage("Give the seq of a model call of the selected run and the fork's name");
      }
      return call({ at: Number(seq), name });
    }
    case "eval":
      if (/\s/.test(rest)) return usage("Name one set");
      return call({ eval: true, ...(rest ? { set: rest } : {}) });
    case "propose":
      return call(rest ? { objective: rest } : {});
    case "measure":
      return rest ? usage("/measure takes nothing") : call({});
    case "remember":
      return rest ? call({ content: rest, scope: "global" }) : usage("Say what to remember");
    default:
      return { command, reply: slashHelp() };
  }
}

/** The result a tool call answered, as the model reads it. */
function toolAnswer(
  messages: Message[],
): { ok: boolean; text: string; json: Record<string, unknown> } {
  const last = messages.findLast((m) => m.role === "tool");
  const text = last?.content ?? "";
  if (!last || (last.role === "tool" && last.is_error)) {
    const code = /^Error \(([a-z_]+)\): /.exec(text)?.[1];
    // Said for a person at the chat, not for a model choosing tools.
    const why = code === "no_harness"
      ? "no harness is selected; choose one above the chat (or in the rail)"
      : code === "no_run"
      ? "no run is selected; open one in Runs or Trace"
      : text.replace(/^Error \([a-z_]+\): /, "");
    return { ok: false, text: why, json: {} };
  }
  try {
    const json = JSON.parse(text);
    return { ok: true, text, json: json && typeof json === "object" ? json : {} };
  } catch {
    return { ok: true, text, json: {} };
  }
}

function percent(rate: unknown): string {
  return typeof rate === "number" ? `${Math.round(rate * 1000) / 10}%` : "no";
}

/** The fields the summaries read from the tools' answers. */
interface ToolJson {
  run_id?: string;
  harness_id?: string;
  id?: string;
  scope?: string;
  proposal_id?: string;
  rationale?: string;
  message?: { run_id?: string };
  fork?: { parent_run_id?: string; at?: number };
  harness?: { id?: string };
  runs?: { total?: number; success_rate?: number | null };
  eval?: { set: string; pass_rate: number; cases: { passed: boolean }[] };
}

/** One line saying what a command did, from its tool's answer. */
function summary(
  command: SlashCommand,
  call: ToolCall,
  answer: ReturnType<typeof toolAnswer>,
): string {
  if (!answer.ok) return `\`/${command.name}\` could not be done: ${answer.text}`;
  const r = answer.json as ToolJson;
  switch (command.name) {
    case "run":
      return `Started run \`${r.run_id}\` of **${r.harness_id}**: its card opens the trace. \`/steer <text>\` tells it something, \`/stop\` stops it.`;
    case "steer":
      return `Queued for run \`${r.message?.run_id}\`: its model reads it at the next turn.`;
    case "stop":
      return `Run \`${r.run_id}\` stops ${
        call.arguments.now ? "now" : "at its next turn boundary"
      }.`;
    case "fork":
      return `Forked run \`${r.fork?.parent_run_id}\` at seq ${r.fork?.at} into **${r.harness?.id}**; resume it from its page.`;
    case "eval": {
      const e = r.eval;
      if (!e) return "No eval ran.";
      const passed = e.cases.filter((c) => c.passed).length;
      return `Eval set **${e.set}** of **${r.id}**: ${passed}/${e.cases.length} cases passed (${
        percent(e.pass_rate)
      }).`;
    }
    case "propose":
      return `Queued proposal \`${r.proposal_id}\` for review in Improve (nothing applied): ${
        r.rationale ?? ""
      }`.trim();
    case "measure":
      return `**${r.id}**: ${r.runs?.total ?? 0} runs, ${percent(r.runs?.success_rate)} success.`;
    case "remember":
      return `Remembered (${r.scope}): it reaches the copilot in every conversation.`;
    default:
      return `Done: \`/${command.name}\`.`;
  }
}

/**
 * The "model" of a command's turn: it asks for the command's tool call, then says in one line what
 * the tool did. Deterministic and offline; no language model is called.
 *
 * @param dispatch The command and its tool call.
 * @returns The provider, for the copilot run of the turn.
 */
export function commandModel(dispatch: { command: SlashCommand; call: ToolCall }): ModelProvider {
  let calls = 0;
  const answer = (text: string, tool_calls: ToolCall[]): ModelResponse => ({
    text,
    tool_calls,
    usage: { input_tokens: 0, output_tokens: 0 },
    usage_reported: true,
    finish_reason: tool_calls.length ? "tool_calls" : "stop",
  });
  return {
    provider: "scripted",
    model: `/${dispatch.command.name}`,
    generate(request) {
      calls += 1;
      if (calls === 1) return Promise.resolve(answer("", [dispatch.call]));
      return Promise.resolve(
        answer(summary(dispatch.command, dispatch.call, toolAnswer(request.messages)), []),
      );
    },
  };
}
