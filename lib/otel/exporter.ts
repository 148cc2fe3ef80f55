/**
 * Sending spans over OTLP with OpenTelemetry's own exporters (`@opentelemetry/exporter-trace-otlp-proto`
 * for http/protobuf, `@opentelemetry/exporter-trace-otlp-http` for http/json): they encode the
 * request and send it, reading the standard variables for what this module does not set (endpoint,
 * headers, certificates, timeout, compression), and retry a retryable failure (a refused connection,
 * 429, 502, 503, 504) a bounded number of times within the timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`,
 * 10 s by default).
 *
 * @module
 */

import { ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import {
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { FRAMEWORK_VERSION } from "../version.ts";
import type { OtlpConfig } from "./config.ts";

/** One exporter per settings, made once (it keeps its connections). */
const exporters = new Map<string, SpanExporter>();

/**
 * The resource every span of this process is exported with: `service.name` (`OTEL_SERVICE_NAME`,
 * default `framework`), `service.version`, and `OTEL_RESOURCE_ATTRIBUTES`.
 *
 * @param config The export settings.
 * @returns The resource.
 */
export function exportResource(config: OtlpConfig): Resource {
  return resourceFromAttributes({
    "service.name": config.serviceName,
    "service.version": FRAMEWORK_VERSION,
  }).merge(detectResources({ detectors: [envDetector] }));
}

/**
 * The exporter of these settings, made on first use: it reads the standard variables it needs then,
 * so settings read from the environment make theirs at once (see `export_queue.ts`).
 *
 * @param config The settings.
 * @returns The exporter.
 */
export function exporterFor(config: OtlpConfig): SpanExporter {
  const key = JSON.stringify([config.protocol, config.url ?? null, config.exporterEnv]);
  let exporter = exporters.get(key);
  if (!exporter) {
    const options = config.url ? { url: config.url } : {};
    exporter = config.protocol === "http/json"
      ? new JsonTraceExporter(options)
      : new ProtobufTraceExporter(options);
    exporters.set(key, exporter);
  }
  return exporter;
}

/**
 * Sends spans to the collector and waits for its answer (retries included).
 *
 * @example
 * ```ts
 * import { otlpConfigFor } from "./config.ts";
 *
 * await sendSpans(otlpConfigFor("http://127.0.0.1:4318"), []);
 * ```
 * @param config Where and how.
 * @param spans The spans (one run's trace).
 * @throws When the collector could not be reached or refused them, with the exporter's reason.
 */
export async function sendSpans(config: OtlpConfig, spans: ReadableSpan[]): Promise<void> {
  if (!spans.length) return;
  const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) =>
    exporterFor(config).export(spans, resolve)
  );
  if (result.code !== ExportResultCode.SUCCESS) {
    throw new Error(result.error?.message || "the collector did not accept the spans");
  }
}
