/**
 * A local OTLP/HTTP traces receiver for tests: it listens on 127.0.0.1, decodes what it receives
 * with the official OTLP definitions (the protobuf root generated from opentelemetry-proto that
 * `@opentelemetry/otlp-transformer` shipped, for http/protobuf; the OTLP JSON mapping for
 * http/json) and keeps the spans.
 *
 * @module
 */

import protos from "otlp-protos";

/** An attribute value as OTLP carries it, decoded. */
export type AttributeValue = string | number | boolean | AttributeValue[] | null;

/** A received span, decoded. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, AttributeValue>;
  links: { traceId: string; spanId: string; attributes: Record<string, AttributeValue> }[];
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
}

/** One request the receiver got. */
export interface ReceivedRequest {
  contentType: string;
  spans: ReceivedSpan[];
}

/** A running receiver. */
export interface OtlpReceiver extends AsyncDisposable {
  /** The base URL (`http://127.0.0.1:<port>`): `/v1/traces` is where spans go. */
  url: string;
  requests: ReceivedRequest[];
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  /** Waits until `ready(spans)` holds (polling; gives up after `limitMs`, default 30 s). */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, limitMs?: number): Promise<ReceivedSpan[]>;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const REQUEST = (protos as Json).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function hexOf(v: unknown): string {
  if (typeof v !== "string" || !v) return "";
  // protobuf bytes come as base64 (toObject), OTLP JSON ids as hex.
  if (/^[0-9a-f]+$/.test(v) && (v.length === 16 || v.length === 32)) return v;
  return Array.from(atob(v), (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}

function value(v: Json): AttributeValue {
  if (!v) return null;
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) return (v.arrayValue.values ?? []).map(value);
  return null;
}

function attributes(list: Json[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((kv: Json) => [kv.key, value(kv.value)]));
}

/** The spans of an ExportTraceServiceRequest as a plain object (protobuf's or JSON's). */
function spansOf(request: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hexOf(s.traceId),
          spanId: hexOf(s.spanId),
          parentSpanId: hexOf(s.parentSpanId),
          name: s.name,
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: BigInt(s.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(s.endTimeUnixNano ?? 0),
          attributes: attributes(s.attributes),
          links: (s.links ?? []).map((l: Json) => ({
            traceId: hexOf(l.traceId),
            spanId: hexOf(l.spanId),
            attributes: attributes(l.attributes),
          })),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? "" },
          resource,
        });
      }
    }
  }
  return out;
}

/** Decodes a request body by its content type. */
function decode(contentType: string, body: Uint8Array): ReceivedSpan[] {
  if (contentType.startsWith("application/x-protobuf")) {
    const message = REQUEST.decode(body);
    return spansOf(REQUEST.toObject(message, { longs: String, bytes: String, enums: Number }));
  }
  if (contentType.startsWith("application/json")) {
    return spansOf(JSON.parse(new TextDecoder().decode(body)));
  }
  throw new Error(`Unexpected content type ${contentType}`);
}

/**
 * Starts a receiver on a free port of 127.0.0.1.
 *
 * @returns The receiver; dispose it to stop it.
 */
export function startOtlpReceiver(): OtlpReceiver {
  const requests: ReceivedRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const contentType = req.headers.get("content-type") ?? "";
    const body = new Uint8Array(await req.arrayBuffer());
    if (new URL(req.url).pathname !== "/v1/traces") return new Response(null, { status: 404 });
    requests.push({ contentType, spans: decode(contentType, body) });
    return contentType.startsWith("application/json")
      ? Response.json({})
      : new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
  });
  const spans = () => requests.flatMap((r) => r.spans);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    spans,
    async waitFor(ready, limitMs = 30_000) {
      const until = Date.now() + limitMs;
      while (!ready(spans())) {
        if (Date.now() > until) {
          throw new Error(`The receiver did not get the expected spans: ${
            JSON.stringify(
              spans().map((s) => s.name),
            )
          }`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return spans();
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/**
 * A port of 127.0.0.1 nothing listens on (bound, then closed): a dead collector.
 *
 * @returns The base URL.
 */
export function deadEndpoint(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}`;
}
