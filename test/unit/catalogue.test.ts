// The error catalogue: every row complete and consistent with spec §5.4 and
// §9.5, reverse lookups round-trip, older v1.0.0 codes recognised, and every
// row listed in docs/errors.md's error table.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { errorObject, readErrorObject } from '../../src/bindings/jsonrpc/wire.js';
import { errorBody, readErrorBody } from '../../src/bindings/rest/wire.js';
import * as grpc from '@grpc/grpc-js';
import { fromServiceError, toServiceError } from '../../src/bindings/grpc/status.js';
import { statusToBinary, type JsonObject } from '../../src/proto/json.js';
import {
  A2AError,
  nameFromGrpc,
  nameFromHttp,
  nameFromJsonRpcCode,
  ERROR_INFO_TYPE,
} from '../../src/errors/a2a-error.js';
import {
  CATALOGUE,
  ERROR_NAMES,
  errorTableMarkdown,
  GRPC_CODES,
  ROW_BY_GRPC,
  type ErrorName,
} from '../../src/errors/catalogue.js';

/** A gRPC status's trailers carrying these details in grpc-status-details-bin. */
function statusMetadata(code: number, details: JsonObject[]): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set('grpc-status-details-bin', Buffer.from(statusToBinary(code, '', details)));
  return m;
}

t.test('spec §5.4 and §9.5 codes', async (tt) => {
  const spec: Array<[ErrorName, number, string, number]> = [
    ['TASK_NOT_FOUND', -32001, 'NOT_FOUND', 404],
    ['TASK_NOT_CANCELABLE', -32002, 'FAILED_PRECONDITION', 400],
    ['PUSH_NOTIFICATION_NOT_SUPPORTED', -32003, 'FAILED_PRECONDITION', 400],
    ['UNSUPPORTED_OPERATION', -32004, 'FAILED_PRECONDITION', 400],
    ['CONTENT_TYPE_NOT_SUPPORTED', -32005, 'INVALID_ARGUMENT', 400],
    ['INVALID_AGENT_RESPONSE', -32006, 'INTERNAL', 500],
    ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', -32007, 'FAILED_PRECONDITION', 400],
    ['EXTENSION_SUPPORT_REQUIRED', -32008, 'FAILED_PRECONDITION', 400],
    ['VERSION_NOT_SUPPORTED', -32009, 'FAILED_PRECONDITION', 400],
    ['PARSE_ERROR', -32700, 'INVALID_ARGUMENT', 400],
    ['INVALID_REQUEST', -32600, 'INVALID_ARGUMENT', 400],
    ['METHOD_NOT_FOUND', -32601, 'UNIMPLEMENTED', 501],
    ['INVALID_PARAMS', -32602, 'INVALID_ARGUMENT', 400],
    ['INTERNAL_ERROR', -32603, 'INTERNAL', 500],
  ];
  for (const [name, rpc, grpc, http] of spec) {
    const row = CATALOGUE[name];
    tt.same([row.jsonRpc, row.grpc, row.http], [rpc, grpc, http], name);
  }
});

t.test('every row is complete and JSON-RPC codes are unique', async (tt) => {
  const codes = new Set<number>();
  for (const name of ERROR_NAMES) {
    const row = CATALOGUE[name];
    tt.ok(Number.isInteger(row.jsonRpc) && row.jsonRpc < 0, `${name}: JSON-RPC code`);
    tt.ok(row.grpc in GRPC_CODES, `${name}: gRPC status`);
    tt.ok(row.http >= 400 && row.http < 600, `${name}: HTTP status`);
    tt.ok(row.message.length > 0, `${name}: message`);
    if (row.kind === 'a2a') tt.ok(row.jsonRpc <= -32001 && row.jsonRpc >= -32099, `${name}: in the A2A range`);
    tt.notOk(codes.has(row.jsonRpc), `${name}: unique JSON-RPC code`);
    codes.add(row.jsonRpc);
  }
});

t.test('reverse lookups round-trip', async (tt) => {
  for (const name of ERROR_NAMES) {
    tt.equal(nameFromJsonRpcCode(CATALOGUE[name].jsonRpc), name, `${name} by JSON-RPC code`);
    const err = A2AError.of(name, `msg of ${name}`, { metadata: { k: 'v' } });
    const viaRpc = readErrorObject(errorObject(err));
    const viaRest = readErrorBody(err.row.http, errorBody(err));
    const viaGrpc = fromServiceError(toServiceError(err));
    for (const [how, back] of [
      ['JSON-RPC', viaRpc],
      ['REST', viaRest],
      ['gRPC', viaGrpc],
    ] as const) {
      tt.equal(back?.errorName, name, `${name} through ${how}`);
      tt.equal(back?.message, `msg of ${name}`, `${name} message through ${how}`);
      tt.same(back?.details, err.details, `${name} details through ${how}`);
    }
  }
  for (const code of Object.keys(GRPC_CODES) as Array<keyof typeof GRPC_CODES>) {
    tt.ok(ROW_BY_GRPC[code] in CATALOGUE, `gRPC ${code} names a row`);
  }
});

t.test('reading: reason first, then code; older v1.0.0 codes', async (tt) => {
  const info = (reason: string) => [{ '@type': ERROR_INFO_TYPE, reason, domain: 'a2a-protocol.org' }];
  tt.equal(
    readErrorBody(409, { error: { code: 409, message: 'x', details: info('TASK_NOT_CANCELABLE') } }).errorName,
    'TASK_NOT_CANCELABLE',
    'reason wins over a 409',
  );
  tt.equal(
    readErrorBody(409, { error: { code: 409, message: 'x' } }).errorName,
    'TASK_NOT_CANCELABLE',
    'bare 409 → TaskNotCancelable',
  );
  tt.equal(readErrorBody(415, {}).errorName, 'CONTENT_TYPE_NOT_SUPPORTED', 'bare 415');
  tt.equal(readErrorBody(502, 'garbage').errorName, 'INVALID_AGENT_RESPONSE', 'bare 502');
  tt.equal(nameFromGrpc('UNIMPLEMENTED'), 'UNSUPPORTED_OPERATION', 'bare UNIMPLEMENTED');
  tt.equal(
    fromServiceError({ code: 12, details: 'old' }).errorName,
    'UNSUPPORTED_OPERATION',
    'gRPC UNIMPLEMENTED without details',
  );
  tt.equal(
    readErrorBody(400, { error: { code: 400, status: 'FAILED_PRECONDITION', message: 'x' } }).errorName,
    'FAILED_PRECONDITION',
    'status name before HTTP code',
  );
  tt.equal(nameFromHttp(404), 'TASK_NOT_FOUND');
  const kept = readErrorObject({
    code: -32001,
    message: 'gone',
    data: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [] }],
  });
  tt.same(
    kept?.details.map((d) => d['@type']),
    [ERROR_INFO_TYPE, 'type.googleapis.com/google.rpc.BadRequest'],
    'ErrorInfo added for an A2A error, other details kept',
  );
  const custom = readErrorObject({ code: -32099, message: 'custom' });
  tt.equal(custom?.errorName, 'INTERNAL_ERROR', 'an unknown JSON-RPC code is an internal error');
});

t.test("an ErrorInfo's reason counts in its own domain only (§10.6)", async (tt) => {
  const theirs = [{ '@type': ERROR_INFO_TYPE, reason: 'RATE_LIMITED', domain: 'shop.example.com' }];
  tt.equal(
    fromServiceError({ code: 5, details: 'no such order', metadata: statusMetadata(5, theirs) }).errorName,
    'TASK_NOT_FOUND',
    "another service's RATE_LIMITED on NOT_FOUND is read by the code",
  );
  tt.equal(
    readErrorObject({ code: -32001, message: 'x', data: theirs })?.errorName,
    'TASK_NOT_FOUND',
    'JSON-RPC: by the code',
  );
  const gateways = [{ '@type': ERROR_INFO_TYPE, reason: 'RATE_LIMITED', domain: 'a2a-gateway' }];
  tt.equal(
    fromServiceError({ code: 8, details: 'slow down', metadata: statusMetadata(8, gateways) }).errorName,
    'RATE_LIMITED',
    "a gateway's own reason in its domain (one gateway behind another)",
  );
  const a2a = [{ '@type': ERROR_INFO_TYPE, reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' }];
  tt.equal(readErrorObject({ code: -32603, message: 'x', data: a2a })?.errorName, 'TASK_NOT_CANCELABLE');
});

t.test('the error table of docs/errors.md lists every row', async (tt) => {
  const readme = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  tt.ok(readme.includes(errorTableMarkdown()), 'the docs/errors.md table is the catalogue (npm run docs)');
  for (const name of ERROR_NAMES) {
    const row = CATALOGUE[name];
    const line = readme.split('\n').find((l) => l.startsWith(`| \`${name}\``));
    tt.ok(line, `${name} has a row`);
    tt.match(line ?? '', `| ${row.jsonRpc} | ${row.grpc} | ${row.http} |`, `${name} row has its codes`);
  }
});
