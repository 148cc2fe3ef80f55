/**
 * The bodies the services accept, one schema each, used by the control plane, the workbench API and
 * the CLI alike, so a body is checked the same way wherever it arrives. A body that does not fit is
 * `bad_input` naming the field and saying what to send.
 *
 * @module
 */

import * as z from "zod";
import { badInput } from "./errors.ts";
import { INTERFACE_INPUTS } from "./interface_inputs.ts";
import { isWholeNumberText } from "./whole_number.ts";

/**
 * What a schema checks, for messages: `run request`, `set request`; and, for a request on a hot path,
 * a plain reader of its common shape (`wellFormed`), tried first: it takes only bodies the schema
 * accepts, answering the body itself (fields the schema would drop are left in it, unread), and
 * answers undefined for anything else, which the schema then reads (and names the misfit of).
 */
type Named<T extends z.ZodType> = {
  schema: T;
  what: string;
  example: string;
  wellFormed?: (body: unknown) => z.infer<T> | undefined;
};

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : typeof value;
}

/**
 * Checks a parsed JSON body against a request schema.
 *
 * @example
 * ```ts
 * import { readJsonObject } from "./http/body.ts";
 *
 * Deno.serve(async (request) => {
 *   const body = await readJsonObject(request, 1024 * 1024);
 *   const { input, input_file } = readRequest(RUN_REQUEST, body);
 *   return Response.json({ ok: true, data: { input, input_file } });
 * });
 * ```
 * @param request The request's schema.
 * @param body The parsed body.
 * @returns The typed body.
 * @throws `bad_input` naming the first field that does not fit, and what to send.
 */
export function readRequest<T extends z.ZodType>(request: Named<T>, body: unknown): z.infer<T> {
  const plain = request.wellFormed?.(body);
  if (plain !== undefined) return plain;
  const parsed = request.schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  let path = issue.path.join(".");
  let why: string;
  if (issue.code === "unrecognized_keys") {
    why = `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    path = [...issue.path, issue.keys[0]!].join("."); // the field named is the first unknown one
  } else if (issue.code === "invalid_type") {
    let at: unknown = body;
    for (const k of issue.path) at = (at as Record<PropertyKey, unknown> | undefined)?.[k];
    why = at === undefined
      ? `missing ${JSON.stringify(path)}`
      : `${JSON.stringify(path)}: expected ${issue.expected}, got ${describeType(at)}`;
  } else {
    why = path ? `${JSON.stringify(path)}: ${issue.message}` : issue.message;
  }
  throw badInput(`Invalid ${request.what}: ${why}; send ${request.example}`, {
    ...(path ? { field: path } : {}),
  });
}

/**
 * What a run is asked: literal `input`, a file of the harness (`input_file`), or both — never
 * neither. The run schema is the one place that rule is written; every face reads its body (or its
 * flags, or its protocol's message) into this before a run is prepared.
 */
export type RunRequest =
  | { input: string; input_file?: string }
  | { input?: string; input_file: string };

const runBody = z.strictObject({
  input: z.string().optional(),
  input_file: z.string().optional(),
}).refine((b) => b.input !== undefined || b.input_file !== undefined, {
  message: "missing input: give `input` (text) or `input_file` (a path)",
}).transform((b) => b as RunRequest);

/** `POST /run`, `POST /api/harnesses/{id}/runs`, a `framework serve` line. */
export const RUN_REQUEST = {
  schema: runBody,
  what: "run request",
  example: '{"input": "…"} or {"input_file": "path/in/the/harness"}',
};

/** `framework run`: the same rule, its flags named in the message. */
export const RUN_FLAGS = {
  schema: runBody,
  what: "run",
  example: "--input TEXT or --input-file PATH (inside the harness folder)",
};

/** The most a thread's metadata may weigh, as JSON. */
export const MAX_THREAD_METADATA_BYTES = 16 * 1024;

/** A thread's metadata: an object of at most {@link MAX_THREAD_METADATA_BYTES} as JSON. */
export const THREAD_METADATA = z.record(z.string(), z.unknown()).refine(
  (m) => new TextEncoder().encode(JSON.stringify(m)).length <= MAX_THREAD_METADATA_BYTES,
  `at most ${MAX_THREAD_METADATA_BYTES / 1024} KiB as JSON`,
);

const threadBody = z.strictObject({ metadata: THREAD_METADATA.optional() });

/** `POST /threads`, `POST /api/harnesses/{id}/threads`: a new thread, with optional metadata. */
export const THREAD_REQUEST = {
  schema: threadBody,
  what: "thread request",
  example: '{} or {"metadata": {"customer": "c-42"}}',
};

const approvalDecisionBody = z.strictObject({
  decision: z.enum(["approve", "deny"]),
  arguments_hash: z.string().regex(
    /^[0-9a-f]{64}$/,
    "expected the request's 64-hex arguments_hash",
  ),
  reason: z.string().max(2000).optional(),
});

/** `POST /approvals/{id}`: a person's decision, quoting the hash of the arguments they were shown. */
export const APPROVAL_DECISION_REQUEST = {
  schema: approvalDecisionBody,
  what: "decision",
  example:
    '{"decision": "approve" or "deny", "arguments_hash": "<the request\'s>", "reason"?: "…"}',
};

/**
 * Reads the `status` filter of a list of approval requests.
 *
 * @example
 * ```ts
 * approvalFilter(undefined); // "all"
 * approvalFilter("pending"); // "pending"
 * ```
 * @param value The parameter, or undefined.
 * @returns `pending`, `decided` or `all`.
 * @throws `bad_input` naming the filters.
 */
export function approvalFilter(value: string | undefined): "pending" | "decided" | "all" {
  if (value === undefined || value === "") return "all";
  if (value === "pending" || value === "decided") return value;
  throw badInput(
    `status=${JSON.stringify(value)} is not a filter: send status=pending or status=decided`,
    { field: "status" },
  );
}

/** What a message to a busy thread does (docs/control-plane.md, Threads). */
export const BUSY_POLICIES = ["reject", "steer", "queue"] as const;

/** One of {@link BUSY_POLICIES}. */
export type BusyPolicy = typeof BUSY_POLICIES[number];

/**
 * Reads the `busy` query parameter of a thread's run.
 *
 * @example
 * ```ts
 * busyPolicy(undefined); // "reject"
 * busyPolicy("steer"); // "steer"
 * ```
 * @param value The parameter, or undefined.
 * @returns The policy (`reject` when absent).
 * @throws `bad_input` naming the policies.
 */
export function busyPolicy(value: string | undefined): BusyPolicy {
  if (value === undefined || value === "") return "reject";
  if ((BUSY_POLICIES as readonly string[]).includes(value)) return value as BusyPolicy;
  throw badInput(
    `busy=${
      JSON.stringify(value)
    } is not a policy: send busy=reject (409 while a run goes on), busy=steer (the text steers that run) or busy=queue (run after it)`,
    { field: "busy" },
  );
}

const setBody = z.strictObject({ path: z.string(), value: z.unknown() });

/** `POST /set`: a dotted path and a typed JSON value. */
export const SET_REQUEST = {
  schema: setBody,
  what: "set request",
  example: '{"path": "limits.max_turns", "value": 12}',
};

const confirmable = { confirm_frozen: z.boolean().optional() };

/** The workbench's field edit: a set, and `confirm_frozen` for a person's confirmed frozen field. */
export const WORKBENCH_SET_REQUEST = {
  schema: z.strictObject({ path: z.string(), value: z.unknown(), ...confirmable }),
  what: "set request",
  example: '{"path": "limits.max_turns", "value": 12, "confirm_frozen"?: true}',
};

const removeTarget = [
  z.strictObject({ path: z.string() }),
  z.strictObject({ kind: z.string(), name: z.string() }),
] as const;

/** `POST /remove`: a dotted path, or an entry by kind and name. */
export const REMOVE_REQUEST = {
  schema: z.union(removeTarget),
  what: "remove request",
  example: '{"path": "skills.refunds"} or {"kind": "skill", "name": "refunds"}',
};

/** The workbench's removal: a remove, and `confirm_frozen` for a confirmed frozen field. */
export const WORKBENCH_REMOVE_REQUEST = {
  schema: z.union([
    z.strictObject({ path: z.string(), ...confirmable }),
    z.strictObject({ kind: z.string(), name: z.string(), ...confirmable }),
  ]),
  what: "remove request",
  example: '{"path": "skills.refunds"} or {"kind": "skill", "name": "refunds"}',
};

const proposeBody = z.strictObject({
  objective: z.string().optional(),
  runs: z.array(z.string()).optional(),
});

/** `POST /evolve/propose`, the workbench's "Draft a proposal". */
export const PROPOSE_REQUEST = {
  schema: proposeBody,
  what: "propose request",
  example: '{} or {"objective": "…", "runs": ["run_…"]}',
};

const applyBody = z.strictObject({
  approve_code: z.array(z.string()).optional(),
  apply_yaml: z.boolean().optional(),
});

/** `POST /proposals/{id}/apply`. */
export const APPLY_REQUEST = {
  schema: applyBody,
  what: "apply request",
  example: '{"apply_yaml": true, "approve_code": ["c1"]}',
};

const rejectBody = z.strictObject({ reason: z.string() });

/** `POST /proposals/{id}/reject`. */
export const REJECT_REQUEST = {
  schema: rejectBody,
  what: "reject request",
  example: '{"reason": "…"}',
};

const specTextBody = z.strictObject({ text: z.string(), confirm_frozen: z.boolean().optional() });

/** `PUT /api/harnesses/{id}/spec`: the whole `harness.yaml`. */
export const SPEC_TEXT_REQUEST = {
  schema: specTextBody,
  what: "harness.yaml request",
  example: '{"text": "<the whole harness.yaml>"}',
};

/** `POST /api/harnesses/{id}/spec/frozen-changes`: a whole `harness.yaml` to check before saving. */
export const SPEC_CHECK_REQUEST = {
  schema: z.strictObject({ text: z.string() }),
  what: "harness.yaml check",
  example: '{"text": "<the whole harness.yaml>"}',
};

const createHarnessBody = z.strictObject({
  id: z.string(),
  template: z.string().optional(),
  name: z.string().optional(),
});

/** `POST /api/harnesses`. */
export const CREATE_HARNESS_REQUEST = {
  schema: createHarnessBody,
  what: "new harness request",
  example: '{"id": "my-harness", "template": "blank"}',
};

const selection = z.strictObject({
  harness_id: z.string().nullable().optional(),
  run_id: z.string().nullable().optional(),
});

const conversationCreateBody = z.strictObject({
  title: z.string().optional(),
  harness_id: z.string().optional(),
});

/** `POST /api/conversations`. */
export const CONVERSATION_CREATE_REQUEST = {
  schema: conversationCreateBody,
  what: "new conversation request",
  example: '{} or {"title": "…", "harness_id": "…"}',
};

const conversationPatchBody = z.strictObject({
  title: z.string().optional(),
  selected_harness_id: z.string().nullable().optional(),
  selected_run_id: z.string().nullable().optional(),
});

/** `PATCH /api/conversations/{id}`. */
export const CONVERSATION_PATCH_REQUEST = {
  schema: conversationPatchBody,
  what: "conversation change",
  example: '{"selected_harness_id": "…", "selected_run_id": null}',
};

const chatMessageBody = z.strictObject({
  message: z.string(),
  selection: selection.optional(),
});

/** `POST /api/conversations/{id}/messages`. */
export const CHAT_MESSAGE_REQUEST = {
  schema: chatMessageBody,
  what: "message",
  example: '{"message": "…", "selection": {"harness_id": "…", "run_id": null}}',
};

/**
 * The seq a client resumes after: `Last-Event-ID` (or `?last_event_id=`), trimmed; anything that is
 * not a whole number starts from the beginning.
 *
 * @param header The `Last-Event-ID` header.
 * @param query The `last_event_id` query parameter.
 * @returns The last seq the client has (0 for none).
 */
export function lastEventId(header: string | undefined, query: string | undefined): number {
  const raw = (header ?? query ?? "0").trim();
  return isWholeNumberText(raw) ? Number(raw) : 0;
}

const steerBody = z.strictObject({ text: z.string() });

/** `POST /api/runs/{id}/messages`, `PATCH /api/runs/{id}/messages/{message_id}`. */
export const STEER_REQUEST = {
  schema: steerBody,
  what: "steering message",
  example: '{"text": "Answer in French from now on"}',
};

const steerEditBody = z.strictObject({ id: z.string(), text: z.string() });

/** `PATCH /api/runs/{id}/messages`: the message named in the body. */
export const STEER_EDIT_REQUEST = {
  schema: steerEditBody,
  what: "steering message edit",
  example: '{"id": "msg_…", "text": "…"}',
};

const playbookBody = z.strictObject({ name: z.string() });

/** `POST /api/runs/{id}/playbook`. */
export const PLAYBOOK_REQUEST = {
  schema: playbookBody,
  what: "playbook change",
  example: '{"name": "research"}',
};

const stopBody = z.strictObject({ now: z.boolean().optional() });

/** `POST /api/runs/{id}/stop`. */
export const STOP_REQUEST = {
  schema: stopBody,
  what: "stop request",
  example: '{} (at the next turn boundary) or {"now": true}',
};

/** `POST /api/harnesses/{id}/resume`: nothing to send. */
export const RESUME_REQUEST = {
  schema: z.strictObject({}),
  what: "resume request",
  example: "{}",
};

/** `POST /api/harnesses/{id}/versions/{version}/restore`. */
export const RESTORE_REQUEST = {
  schema: z.strictObject(confirmable),
  what: "restore request",
  example: '{} or {"confirm_frozen": true} to restore a version whose frozen fields differ',
};

const evalCaseBody = z.strictObject({
  set: z.string(),
  case: z.record(z.string(), z.unknown()),
});

/** `POST /api/harnesses/{id}/evals/cases`: a case for a set (a new name makes a new set). */
export const EVAL_CASE_REQUEST = {
  schema: evalCaseBody,
  what: "eval case",
  example:
    '{"set": "smoke", "case": {"id": "greets", "input": "Hello", "expect": [{"builtin": "contains", "text": "Hi"}]}}',
};

const evalBody = z.strictObject({ set: z.string().optional(), version: z.string().optional() });

/** `POST /api/harnesses/{id}/evals`: a set, and a recorded version to measure (default: current). */
export const EVAL_REQUEST = {
  schema: evalBody,
  what: "eval request",
  example: '{"set": "smoke"} or {"set": "smoke", "version": "3f2a9c"}',
};

/** `POST /api/harnesses/{id}/proposals/{pid}/measure`. */
export const MEASURE_REQUEST = {
  schema: z.strictObject({ set: z.string().optional() }),
  what: "measure request",
  example: '{} or {"set": "smoke"}',
};

/** `POST /api/harnesses/{id}/interface`: write (or replace) the harness's page. */
export const GENERATE_REQUEST = {
  schema: z.strictObject({
    input: z.enum(INTERFACE_INPUTS).optional(),
    force: z.boolean().optional(),
  }),
  what: "generate request",
  example: '{} or {"input": "chat", "force": true}',
};
