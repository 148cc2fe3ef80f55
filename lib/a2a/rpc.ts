/**
 * JSON-RPC 2.0 as A2A uses it (docs/control-plane.md, A2A): the envelope read at `POST /a2a`, the
 * method names of the protocol version served (`SendMessage`, `SendStreamingMessage`, `GetTask`,
 * `CancelTask`), each method's params read by its schema, and every error as a JSON-RPC error object,
 * its code mapped once from the framework's error kinds (A2A's own codes for a task not found, a task
 * that cannot be cancelled, an operation not offered, a content type not supported).
 *
 * @module
 */

import * as z from "zod";
import { FrameworkError } from "../errors.ts";
import { reportedError } from "../http/response.ts";

/** The JSON-RPC and A2A error codes used. */
export const RPC_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
} as const;

/** The methods served. */
export const A2A_METHODS = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "CancelTask",
] as const;

/** A method served. */
export type A2aMethod = typeof A2A_METHODS[number];

/** A JSON-RPC request id. */
export type RpcId = string | number | null;

/** A JSON-RPC request, read. */
export interface RpcRequest {
  id: RpcId;
  method: A2aMethod;
  params: Record<string, unknown>;
}

/** An error that is answered as a JSON-RPC error object with this code. */
export class RpcError extends Error {
  /** The JSON-RPC code. */
  readonly code: number;
  /** Details for machine readers. */
  readonly data: Record<string, unknown>;

  /**
   * @param code The JSON-RPC code.
   * @param message What went wrong and what to do.
   * @param data Details.
   */
  constructor(code: number, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/** A JSON object (not null, not a list): what a JSON-RPC request, its params and a message part are. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON-RPC id: a string, a (finite) number or null; absent, it is null. */
function isRpcId(value: unknown): value is RpcId | undefined {
  return value === undefined || value === null || typeof value === "string" ||
    (typeof value === "number" && Number.isFinite(value));
}

/**
 * Reads a JSON-RPC request of an A2A method.
 *
 * @example
 * ```ts
 * readRpc({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "run_01…" } }).method; // "GetTask"
 * ```
 * @param body The parsed body.
 * @returns The request.
 * @throws `RpcError` -32600 for a body that is no JSON-RPC 2.0 request (`jsonrpc` "2.0", an id that
 *   is a string, a number or null, a string `method`, `params` an object when present), -32601 for
 *   another method.
 */
export function readRpc(body: unknown): RpcRequest {
  if (
    !isObject(body) || body.jsonrpc !== "2.0" || !isRpcId(body.id) ||
    typeof body.method !== "string" || !(body.params === undefined || isObject(body.params))
  ) {
    throw new RpcError(
      RPC_CODES.INVALID_REQUEST,
      'Not a JSON-RPC 2.0 request: send {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {…}}',
    );
  }
  const { id = null, method, params = {} } = body;
  if (!(A2A_METHODS as readonly string[]).includes(method)) {
    throw new RpcError(
      RPC_CODES.METHOD_NOT_FOUND,
      `Unknown method ${JSON.stringify(method)}: this agent serves ${A2A_METHODS.join(", ")}`,
    );
  }
  return { id, method: method as A2aMethod, params };
}

const SEND_SCHEMA = z.object({
  message: z.object({
    messageId: z.string().optional(),
    contextId: z.string().optional(),
    taskId: z.string().optional(),
    role: z.string().optional(),
    parts: z.array(z.record(z.string(), z.unknown())).min(1),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  configuration: z.object({
    returnImmediately: z.boolean().optional(),
  }).optional(),
  metadata: z.object({
    max_cost_usd: z.number().nonnegative().optional(),
  }).optional(),
});

/** `SendMessage` and `SendStreamingMessage` params, read. */
export type SendParams = z.infer<typeof SEND_SCHEMA>;

/** Absent, or of this type. */
function optional(value: unknown, type: "string" | "boolean"): boolean {
  return value === undefined || typeof value === type;
}

/**
 * The params of a well-formed message (every message the official client sends) without the
 * schema: each check below is one of {@link SEND_SCHEMA}'s, so nothing it refuses passes; anything
 * else is undefined, for the schema to read.
 */
function wellFormedSend(params: unknown): SendParams | undefined {
  if (!isObject(params)) return undefined;
  const { message, configuration, metadata } = params;
  if (!isObject(message) || !(message.metadata === undefined || isObject(message.metadata))) {
    return undefined;
  }
  if (
    !optional(message.messageId, "string") || !optional(message.contextId, "string") ||
    !optional(message.taskId, "string") || !optional(message.role, "string")
  ) return undefined;
  const parts = message.parts;
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every(isObject)) return undefined;
  if (configuration !== undefined) {
    if (!isObject(configuration) || !optional(configuration.returnImmediately, "boolean")) {
      return undefined;
    }
  }
  if (metadata !== undefined) {
    if (!isObject(metadata)) return undefined;
    const cap = metadata.max_cost_usd;
    if (cap !== undefined && !(typeof cap === "number" && Number.isFinite(cap) && cap >= 0)) {
      return undefined;
    }
  }
  return params as SendParams;
}

/** `SendMessage` and `SendStreamingMessage` params (extra fields are ignored, as A2A asks). */
export const SEND_PARAMS = {
  schema: SEND_SCHEMA,
  what: "A2A message",
  example: '{"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "Hello"}]}}',
  wellFormed: wellFormedSend,
};

/** `GetTask` and `CancelTask` params. */
export const TASK_PARAMS = {
  schema: z.object({ id: z.string().min(1) }),
  what: "A2A task request",
  example: '{"id": "run_01…"}',
};

/**
 * The text of a message's parts: text parts only (a run takes text).
 *
 * @param parts The message's parts.
 * @returns Their text, joined by blank lines.
 * @throws `RpcError` -32005 for a part that is not text: a string `text`, with `mediaType` a string
 *   and `metadata` an object when present.
 */
export function messageText(parts: readonly Record<string, unknown>[]): string {
  return parts.map((p, i) => {
    if (
      typeof p.text !== "string" || !optional(p.mediaType, "string") ||
      !(p.metadata === undefined || isObject(p.metadata))
    ) {
      throw new RpcError(
        RPC_CODES.CONTENT_TYPE_NOT_SUPPORTED,
        `Part ${i} is not text: this agent takes text/plain parts ({"text": "…"}) only`,
      );
    }
    return p.text;
  }).join("\n\n");
}

/** JSON-RPC codes per framework error kind. */
const KIND_CODES: Record<string, number> = {
  bad_input: RPC_CODES.INVALID_PARAMS,
  not_found: RPC_CODES.TASK_NOT_FOUND,
  conflict: RPC_CODES.INTERNAL_ERROR,
  over_capacity: RPC_CODES.INTERNAL_ERROR,
  internal: RPC_CODES.INTERNAL_ERROR,
};

/**
 * A JSON-RPC error response for what was thrown.
 *
 * @example
 * ```ts
 * import { notFound } from "../errors.ts";
 *
 * rpcError(7, notFound("Unknown task")); // {jsonrpc: "2.0", id: 7, error: {code: -32001, message: "Unknown task", data: {kind: "not_found"}}}
 * ```
 * @param id The request's id.
 * @param err What was thrown (an `RpcError`, or a framework error).
 * @returns The response body.
 */
export function rpcError(id: RpcId, err: RpcError | FrameworkError): Record<string, unknown> {
  const error = err instanceof RpcError
    ? { code: err.code, message: err.message, data: err.data }
    : {
      code: KIND_CODES[err.kind] ?? RPC_CODES.INTERNAL_ERROR,
      message: err.message,
      data: { kind: err.kind, ...err.details },
    };
  return { jsonrpc: "2.0", id, error };
}

/**
 * A JSON-RPC result response.
 *
 * @param id The request's id.
 * @param result The result.
 * @returns The response body.
 */
export function rpcResult(id: RpcId, result: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result };
}

/**
 * Reads a method's params by its schema; a misfit is -32602 with the framework's message.
 *
 * @param read The schema reader (`readRequest` with a schema).
 * @returns What it read.
 */
export function invalidParams<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof FrameworkError && err.kind === "bad_input") {
      throw new RpcError(RPC_CODES.INVALID_PARAMS, err.message, err.details);
    }
    throw err;
  }
}

/** A refusal of something this face does not offer. */
export function unsupported(message: string): RpcError {
  return new RpcError(RPC_CODES.UNSUPPORTED_OPERATION, message);
}

/** A message's context id that is not a thread the caller may continue. */
export function unknownContext(contextId: string): RpcError {
  return new RpcError(
    RPC_CODES.INVALID_PARAMS,
    `Unknown context ${
      JSON.stringify(contextId)
    }: a context id names a conversation this agent started; omit contextId to start a new one`,
    { field: "message.contextId" },
  );
}

/**
 * The id of a request body, when it has a usable one (an error about the request answers with it).
 *
 * @param body The parsed body.
 * @returns Its id, or null.
 */
export function rpcIdOf(body: unknown): RpcId {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** An answer over HTTP: its status, headers and JSON body. */
export interface RpcHttpError {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * How an error at `/a2a` is answered: a JSON-RPC error with status 200, except a full run queue,
 * answered 503 with `Retry-After` as every route of the control plane answers it.
 *
 * @param id The request's id.
 * @param err What was thrown (an unknown error is logged and reported as internal).
 * @returns The status, headers and body.
 */
export function rpcHttpError(id: RpcId, err: unknown): RpcHttpError {
  const e = err instanceof RpcError ? err : reportedError(err);
  const status = e instanceof FrameworkError && e.kind === "over_capacity" ? 503 : 200;
  const headers = e instanceof FrameworkError ? e.httpHeaders ?? {} : {};
  return { status, headers, body: rpcError(id, e) };
}
