// A2A 0.3 errors (src/compat/v0_3/errors.ts, bridge-0.3-1.0.md §7): JSON-RPC
// error objects, REST {code, message, data?} bodies with 0.3 statuses and
// gRPC statuses without details, both ways — and what the real SDKs make of
// them: @a2a-js/sdk 0.3.14's clients map the gateway's 0.3 errors to their own
// error classes, and the errors 1.3.0's legacy layer answers read back as the
// catalogue error they are.
import t from 'tap';
import * as Errors13 from '@a2a-js/sdk/errors';
import { toLegacyHTTPError, LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import * as Client03 from 'a2a-sdk-03/client';
import { GrpcTransport } from 'a2a-sdk-03/client/grpc';
import { A2AError, ERROR_INFO_TYPE } from '../../src/errors/a2a-error.js';
import { CATALOGUE, ERROR_NAMES, GRPC_CODES, type ErrorName } from '../../src/errors/catalogue.js';
import type { JsonObject } from '../../src/proto/json.js';
import {
  errorFromV03,
  errorFromV03Grpc,
  errorToV03,
  grpcCodeToV03,
  restErrorFromV03,
  restErrorToV03,
} from '../../src/compat/v0_3/errors.js';

const A2A: ErrorName[] = [
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'INVALID_AGENT_RESPONSE',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'VERSION_NOT_SUPPORTED',
];

t.test('JSON-RPC: codes kept (also -32008/-32009), ErrorInfo metadata ⇄ data', async (tt) => {
  for (const name of ERROR_NAMES) {
    const err = A2AError.of(name, `msg of ${name}`, { metadata: { taskId: 't-1' } });
    const o = errorToV03(err);
    tt.equal(o.code, CATALOGUE[name].jsonRpc, `${name}: code`);
    tt.equal(o.message, `msg of ${name}`);
    const back = errorFromV03(o);
    tt.equal(back.errorName, name, `${name}: read back`);
    tt.equal(back.message, `msg of ${name}`);
    if (CATALOGUE[name].domain) tt.same(o.data, { taskId: 't-1' }, `${name}: data = ErrorInfo.metadata`);
  }
  tt.equal(errorToV03(A2AError.of('EXTENSION_SUPPORT_REQUIRED')).code, -32008);
  tt.equal(errorToV03(A2AError.of('VERSION_NOT_SUPPORTED')).code, -32009);
  tt.notOk('data' in errorToV03(A2AError.of('TASK_NOT_FOUND')), 'no metadata: no data');
  tt.notOk('data' in errorToV03(A2AError.invalidParams([{ field: 'x', description: 'y' }])), 'BadRequest is not data');

  const read = errorFromV03({ code: -32001, message: 'Task not found: t-9', data: { taskId: 't-9', n: 5, o: {} } });
  tt.equal(read.errorName, 'TASK_NOT_FOUND');
  tt.same(read.details, [
    { '@type': ERROR_INFO_TYPE, reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't-9' } },
  ]);
  const internal = errorFromV03({ code: -32603, message: 'boom', data: { where: 'x' } });
  tt.match(
    internal.details,
    [{ reason: 'INTERNAL_ERROR', metadata: { where: 'x' } }],
    'data kept on a row without ErrorInfo',
  );
  tt.equal(errorFromV03({ code: -31999, message: 'custom' }).errorName, 'INTERNAL_ERROR');
  tt.equal(errorFromV03({ code: -31999, message: 'custom' }).message, 'custom');
  tt.equal(errorFromV03({ message: 'no code' }).errorName, 'INVALID_AGENT_RESPONSE');
  tt.equal(errorFromV03('nope').errorName, 'INVALID_AGENT_RESPONSE');
});

t.test('@a2a-js/sdk 0.3.14 JSON-RPC client: each A2A error is its own class', async (tt) => {
  const classes: Partial<Record<ErrorName, new (...a: never[]) => Error>> = {
    TASK_NOT_FOUND: Client03.TaskNotFoundError,
    TASK_NOT_CANCELABLE: Client03.TaskNotCancelableError,
    PUSH_NOTIFICATION_NOT_SUPPORTED: Client03.PushNotificationNotSupportedError,
    UNSUPPORTED_OPERATION: Client03.UnsupportedOperationError,
    CONTENT_TYPE_NOT_SUPPORTED: Client03.ContentTypeNotSupportedError,
    INVALID_AGENT_RESPONSE: Client03.InvalidAgentResponseError,
    EXTENDED_AGENT_CARD_NOT_CONFIGURED: Client03.AuthenticatedExtendedCardNotConfiguredError,
  };
  const mapJson = (Client03.JsonRpcTransport as unknown as { mapToError(r: unknown): Error }).mapToError;
  const mapRest = (Client03.RestTransport as unknown as { mapToError(r: unknown): Error }).mapToError;
  for (const name of A2A) {
    const o = errorToV03(A2AError.of(name, 'm'));
    const viaJson = mapJson({ jsonrpc: '2.0', id: 1, error: o });
    const viaRest = mapRest(restErrorToV03(A2AError.of(name, 'm')).body);
    const cls = classes[name];
    if (cls) {
      tt.ok(viaJson instanceof cls, `${name}: JSON-RPC → ${cls.name}`);
      tt.ok(viaRest instanceof cls, `${name}: REST → ${cls.name}`);
    } else {
      tt.match(viaRest.message, `(Code: ${CATALOGUE[name].jsonRpc})`, `${name}: a 1.0-only code surfaces generically`);
    }
  }
});

t.test('REST: 0.3 statuses and bodies, read by the body code first', async (tt) => {
  const status: Partial<Record<ErrorName, number>> = {
    TASK_NOT_FOUND: 404,
    METHOD_NOT_FOUND: 404,
    TASK_NOT_CANCELABLE: 409,
    PUSH_NOTIFICATION_NOT_SUPPORTED: 400,
    UNSUPPORTED_OPERATION: 400,
    INVALID_PARAMS: 400,
    PARSE_ERROR: 400,
    INTERNAL_ERROR: 500,
    INVALID_AGENT_RESPONSE: 500,
    VERSION_NOT_SUPPORTED: 400,
    RATE_LIMITED: 429,
    UNAUTHENTICATED: 401,
    UPSTREAM_UNAVAILABLE: 503,
  };
  for (const [name, want] of Object.entries(status) as Array<[ErrorName, number]>) {
    const { status: got, body } = restErrorToV03(A2AError.of(name, 'm', { metadata: { k: 'v' } }));
    tt.equal(got, want, `${name} → HTTP ${want}`);
    tt.equal(body.code, CATALOGUE[name].jsonRpc);
    tt.equal(restErrorFromV03(got, body).errorName, name, `${name}: read back`);
    tt.equal(restErrorFromV03(got, JSON.stringify(body)).errorName, name, `${name}: read back from text`);
  }
  tt.equal(restErrorFromV03(404, { code: -32601, message: 'Method not found' }).errorName, 'METHOD_NOT_FOUND');
  tt.equal(restErrorFromV03(404, 'Cannot POST /v1/message:send').errorName, 'UNSUPPORTED_OPERATION');
  tt.equal(restErrorFromV03(503, '').errorName, 'UPSTREAM_UNAVAILABLE');
  tt.equal(
    restErrorFromV03(400, { code: -31000, message: 'x' }).errorName,
    'INVALID_PARAMS',
    'unknown code: by status',
  );
  tt.equal(
    restErrorFromV03(409, Buffer.from(JSON.stringify({ code: -32002, message: 'no' }))).errorName,
    'TASK_NOT_CANCELABLE',
  );
});

t.test(
  '1.3.0 legacy layer: its 0.3 error bodies read as the catalogue errors, ours as its error classes',
  async (tt) => {
    const sdkErrors: Array<[Error, ErrorName]> = [
      [new Errors13.TaskNotFoundError('Task not found: t'), 'TASK_NOT_FOUND'],
      [new Errors13.TaskNotCancelableError('no'), 'TASK_NOT_CANCELABLE'],
      [new Errors13.PushNotificationNotSupportedError(), 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
      [new Errors13.UnsupportedOperationError(), 'UNSUPPORTED_OPERATION'],
      [new Errors13.ContentTypeNotSupportedError(), 'CONTENT_TYPE_NOT_SUPPORTED'],
      [new Errors13.InvalidAgentResponseError(), 'INVALID_AGENT_RESPONSE'],
      [new Errors13.ExtendedAgentCardNotConfiguredError(), 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
      [new Errors13.ExtensionSupportRequiredError(), 'EXTENSION_SUPPORT_REQUIRED'],
      [new Errors13.VersionNotSupportedError(), 'VERSION_NOT_SUPPORTED'],
      [new Errors13.RequestMalformedError(), 'INVALID_PARAMS'],
      [new Error('plain'), 'INTERNAL_ERROR'],
    ];
    for (const [e, name] of sdkErrors) {
      const body = toLegacyHTTPError(e) as unknown as JsonObject;
      tt.equal(restErrorFromV03(400, body).errorName, name, `REST body of ${e.constructor.name}`);
      const rpc = new LegacyJsonRpcTransportHandler({
        getAgentCard: async () => ({ capabilities: {} }),
        getTask: async () => {
          throw e;
        },
      } as never);
      const out = (await rpc.handle(
        { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 't' } },
        {} as never,
      )) as unknown as {
        error: JsonObject;
      };
      tt.equal(errorFromV03(out.error).errorName, name, `JSON-RPC error of ${e.constructor.name}`);
    }
    const fromBody = (LegacyRestTransport as unknown as { _errorFromLegacyBody(b: unknown): Error })
      ._errorFromLegacyBody;
    for (const name of A2A) {
      const e = fromBody(restErrorToV03(A2AError.of(name, 'm')).body);
      tt.equal((e as { reason?: string }).reason, name, `${name}: 1.3.0 reads our REST body as its ${e.name}`);
    }
  },
);

t.test('gRPC: the 0.3 status table, and the method telling shared statuses apart', async (tt) => {
  const table: Array<[ErrorName, keyof typeof GRPC_CODES]> = [
    ['TASK_NOT_FOUND', 'NOT_FOUND'],
    ['TASK_NOT_CANCELABLE', 'FAILED_PRECONDITION'],
    ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'FAILED_PRECONDITION'],
    ['PUSH_NOTIFICATION_NOT_SUPPORTED', 'UNIMPLEMENTED'],
    ['UNSUPPORTED_OPERATION', 'UNIMPLEMENTED'],
    ['CONTENT_TYPE_NOT_SUPPORTED', 'INVALID_ARGUMENT'],
    ['INVALID_REQUEST', 'INVALID_ARGUMENT'],
    ['INVALID_PARAMS', 'INVALID_ARGUMENT'],
    ['INVALID_AGENT_RESPONSE', 'INTERNAL'],
    ['INTERNAL_ERROR', 'INTERNAL'],
    ['VERSION_NOT_SUPPORTED', 'FAILED_PRECONDITION'],
    ['RATE_LIMITED', 'RESOURCE_EXHAUSTED'],
    ['UPSTREAM_TIMEOUT', 'DEADLINE_EXCEEDED'],
  ];
  for (const [name, code] of table) tt.equal(grpcCodeToV03(A2AError.of(name)), GRPC_CODES[code], `${name} → ${code}`);

  const read: Array<[keyof typeof GRPC_CODES, string | undefined, ErrorName]> = [
    ['NOT_FOUND', 'GetTask', 'TASK_NOT_FOUND'],
    ['FAILED_PRECONDITION', 'CancelTask', 'TASK_NOT_CANCELABLE'],
    ['FAILED_PRECONDITION', 'GetExtendedAgentCard', 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'],
    ['FAILED_PRECONDITION', 'SendMessage', 'FAILED_PRECONDITION'],
    ['UNIMPLEMENTED', 'CreateTaskPushNotificationConfig', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['UNIMPLEMENTED', 'ListTaskPushNotificationConfigs', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
    ['UNIMPLEMENTED', 'SubscribeToTask', 'UNSUPPORTED_OPERATION'],
    ['INVALID_ARGUMENT', undefined, 'INVALID_PARAMS'],
    ['INTERNAL', undefined, 'INTERNAL_ERROR'],
    ['UNKNOWN', undefined, 'INTERNAL_ERROR'],
    ['UNAVAILABLE', undefined, 'UPSTREAM_UNAVAILABLE'],
  ];
  for (const [code, method, name] of read) {
    const e = errorFromV03Grpc(GRPC_CODES[code], 'the message', method ? { method: method as never } : {});
    tt.equal(e.errorName, name, `${code} on ${method ?? 'any method'} → ${name}`);
    tt.equal(e.message, 'the message');
  }
  const withInfo = errorFromV03Grpc(GRPC_CODES.FAILED_PRECONDITION, 'x', {
    method: 'CancelTask',
    details: [{ '@type': ERROR_INFO_TYPE, reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }],
  });
  tt.equal(withInfo.errorName, 'VERSION_NOT_SUPPORTED', 'an ErrorInfo (1.3.0 legacy servers send one) decides');
});

t.test('@a2a-js/sdk 0.3.14 gRPC client: our statuses map to its error classes per method', async (tt) => {
  const map = (GrpcTransport as unknown as { mapToError(e: unknown, m: string): Error }).mapToError;
  const cases: Array<[ErrorName, string, new (...a: never[]) => Error]> = [
    ['TASK_NOT_FOUND', 'getTask', Client03.TaskNotFoundError],
    ['TASK_NOT_CANCELABLE', 'cancelTask', Client03.TaskNotCancelableError],
    ['EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'getAgentCard', Client03.AuthenticatedExtendedCardNotConfiguredError],
    ['PUSH_NOTIFICATION_NOT_SUPPORTED', 'createTaskPushNotificationConfig', Client03.PushNotificationNotSupportedError],
    ['PUSH_NOTIFICATION_NOT_SUPPORTED', 'listTaskPushNotificationConfig', Client03.PushNotificationNotSupportedError],
    ['UNSUPPORTED_OPERATION', 'taskSubscription', Client03.UnsupportedOperationError],
  ];
  for (const [name, method, cls] of cases) {
    const e = map({ code: grpcCodeToV03(A2AError.of(name, 'm')), details: 'm' }, method);
    tt.ok(e instanceof cls, `${name} on ${method} → ${cls.name}`);
  }
});
