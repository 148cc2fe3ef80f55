/**
 * Whether finished runs are exported as OpenTelemetry traces, and how: read from the standard
 * `OTEL_*` environment variables of the process (docs/runs.md, Observability), or, for
 * `framework trace --otlp <endpoint>`, from the endpoint typed on the local command line. Nothing
 * that arrives over HTTP or from a model chooses where traces are sent.
 *
 * @module
 */

import { badInput, quote } from "../errors.ts";
import { DEFAULT_CONTENT_LIMIT } from "./content.ts";

/** The shortest content attribute length limit: room for a message's shape and a little text. */
const MIN_CONTENT_LIMIT = 256;

/** The OTLP protocols the exporter speaks (gRPC is not offered). */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;

/** An OTLP protocol over HTTP. */
export type OtlpProtocol = typeof OTLP_PROTOCOLS[number];

/** How traces are exported. */
export interface OtlpConfig {
  /**
   * The full URL of the traces endpoint when the command line named one; otherwise absent, and the
   * OpenTelemetry exporter reads `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_ENDPOINT` (with `/v1/traces` appended) itself, with the headers,
   * certificates, timeout and compression of the same standard variables.
   */
  url?: string;
  protocol: OtlpProtocol;
  /** `service.name` of the exported resource (`OTEL_SERVICE_NAME`, default `framework`). */
  serviceName: string;
  /** Message content on the spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
  captureContent: boolean;
  /**
   * The longest a content attribute is, in characters (`OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`,
   * else `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, default `DEFAULT_CONTENT_LIMIT`).
   */
  contentLimit: number;
  /**
   * The variables the OpenTelemetry exporter reads itself, as they were when these settings were
   * read (an exporter is made once per distinct set of settings).
   */
  exporterEnv: Record<string, string>;
}

/** The `OTEL_EXPORTER_OTLP_*` variables the exporter reads (each also with `TRACES_`). */
const EXPORTER_VARIABLES = [
  "ENDPOINT",
  "HEADERS",
  "TIMEOUT",
  "COMPRESSION",
  "CERTIFICATE",
  "CLIENT_KEY",
  "CLIENT_CERTIFICATE",
].flatMap((v) => [`OTEL_EXPORTER_OTLP_${v}`, `OTEL_EXPORTER_OTLP_TRACES_${v}`]);

/** Reads one environment variable (the process's by default). */
export type EnvReader = (name: string) => string | undefined;

const processEnv: EnvReader = (name) => Deno.env.get(name);

/** A variable's value, trimmed, or undefined when unset or empty. */
function read(env: EnvReader, name: string): string | undefined {
  const value = env(name)?.trim();
  return value ? value : undefined;
}

/** The content attributes' length limit, from the standard attribute limit variables. */
function contentLimit(env: EnvReader): number {
  const name = read(env, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT") !== undefined
    ? "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"
    : "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT";
  const value = read(env, name);
  if (value === undefined) return DEFAULT_CONTENT_LIMIT;
  const limit = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(limit) || limit < MIN_CONTENT_LIMIT) {
    throw badInput(
      `${name}=${
        quote(value)
      } is not a length: give the most characters a content attribute may hold, at least ${MIN_CONTENT_LIMIT} (default ${DEFAULT_CONTENT_LIMIT})`,
      { variable: name, value },
    );
  }
  return limit;
}

/**
 * The export settings besides the endpoint: protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, default `http/protobuf`), service name and content capture.
 *
 * @throws `bad_input` for a protocol other than `http/protobuf` or `http/json`.
 */
function settings(env: EnvReader): Omit<OtlpConfig, "url"> {
  const name = env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") !== undefined
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = read(env, name) ?? "http/protobuf";
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw badInput(
      `${name}=${quote(protocol)} is not supported: use http/protobuf (the default) or http/json`,
      { variable: name, value: protocol },
    );
  }
  return {
    protocol: protocol as OtlpProtocol,
    contentLimit: contentLimit(env),
    serviceName: read(env, "OTEL_SERVICE_NAME") ?? "framework",
    captureContent:
      read(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")?.toLowerCase() === "true",
    exporterEnv: Object.fromEntries(
      EXPORTER_VARIABLES.flatMap((name) => {
        const value = env(name);
        return value === undefined ? [] : [[name, value]];
      }),
    ),
  };
}

/**
 * The export settings of this process: undefined (off) unless `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, or when `OTEL_SDK_DISABLED=true`.
 *
 * @example
 * ```ts
 * const config = otlpConfigFromEnv((name) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })[name]);
 * config?.protocol; // "http/protobuf"
 * ```
 * @param env Reads a variable (default: the process's environment).
 * @returns The settings, or undefined when export is off.
 * @throws `bad_input` for an unsupported protocol.
 */
export function otlpConfigFromEnv(env: EnvReader = processEnv): OtlpConfig | undefined {
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const on = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") ??
    read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  return on === undefined ? undefined : settings(env);
}

/**
 * The settings of `framework trace <run_id> --otlp [endpoint]`: the endpoint typed on the command
 * line (a base URL like `OTEL_EXPORTER_OTLP_ENDPOINT`: `/v1/traces` is appended), or without one
 * the environment's.
 *
 * @example
 * ```ts
 * otlpConfigFor("http://127.0.0.1:4318").url; // "http://127.0.0.1:4318/v1/traces"
 * ```
 * @param endpoint The base URL, or undefined for the environment's endpoint.
 * @param env Reads a variable (default: the process's environment).
 * @returns The settings.
 * @throws `bad_input` for an endpoint that is not an http(s) URL, or when none is set anywhere.
 */
export function otlpConfigFor(
  endpoint: string | undefined,
  env: EnvReader = processEnv,
): OtlpConfig {
  if (endpoint === undefined) {
    const config = otlpConfigFromEnv(env);
    if (config) return config;
    throw badInput(
      "No OTLP endpoint: give one (--otlp http://127.0.0.1:4318) or set OTEL_EXPORTER_OTLP_ENDPOINT",
    );
  }
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badInput(
      `Invalid OTLP endpoint ${quote(endpoint)}: expected a base URL such as http://127.0.0.1:4318`,
      { endpoint },
    );
  }
  return { ...settings(env), url: `${url.href.replace(/\/+$/, "")}/v1/traces` };
}
