/**
 * One line that tells a person what a journal event was: the tool and its arguments, an excerpt of
 * the model's text, the status of the end. The CLI's `trace` and the live view of `run --stream` use
 * it; the JSON forms carry the whole payload instead.
 *
 * @module
 */

import type { JournalEvent } from "./event.ts";

/** Collapses whitespace and cuts text to `max` characters. */
function excerpt(value: unknown, max = 80): string {
  const text = (typeof value === "string" ? value : JSON.stringify(value) ?? "").replace(
    /\s+/g,
    " ",
  ).trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function usd(n: unknown): string {
  return typeof n === "number" ? `$${Number(n.toPrecision(3))}` : "";
}

/**
 * Describes an event in one line (without its seq or time).
 *
 * @example
 * ```ts
 * describeEvent({
 *   type: "tool_call",
 *   payload: { name: "file_read", arguments: { path: "workspace/note.txt" } },
 * }); // 'tool_call      file_read {"path":"workspace/note.txt"}'
 * ```
 * @param event A journal event (or a trace frame with `type` and `payload`).
 * @returns The line.
 */
export function describeEvent(event: Pick<JournalEvent, "type" | "payload">): string {
  const p = event.payload as Record<string, unknown>;
  const parts: string[] = [];
  switch (event.type) {
    case "run_started":
      parts.push(`input "${excerpt(p.input, 60)}"`);
      if (p.input_file) parts.push(`file ${p.input_file}`);
      if (p.model) {
        const m = p.model as { provider?: string; name?: string | null };
        parts.push(`model ${m.provider}${m.name ? `:${m.name}` : ""}`);
      }
      break;
    case "model_call":
      parts.push(`turn ${p.turn}`, `${p.message_count} messages`);
      break;
    case "model_response": {
      parts.push(`turn ${p.turn}`);
      if (typeof p.text === "string" && p.text.trim()) parts.push(`"${excerpt(p.text)}"`);
      const calls = (p.tool_calls as { name: string }[] | undefined) ?? [];
      if (calls.length) parts.push(`calls ${calls.map((c) => c.name).join(", ")}`);
      const u = p.usage as { input_tokens?: number; output_tokens?: number } | undefined;
      if (u) parts.push(`${u.input_tokens ?? 0}→${u.output_tokens ?? 0} tokens`);
      if (typeof p.cost_usd === "number" && p.cost_usd > 0) parts.push(usd(p.cost_usd));
      if (typeof p.latency_ms === "number") parts.push(`${p.latency_ms} ms`);
      break;
    }
    case "model_retry":
      parts.push(`turn ${p.turn}`, excerpt(p.message ?? p.reason ?? p, 80));
      break;
    case "tool_call":
      parts.push(`${p.name} ${excerpt(p.arguments, 70)}`);
      break;
    case "tool_result": {
      parts.push(String(p.name), p.ok ? "ok" : "failed");
      const error = p.error as { message?: string } | undefined;
      parts.push(
        p.ok ? `"${excerpt(p.content, 70)}"` : excerpt(error?.message ?? p.error ?? "", 70),
      );
      if (typeof p.duration_ms === "number") parts.push(`${p.duration_ms} ms`);
      break;
    }
    case "approval_requested":
      parts.push(
        `${p.tool} ${excerpt(p.arguments, 50)}`,
        String(p.approval_id),
        `waits until ${p.expires_at}`,
      );
      break;
    case "approval_decided":
      parts.push(`${p.decision} by ${p.by}`, String(p.approval_id));
      if (p.reason) parts.push(excerpt(p.reason, 60));
      break;
    case "run_resumed":
      parts.push(`from ${p.parent_run_id}`, `on ${p.approval_id}`);
      break;
    case "guardrail":
      parts.push(`${p.name} tripped at ${p.stage}`, excerpt(p.reason, 70));
      break;
    case "verify":
      parts.push(`${p.name} ${p.ok ? "passed" : "failed"}`);
      if (!p.ok && p.reason) parts.push(excerpt(p.reason, 70));
      break;
    case "hook":
      parts.push(`${p.name} on ${p.on}`, p.ok ? "ok" : "failed");
      break;
    case "warning":
      parts.push(excerpt(p.message ?? p.code, 90));
      break;
    case "run_finished":
      parts.push(
        String(p.status),
        `${p.turns ?? "?"} turns`,
        usd(p.cost_usd),
        `${p.duration_ms ?? "?"} ms`,
      );
      if (p.failure_signature) parts.push(String(p.failure_signature));
      break;
    default:
      parts.push(excerpt(p, 90));
  }
  return `${event.type.padEnd(14)} ${parts.filter((s) => s !== "").join(" · ")}`;
}
