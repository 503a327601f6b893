// What the unit tests of the A2A 0.3 dialects share (compat-jsonrpc*.test.ts,
// compat-proto*.test.ts): a method's 1.0 request and response read from
// ProtoJSON, two requests compared, a push config, and the JSON-RPC tests'
// agent message (compat-proto.test.ts has its own, without a taskId).
import { equals } from '@bufbuild/protobuf';
import { methodInfo, type AnyRequest, type AnyResponse, type MethodName } from '../../src/core/methods.js';
import { readJson, type JsonObject } from '../../src/proto/json.js';

export const agentMsg: JsonObject = {
  messageId: 'm-2',
  contextId: 'c-1',
  taskId: 't-1',
  role: 'ROLE_AGENT',
  parts: [{ text: 'ok' }],
};
export const pushConfig: JsonObject = {
  taskId: 't-1',
  id: 'cfg-1',
  url: 'https://hooks.example/a2a',
  token: 'tok',
  authentication: { scheme: 'Bearer', credentials: 'secret' },
};

export const req1 = (m: MethodName, j: JsonObject): AnyRequest =>
  readJson(methodInfo(m).requestSchema, j) as AnyRequest;
/** With the method's own response schema (compat-proto.test.ts reads a stream's as StreamResponse). */
export const res1 = (m: MethodName, j: JsonObject): AnyResponse =>
  readJson(methodInfo(m).responseSchema, j) as AnyResponse;
export const sameReq = (m: MethodName, a: AnyRequest, b: AnyRequest): boolean =>
  equals(methodInfo(m).requestSchema, a as never, b as never);
