/**
 * Reading A2A's JSON-RPC requests (lib/a2a/rpc.ts): the envelope and its codes, a message's params
 * read without the schema when well formed (every such reading agreeing with the schema's, and the
 * shapes the official client sends taken so), and a message's text parts.
 *
 * @module
 */

import assert from "node:assert/strict";
import { messageText, readRpc, RPC_CODES, RpcError, SEND_PARAMS } from "../../lib/a2a/rpc.ts";
import { readRequest } from "../../lib/requests.ts";

const rpcCode = (code: number) => (err: unknown) => err instanceof RpcError && err.code === code;

Deno.test("readRpc takes a JSON-RPC 2.0 request of a served method, and refuses the rest", () => {
  assert.deepEqual(readRpc({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "r" } }), {
    id: 7,
    method: "GetTask",
    params: { id: "r" },
  });
  // No id is a null id; no params are empty ones.
  assert.deepEqual(readRpc({ jsonrpc: "2.0", method: "CancelTask" }), {
    id: null,
    method: "CancelTask",
    params: {},
  });
  assert.equal(readRpc({ jsonrpc: "2.0", id: "a", method: "SendMessage" }).id, "a");
  assert.equal(readRpc({ jsonrpc: "2.0", id: null, method: "SendMessage" }).id, null);
  const invalid = [
    [],
    null,
    "x",
    {},
    { jsonrpc: "1.0", id: 1, method: "SendMessage" },
    { jsonrpc: 2, id: 1, method: "SendMessage" },
    { jsonrpc: "2.0", id: {}, method: "SendMessage" },
    { jsonrpc: "2.0", id: true, method: "SendMessage" },
    { jsonrpc: "2.0", id: Infinity, method: "SendMessage" }, // what JSON's 1e400 reads as
    { jsonrpc: "2.0", id: 1 },
    { jsonrpc: "2.0", id: 1, method: 5 },
    { jsonrpc: "2.0", id: 1, method: "SendMessage", params: [] },
    { jsonrpc: "2.0", id: 1, method: "SendMessage", params: null },
    { jsonrpc: "2.0", id: 1, method: "Nope", params: "x" }, // the envelope is read first
  ];
  for (const body of invalid) {
    assert.throws(() => readRpc(body), rpcCode(RPC_CODES.INVALID_REQUEST), JSON.stringify(body));
  }
  assert.throws(
    () => readRpc({ jsonrpc: "2.0", id: 1, method: "message/send" }),
    rpcCode(RPC_CODES.METHOD_NOT_FOUND),
  );
});

const text = (t: string) => ({ text: t });
const message = (more: Record<string, unknown> = {}) => ({
  messageId: "m1",
  role: "ROLE_USER",
  parts: [text("hi")],
  ...more,
});

/** Params the plain reader takes: the official client's (as it sends them), curl's, and the like. */
const WELL_FORMED: Record<string, unknown>[] = [
  { message: message(), configuration: {} },
  {
    message: message({ contextId: "c" }),
    configuration: { returnImmediately: true },
    metadata: { max_cost_usd: 1 },
  },
  { message: { parts: [text("a"), { text: "b", mediaType: "text/plain", metadata: { x: 1 } }] } },
  { message: message({ taskId: "", contextId: "", metadata: {}, extensions: [] }), tenant: "" },
  { message: message(), metadata: { max_cost_usd: 0 } },
  { message: message({ parts: [{ file: { uri: "x" } }] }) }, // a part's kind is messageText's
];

/** Params it leaves to the schema. */
const MISFITS: unknown[] = [
  {},
  { message: null },
  { message: [] },
  { message: { parts: [] } },
  { message: { parts: "x" } },
  { message: { parts: [null] } },
  { message: { parts: ["x"] } },
  { message: { parts: [[]] } },
  { message: message({ messageId: 5 }) },
  { message: message({ contextId: null }) },
  { message: message({ taskId: 1 }) },
  { message: message({ role: false }) },
  { message: message({ metadata: [] }) },
  { message: message({ metadata: null }) },
  { message: message(), configuration: null },
  { message: message(), configuration: { returnImmediately: "yes" } },
  { message: message(), metadata: null },
  { message: message(), metadata: [] },
  { message: message(), metadata: { max_cost_usd: -1 } },
  { message: message(), metadata: { max_cost_usd: "1" } },
  { message: message(), metadata: { max_cost_usd: Infinity } },
  { message: message(), metadata: { max_cost_usd: NaN } },
];

Deno.test("a message's params are read without the schema only when the schema takes them, as it reads them", () => {
  const plain = SEND_PARAMS.wellFormed;
  for (const params of [...WELL_FORMED, ...MISFITS]) {
    const read = plain(params);
    const parsed = SEND_PARAMS.schema.safeParse(params);
    if (read === undefined) continue;
    assert.ok(
      parsed.success,
      `the schema refuses what the plain reader took: ${JSON.stringify(params)}`,
    );
    // The fields a caller uses are the schema's (the plain reader leaves the ones it would drop).
    assert.deepEqual(SEND_PARAMS.schema.parse(read), parsed.data);
  }
  for (const params of WELL_FORMED) {
    assert.notEqual(plain(params), undefined, JSON.stringify(params));
    assert.equal(readRequest(SEND_PARAMS, params), params);
  }
  for (const params of MISFITS) assert.equal(plain(params), undefined, JSON.stringify(params));
  // A misfit is named by the schema, as before.
  assert.throws(
    () => readRequest(SEND_PARAMS, { message: { parts: [] } }),
    /Invalid A2A message: "message\.parts": Too small/,
  );
});

Deno.test("messageText joins text parts and refuses any other part by its index", () => {
  assert.equal(
    messageText([text("a"), { text: "", mediaType: "text/plain", metadata: {} }, text("b")]),
    "a\n\n\n\nb",
  );
  const others = [
    { file: { uri: "x" } },
    { text: 1 },
    { text: "a", mediaType: 5 },
    { text: "a", metadata: [] },
    { text: "a", metadata: null },
    { data: { x: 1 } },
  ];
  for (const part of others) {
    assert.throws(
      () => messageText([text("ok"), part]),
      (err: unknown) =>
        rpcCode(RPC_CODES.CONTENT_TYPE_NOT_SUPPORTED)(err) &&
        /^Part 1 is not text/.test((err as Error).message),
      JSON.stringify(part),
    );
  }
});
