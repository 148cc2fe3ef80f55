/**
 * The zod schema of `harness.yaml`. One schema gives validation messages with paths, the TypeScript
 * types of the parsed spec, and the JSON Schema that `framework schema` prints for editors.
 *
 * @module
 */

import * as z from "zod";
import { BUILTINS, type EntryKind } from "./builtins.ts";
import { entryName } from "./entries.ts";
import { INTERFACE_INPUTS } from "../interface_inputs.ts";

/** A slug: lowercase letters, digits and single dashes. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The longest slug: ids name folders, and a folder name has at most 255 bytes. */
export const MAX_SLUG_LENGTH = 64;
/** What a slug must be, for messages. */
export const SLUG_RULE =
  `expected a slug of lowercase letters, digits and '-', at most ${MAX_SLUG_LENGTH} characters`;

/**
 * Whether a value is a slug (a harness id or a fork name).
 *
 * @param value Anything.
 * @returns True for a slug of at most {@link MAX_SLUG_LENGTH} characters.
 */
export function isSlug(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_SLUG_LENGTH && SLUG_PATTERN.test(value);
}

const slug = z.string().max(MAX_SLUG_LENGTH, SLUG_RULE).regex(SLUG_PATTERN, SLUG_RULE);
const itemName = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
  "expected a name of letters, digits, '_', '-' and '.'",
);

/** `path/to/module.ts#exportName`, relative to the harness folder. */
export const CODE_REF_PATTERN = /^[^#\s]+\.(?:ts|js|mts|mjs|tsx|jsx)#[A-Za-z_$][\w$]*$/;
const codeRef = z.string().regex(
  CODE_REF_PATTERN,
  'expected a code ref "path/module.ts#exportName" relative to the harness folder',
);

/** Checks that `pattern` compiles as a JavaScript regular expression with `flags`. */
function checkRegex(
  ctx: z.core.$RefinementCtx<unknown>,
  pattern: string | undefined,
  flags: string | undefined,
  path: (string | number)[],
): void {
  if (pattern === undefined) return;
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    ctx.addIssue({
      code: "custom",
      path,
      message: `Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`,
    });
  }
}

const permissions = z.strictObject({
  read: z.array(z.string()).optional().describe("Extra paths the code may read"),
  write: z.array(z.string()).optional().describe("Extra paths the code may write"),
  net: z.array(z.string()).optional().describe("Hosts the code may reach (host or host:port)"),
  env: z.array(z.string()).optional().describe("Environment variables the code may read"),
  imports: z.boolean().optional().describe(
    "Allow remote, npm: and jsr: imports (they reach the network)",
  ),
}).describe("Grants beyond the default sandbox (read the harness folder, write workspace/)");

const codeCommon = {
  code: codeRef,
  name: itemName.optional(),
  description: z.string().optional(),
  timeout_s: z.number().positive().optional(),
  permissions: permissions.optional(),
};

const HOOK_EVENTS = ["run_start", "before_model_call", "after_tool_call", "run_end"] as const;

/**
 * Builds the schema of one list entry: a builtin of `kind` or a code ref (also eval checks).
 *
 * @param kind The kind of entry.
 * @param options `grantsRefused`: the message that refuses `permissions` (entries of files that
 *   may not grant anything, such as eval sets).
 * @returns The schema.
 */
export function entrySchema(kind: EntryKind, options: { grantsRefused?: string } = {}) {
  const variants = Object.entries(BUILTINS[kind]).map(([name, info]) =>
    z.strictObject({
      builtin: z.literal(name),
      name: itemName.optional(),
      description: z.string().optional(),
      ...info.options,
    }).superRefine((value, ctx) => {
      const v = value as Record<string, unknown>;
      checkRegex(ctx, v.pattern as string | undefined, v.flags as string | undefined, ["pattern"]);
    }).describe(info.description)
  );
  const extra: z.ZodRawShape = kind === "tool"
    ? {
      schema: z.record(z.string(), z.unknown()).optional().describe("JSON Schema of the arguments"),
    }
    : kind === "hook"
    ? { on: z.enum(HOOK_EVENTS).describe("When the hook is called") }
    : {};
  const code = z.strictObject({
    builtin: z.undefined().optional(),
    ...codeCommon,
    ...(options.grantsRefused
      ? { permissions: z.never({ error: options.grantsRefused }).optional() }
      : {}),
    ...extra,
  });
  return z.discriminatedUnion("builtin", [...variants, code] as unknown as [
    z.ZodObject,
    ...z.ZodObject[],
  ]);
}

const scriptedToolCall = z.strictObject({
  id: z.string().optional(),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

const scriptedReply = z.strictObject({
  text: z.string().optional(),
  tool_calls: z.array(scriptedToolCall).optional(),
  usage: z.strictObject({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }).optional(),
  delay_ms: z.number().int().nonnegative().optional(),
  error: z.strictObject({
    status: z.number().int().optional(),
    message: z.string(),
    retry_after_s: z.number().nonnegative().optional().describe(
      "The Retry-After hint of a 429 or 5xx",
    ),
  }).optional().describe("Fail this model call as a provider would (429 and 5xx are retried)"),
}).describe("One scripted model reply");

/** The `model` block (also used by `evolution.model`). */
export const modelSchema = z.strictObject({
  provider: z.enum(["scripted", "openai", "anthropic", "openai-compatible"]),
  name: z.string().min(1).optional().describe("The provider's model name"),
  base_url: z.url().optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name")
    .optional(),
  pricing: z.strictObject({
    input_per_mtok: z.number().nonnegative(),
    output_per_mtok: z.number().nonnegative(),
  }).optional().describe("USD per million tokens"),
  options: z.record(z.string(), z.unknown()).optional()
    .describe("Provider options such as temperature or max_tokens"),
  max_retries: z.number().int().min(0).max(10).optional(),
  timeout_s: z.number().positive().optional(),
  replies: z.array(scriptedReply).optional().describe("scripted: replies used in order"),
  scenarios: z.array(z.strictObject({
    match: z.string().min(1),
    flags: z.string().regex(/^[dgimsuvy]*$/).optional(),
    replies: z.array(scriptedReply),
  })).optional().describe("scripted: reply lists chosen by a regular expression on the input"),
}).superRefine((m, ctx) => {
  if (m.provider === "scripted") {
    if (!m.replies && !m.scenarios) {
      ctx.addIssue({
        code: "custom",
        path: ["replies"],
        message: "The scripted provider needs `replies` or `scenarios`",
      });
    }
    m.scenarios?.forEach((s, i) => checkRegex(ctx, s.match, s.flags, ["scenarios", i, "match"]));
    return;
  }
  if (!m.name) {
    ctx.addIssue({
      code: "custom",
      path: ["name"],
      message: `The ${m.provider} provider needs a model name`,
    });
  }
  if (m.provider === "openai-compatible" && !m.base_url) {
    ctx.addIssue({
      code: "custom",
      path: ["base_url"],
      message: "The openai-compatible provider needs a base_url, e.g. http://127.0.0.1:11434/v1",
    });
  }
  for (const key of ["replies", "scenarios"] as const) {
    if (m[key]) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `\`${key}\` is only used by the scripted provider`,
      });
    }
  }
});

const skillSchema = z.strictObject({
  name: itemName,
  description: z.string().min(1),
  instructions: z.string().min(1),
});

const playbookSchema = z.strictObject({
  name: itemName,
  description: z.string().optional(),
  instructions: z.string().optional(),
  tools: z.array(z.string()).optional().describe("Tools the model may use in this mode"),
  model: modelSchema.optional().describe("The model used in this mode"),
  on_enter: codeRef.optional().describe("Gate called before the mode is entered"),
  on_exit: codeRef.optional().describe("Gate called before the mode is left"),
  default: z.boolean().optional(),
});

const mcpServerSchema = z.strictObject({
  name: itemName,
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  url: z.url().optional(),
  tools: z.array(z.string()).optional()
    .describe("Allow-list: only these tools of the server are offered (default: all)"),
  timeout_s: z.number().positive().optional().describe("Time limit of one call"),
  optional: z.boolean().optional()
    .describe("When the server cannot start, warn and run without it (default: the run fails)"),
}).superRefine((s, ctx) => {
  if (!!s.command === !!s.url) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "An MCP server needs exactly one of `command` or `url`",
    });
  }
});

const localPeerSchema = z.strictObject({
  name: itemName,
  harness: z.string().min(1).describe("Path of the peer harness, relative to this one"),
  description: z.string().optional(),
  max_cost_usd: z.number().nonnegative().optional(),
});

const remotePeerSchema = z.strictObject({
  a2a: z.url({ protocol: /^https?$/, error: "expected an http(s) URL of an A2A agent" })
    .describe("The peer agent's base URL: its card is at <url>/.well-known/agent-card.json"),
  token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name")
    .describe("The environment variable holding the bearer token sent to this peer (and only it)"),
  description: z.string().optional(),
  max_cost_usd: z.number().nonnegative().optional(),
});

const peerSchema = z.union([localPeerSchema, remotePeerSchema]);

/** A local peer: a harness folder on this machine. */
export type LocalPeer = z.infer<typeof localPeerSchema>;

/** A remote peer: an agent served over A2A, named by its URL (docs/harness-yaml.md, delegation). */
export type RemotePeer = z.infer<typeof remotePeerSchema>;

/**
 * Whether a peer entry is a remote (A2A) one.
 *
 * @example
 * ```ts
 * isRemotePeer({ a2a: "https://agents.example.com/billing", token_env: "BILLING_TOKEN" }); // true
 * isRemotePeer({ name: "billing", harness: "../billing" }); // false
 * ```
 * @param peer The entry.
 * @returns Whether it names an A2A agent.
 */
export function isRemotePeer(peer: LocalPeer | RemotePeer): peer is RemotePeer {
  return "a2a" in peer;
}

/**
 * How a peer is named in the `delegate` tool and the `delegation_*` events: a local peer by its
 * `name`, a remote one by its URL.
 *
 * @param peer The entry.
 * @returns Its name.
 */
export function peerName(peer: LocalPeer | RemotePeer): string {
  return isRemotePeer(peer) ? peer.a2a : peer.name;
}

/** The whole `harness.yaml` schema. */
export const harnessSchema = z.strictObject({
  id: slug.describe("The harness id: lowercase letters, digits and '-'"),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  model: modelSchema,
  instructions: z.string().optional(),
  limits: z.strictObject({
    max_turns: z.number().int().positive().optional(),
    max_cost_usd: z.number().nonnegative().optional(),
    timeout_s: z.number().positive().optional(),
    tool_timeout_s: z.number().positive().optional(),
    thread_history_turns: z.number().int().nonnegative().optional().describe(
      "How many earlier turns of a thread a run of it is given (default 20; 0: none)",
    ),
  }).optional(),
  tools: z.array(entrySchema("tool")).optional(),
  guardrails: z.array(entrySchema("guardrail")).optional(),
  verify: z.strictObject({ validators: z.array(entrySchema("validator")).optional() }).optional(),
  skills: z.array(skillSchema).optional(),
  hooks: z.array(entrySchema("hook")).optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
  mcp_servers: z.array(mcpServerSchema).optional(),
  logging: z.strictObject({
    redact: z.strictObject({
      patterns: z.array(z.string()).optional().describe(
        "Regular expressions replaced by [REDACTED]",
      ),
      fields: z.array(z.string()).optional().describe(
        "Payload field names whose values are redacted",
      ),
    }).optional(),
    trace_dir: z.string().min(1).optional(),
  }).optional(),
  evolution: z.strictObject({
    auto_propose: z.boolean().optional(),
    auto_propose_after: z.number().int().positive().optional()
      .describe("Failures with one signature before an automatic proposal (default 3)"),
    trace_excerpts: z.boolean().optional(),
    objectives: z.array(z.string()).optional(),
    model: modelSchema.optional(),
  }).optional(),
  playbooks: z.array(playbookSchema).optional(),
  interface: z.strictObject({
    input: z.enum(INTERFACE_INPUTS).optional()
      .describe(
        "What the page asks for: text (default), a URL, a file, or chat (a conversation: one thread per page session)",
      ),
    title: z.string().min(1).optional(),
    description: z.string().optional(),
    accept: z.string().optional().describe("For a file input: the accepted types, e.g. .pdf,.txt"),
  }).optional().describe("The generated page (framework generate)"),
  fork: z.strictObject({
    parent: slug.describe("The id of the harness this one was forked from"),
    run_id: z.string().regex(/^run_[0-9A-HJKMNP-TV-Z]{26}$/, "expected a run id (run_<ULID>)"),
    at: z.number().int().positive().describe("The seq of the parent run's model call it re-enters"),
    head: z.string().regex(/^[0-9a-f]{64}$/, "expected a SHA-256 hash (64 hex digits)")
      .describe("The hash of the parent run's event before `at`"),
    edit: z.strictObject({
      kind: z.enum(["user_message", "tool_result"])
        .describe("Which message the model call at `at` was given is replaced"),
      replacement: z.string().describe("What the resumed run's model is given instead"),
      call_id: z.string().optional().describe("The tool call whose result is replaced"),
    }).optional().describe("A change applied at every resume (journalled as fork_edited)"),
  }).optional().describe("Where this harness was forked from (written by `framework fork`)"),
  delegation: z.strictObject({
    peers: z.array(peerSchema).optional(),
    max_depth: z.number().int().nonnegative().optional(),
    max_cost_usd: z.number().nonnegative().optional(),
  }).optional(),
  approvals: z.strictObject({
    tools: z.array(
      z.string().regex(
        /^[A-Za-z0-9_*.-]+$/,
        "expected a tool name or a glob of one (letters, digits, '_', '-', '.' and '*')",
      ),
    ).min(1, "name at least one tool (or a glob such as github__*)").describe(
      "Tools whose calls wait for a person's decision: names or `*` globs over builtin, code and MCP tool names (`<server>__<tool>`)",
    ),
    timeout_s: z.number().positive().optional().describe(
      "How long a request waits before it expires (default 600)",
    ),
  }).optional().describe("A person approves or denies each call of these tools before it runs"),
}).superRefine((spec, ctx) => crossCheck(spec, ctx), { when: () => true });

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Checks that span fields: unique names per list, compilable redaction patterns, one default playbook.
 * It also runs when other fields are invalid (so `validate` lists every problem), hence the defensive
 * reads of a value whose shape is not yet known.
 */
function crossCheck(raw: unknown, ctx: z.core.$RefinementCtx<unknown>): void {
  if (!raw || typeof raw !== "object") return;
  const spec = raw as Record<string, Record<string, unknown> | undefined>;
  const lists: [string[], unknown, string][] = [
    [["tools"], spec.tools, "tool"],
    [["guardrails"], spec.guardrails, "guardrail"],
    [["verify", "validators"], spec.verify?.validators, "validator"],
    [["hooks"], spec.hooks, "hook"],
    [["skills"], spec.skills, "skill"],
    [["playbooks"], spec.playbooks, "playbook"],
    [["mcp_servers"], spec.mcp_servers, "MCP server"],
    [["delegation", "peers"], spec.delegation?.peers, "peer"],
  ];
  for (const [path, list, label] of lists) {
    const seen = new Set<string>();
    asList(list).forEach((entry, i) => {
      const name = entryName(entry);
      if (name === undefined) return;
      if (seen.has(name)) {
        ctx.addIssue({
          code: "custom",
          path: [...path, i],
          message: `Duplicate ${label} name ${
            JSON.stringify(name)
          }: give each ${label} a unique \`name\``,
        });
      }
      seen.add(name);
    });
  }
  const urls = new Set<string>();
  asList(spec.delegation?.peers).forEach((entry, i) => {
    const url = (entry as Record<string, unknown> | null)?.a2a;
    if (typeof url !== "string") return;
    if (urls.has(url)) {
      ctx.addIssue({
        code: "custom",
        path: ["delegation", "peers", i, "a2a"],
        message: `Duplicate remote peer ${JSON.stringify(url)}: list each A2A agent once`,
      });
    }
    urls.add(url);
  });
  const redact = (spec.logging?.redact ?? {}) as Record<string, unknown>;
  asList(redact.patterns).forEach((p, i) => {
    if (typeof p === "string") checkRegex(ctx, p, "g", ["logging", "redact", "patterns", i]);
  });
  const defaults = asList(spec.playbooks).filter((p) =>
    (p as Record<string, unknown> | null)?.default === true
  );
  if (defaults.length > 1) {
    ctx.addIssue({
      code: "custom",
      path: ["playbooks"],
      message: "At most one playbook may be `default: true`",
    });
  }
}

/** A parsed, valid `harness.yaml`. */
export type HarnessSpec = z.infer<typeof harnessSchema>;
/** The `model` block. */
export type ModelSpec = z.infer<typeof modelSchema>;
/** One scripted reply. */
export type ScriptedReply = z.infer<typeof scriptedReply>;
