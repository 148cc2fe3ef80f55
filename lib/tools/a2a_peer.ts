/**
 * Calling a remote peer over A2A (docs/harness-yaml.md, delegation; docs/security.md, Remote peers):
 * the official `@a2a-js/sdk` client, its card fetched without a token, the task sent as one message
 * and its updates streamed until the task ends (or waits for input). The bearer token, read from the
 * environment variable the peer's entry names, is only ever sent to the configured URL's origin: the
 * fetch the client is given refuses every other address and every redirect, so neither a model's
 * argument nor the remote card's endpoint can carry it elsewhere. The token is never returned,
 * journalled or logged; a failure's message names the URL and the variable, not the value.
 *
 * @module
 */

import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { type AgentCard, Role, type Task, TaskState } from "@a2a-js/sdk";
import { badInput } from "../errors.ts";
import { RUN_STATUSES, type RunStatus } from "../run_types.ts";

/** What {@link peerCard} reports of a remote peer's card. */
export interface PeerCard {
  name: string;
  description: string;
  version: string;
  /** The JSON-RPC endpoint the card names. */
  endpoint: string | null;
  streaming: boolean;
  skills: string[];
}

/** How a remote hand-off ended. */
export interface RemoteOutcome {
  /** The remote task id (the child reference). */
  task_id: string;
  /** The remote agent's name (its card's). */
  agent: string;
  /** The run status it reads as here. */
  status: RunStatus;
  /** The task's final A2A state, as the protocol names it (`completed`, `failed`, …). */
  state: string;
  output: string;
  /** What the remote reported it cost (`metadata.cost_usd`), undefined when it reported none. */
  reported_cost_usd: number | undefined;
  turns: number;
  /** Why a task that did not complete ended, as the remote said it. */
  error?: string;
}

/** The A2A states by the enum's value, as the protocol's task state names end. */
const STATE_NAMES: Record<number, string> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input_required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth_required",
};

/** States after which a task goes on no further without the caller (terminal or interrupted). */
const SETTLED = new Set([
  "completed",
  "failed",
  "canceled",
  "input_required",
  "rejected",
  "auth_required",
]);

/**
 * A fetch that sends the peer's token to the configured origin only: a request anywhere else (a card
 * naming another host, a redirect) is refused before it leaves, and redirects are never followed.
 *
 * @param url The configured peer URL.
 * @param token The bearer token, or undefined to send none (the card needs none).
 * @returns The fetch the SDK is given.
 */
export function peerFetch(url: string, token: string | undefined): typeof fetch {
  const origin = new URL(url).origin;
  return (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== origin) {
      return Promise.reject(
        new Error(
          `The A2A peer ${url} pointed at ${target.origin}, another origin: its token is only sent to ${origin}`,
        ),
      );
    }
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    return fetch(target, { ...init, headers, redirect: "error" });
  };
}

/**
 * Fetches a remote peer's agent card (no token is sent) and reports what it offers.
 *
 * @example
 * ```ts
 * const card = await peerCard("http://127.0.0.1:8787");
 * console.log(card.name, card.endpoint); // "billing" "http://127.0.0.1:8787/a2a"
 * ```
 * @param url The configured peer URL.
 * @param signal Aborts the fetch.
 * @returns The card's name, description, version, endpoint, streaming and skills.
 * @throws When the card cannot be fetched or read.
 */
export async function peerCard(url: string, signal?: AbortSignal): Promise<PeerCard> {
  const card = await resolveCard(url, signal);
  const endpoint = card.supportedInterfaces?.find((i) =>
    i.protocolBinding.toUpperCase() === "JSONRPC"
  );
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    endpoint: endpoint?.url ?? null,
    streaming: card.capabilities?.streaming === true,
    skills: (card.skills ?? []).map((s) => s.id || s.name),
  };
}

async function resolveCard(url: string, signal?: AbortSignal): Promise<AgentCard> {
  const base = peerFetch(url, undefined);
  const resolver = new DefaultAgentCardResolver({
    fetchImpl: (input, init) => base(input, { ...init, ...(signal ? { signal } : {}) }),
  });
  return await resolver.resolve(url);
}

/**
 * The bearer token of a remote peer, from the environment variable its entry names.
 *
 * @param tokenEnv The variable's name.
 * @returns The token.
 * @throws `bad_input` when the variable is unset or empty (its name is said; no value is).
 */
export function peerToken(tokenEnv: string): string {
  const token = Deno.env.get(tokenEnv);
  if (!token) {
    throw badInput(
      `The environment variable ${tokenEnv} (the peer's token_env) is not set: set it to the peer's bearer token`,
      { field: "token_env" },
    );
  }
  return token;
}

/** A client for a peer, its token bound to the configured origin. */
async function clientFor(url: string, token: string): Promise<{ client: Client; card: AgentCard }> {
  const card = await resolveCard(url);
  const fetchImpl = peerFetch(url, token);
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    preferredTransports: ["JSONRPC"],
  }));
  return { client: await factory.createFromAgentCard(card), card };
}

/** The text of a task's final answer: its artifacts' text parts, else its status message's. */
function textOf(task: Task): string {
  const fromArtifacts = (task.artifacts ?? []).flatMap((a) => a.parts)
    .map((p) => p.content?.$case === "text" ? p.content.value : "").join("");
  if (fromArtifacts) return fromArtifacts;
  return (task.status?.message?.parts ?? [])
    .map((p) => p.content?.$case === "text" ? p.content.value : "").join("");
}

/** The run status a remote task's end reads as here. */
function statusOf(state: string, metadata: Record<string, unknown> | undefined): RunStatus {
  if (state === "completed") return "success";
  const said = metadata?.status;
  return typeof said === "string" && (RUN_STATUSES as readonly string[]).includes(said) &&
      said !== "success"
    ? said as RunStatus
    : "error";
}

/** A reported number from a task's metadata, or undefined. */
function reported(metadata: Record<string, unknown> | undefined, key: string): number | undefined {
  const v = metadata?.[key];
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}

/** Options of {@link sendToPeer}. */
export interface SendToPeer {
  /** The configured peer URL. */
  url: string;
  /** The bearer token (from {@link peerToken}). */
  token: string;
  /** The task's text. */
  task: string;
  /** The hand-off's cost cap, asked of the peer as `metadata.max_cost_usd` (a framework peer keeps to it). */
  capUsd: number | undefined;
  /** Called once the remote task exists, with its id and the agent's name. */
  onTask: (taskId: string, agent: string) => void;
  /** Cancels the remote task when aborted. */
  signal: AbortSignal;
}

/**
 * Hands a task to a remote peer: sends it as a streamed message and follows the task until it is
 * completed, failed, canceled or waits for input. Aborting the signal cancels the remote task.
 *
 * @example
 * ```ts
 * const outcome = await sendToPeer({
 *   url: "http://127.0.0.1:8787",
 *   token: peerToken("BILLING_TOKEN"),
 *   task: "Count the refunds of May",
 *   capUsd: 0.5,
 *   onTask: (id) => console.log("remote task", id),
 *   signal: AbortSignal.timeout(60_000),
 * });
 * outcome.status; // "success"
 * ```
 * @param options The peer, its token, the task and its cap.
 * @returns How the remote task ended.
 * @throws When the peer cannot be reached or answers outside the protocol.
 */
export async function sendToPeer(options: SendToPeer): Promise<RemoteOutcome> {
  const { client, card } = await clientFor(options.url, options.token);
  const metadata = options.capUsd === undefined ? undefined : { max_cost_usd: options.capUsd };
  let task: Task | undefined;
  let state = "submitted";
  let cancel: Promise<unknown> | undefined;
  const onAbort = () => {
    if (task) {
      cancel ??= client.cancelTask({ tenant: "", id: task.id, metadata: undefined }).catch(
        () => {},
      );
    }
  };
  options.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const stream = client.sendMessageStream({
      tenant: "",
      message: {
        messageId: crypto.randomUUID(),
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: [{
          content: { $case: "text", value: options.task },
          metadata: undefined,
          filename: "",
          mediaType: "text/plain",
        }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata,
    }, { signal: options.signal });
    for await (const event of stream) {
      const p = event.payload;
      if (!p) continue;
      if (p.$case === "task") {
        const first = task === undefined;
        task = p.value;
        state = STATE_NAMES[task.status?.state ?? 0] ?? "unknown";
        if (first) options.onTask(task.id, card.name);
      } else if (p.$case === "statusUpdate" && task) {
        task = { ...task, status: p.value.status, metadata: p.value.metadata ?? task.metadata };
        state = STATE_NAMES[p.value.status?.state ?? 0] ?? "unknown";
      } else if (p.$case === "artifactUpdate" && task && p.value.artifact) {
        task = { ...task, artifacts: [...(task.artifacts ?? []), p.value.artifact] };
      } else if (p.$case === "message" && !task) {
        // A peer that answers with a message alone made no task: its text is the answer.
        const text = p.value.parts.map((x) => x.content?.$case === "text" ? x.content.value : "")
          .join("");
        return {
          task_id: p.value.messageId,
          agent: card.name,
          status: "success",
          state: "completed",
          output: text,
          reported_cost_usd: reported(p.value.metadata, "cost_usd"),
          turns: 0,
        };
      }
      if (SETTLED.has(state)) break;
    }
  } finally {
    options.signal.removeEventListener("abort", onAbort);
  }
  if (!task) throw new Error(`The A2A peer ${options.url} answered no task`);
  if (!SETTLED.has(state)) {
    // The stream ended early: the task as it stands now.
    task = await client.getTask({ tenant: "", id: task.id });
    state = STATE_NAMES[task.status?.state ?? 0] ?? "unknown";
  }
  if (cancel) await cancel;
  const meta = task.metadata as Record<string, unknown> | undefined;
  const status = statusOf(state, meta);
  const output = textOf(task);
  return {
    task_id: task.id,
    agent: card.name,
    status,
    state,
    output,
    reported_cost_usd: reported(meta, "cost_usd"),
    turns: reported(meta, "turns") ?? 0,
    ...(status === "success" ? {} : {
      error: state === "input_required"
        ? "the remote task waits for input (a person's decision there)"
        : `the remote task ended ${state}${
          typeof meta?.status === "string" ? ` (${meta.status})` : ""
        }${output ? `: ${output}` : ""}`,
    }),
  };
}
