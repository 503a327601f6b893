// REST URL patterns and query parameters (spec §11.3, §11.5, a2a.proto
// google.api.http rules): every pattern in both its plain and /{tenant}/ form,
// percent-decoding, verbs, and typed query values.
import t from 'tap';
import { create, createFileRegistry } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FileDescriptorProtoSchema,
} from '@bufbuild/protobuf/wkt';
import { queryToJson } from '../../src/bindings/rest/inbound.js';
import { matchRestPath, REST_ROUTES } from '../../src/bindings/rest/paths.js';
import { METHODS } from '../../src/core/methods.js';
import { ListTasksRequestSchema as ListTasks, SendMessageConfigurationSchema } from '../../src/gen/a2a_pb.js';
import { readJson, writeJson } from '../../src/proto/json.js';

t.test('every method has both forms, as a2a.proto says', async (tt) => {
  for (const m of METHODS.values()) {
    const patterns = m.httpRules.map((r) => `${r.verb} ${r.pattern}`);
    tt.ok(
      patterns.some((p) => !p.includes('{tenant}')),
      `${m.name}: plain form`,
    );
    tt.ok(
      patterns.some((p) => p.includes('/{tenant}/')),
      `${m.name}: tenant form`,
    );
  }
  tt.equal(REST_ROUTES.length, 24, '11 methods × 2 forms + POST for SubscribeToTask × 2');
});

t.test('§11.3 paths', async (tt) => {
  const cases: Array<[string, string, string, Record<string, string>]> = [
    ['POST', '/message:send', 'SendMessage', {}],
    ['POST', '/acme/message:send', 'SendMessage', { tenant: 'acme' }],
    ['POST', '/message:stream', 'SendStreamingMessage', {}],
    ['GET', '/tasks/t-1', 'GetTask', { id: 't-1' }],
    ['GET', '/acme/tasks/t-1', 'GetTask', { tenant: 'acme', id: 't-1' }],
    ['GET', '/tasks', 'ListTasks', {}],
    ['GET', '/acme/tasks', 'ListTasks', { tenant: 'acme' }],
    ['POST', '/tasks/t-1:cancel', 'CancelTask', { id: 't-1' }],
    ['POST', '/acme/tasks/t-1:cancel', 'CancelTask', { tenant: 'acme', id: 't-1' }],
    ['GET', '/tasks/t-1:subscribe', 'SubscribeToTask', { id: 't-1' }],
    ['POST', '/tasks/t-1:subscribe', 'SubscribeToTask', { id: 't-1' }],
    ['POST', '/tasks/t-1/pushNotificationConfigs', 'CreateTaskPushNotificationConfig', { taskId: 't-1' }],
    ['GET', '/tasks/t-1/pushNotificationConfigs/c-1', 'GetTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
    [
      'GET',
      '/acme/tasks/t-1/pushNotificationConfigs',
      'ListTaskPushNotificationConfigs',
      { tenant: 'acme', taskId: 't-1' },
    ],
    [
      'DELETE',
      '/tasks/t-1/pushNotificationConfigs/c-1',
      'DeleteTaskPushNotificationConfig',
      { taskId: 't-1', id: 'c-1' },
    ],
    ['GET', '/extendedAgentCard', 'GetExtendedAgentCard', {}],
    ['GET', '/acme/extendedAgentCard', 'GetExtendedAgentCard', { tenant: 'acme' }],
    ['GET', '/tasks/a%2Fb%20c', 'GetTask', { id: 'a/b c' }],
  ];
  for (const [verb, path, method, params] of cases) {
    const { match } = matchRestPath(verb, path);
    tt.equal(match?.route.method.name, method, `${verb} ${path} → ${method}`);
    tt.same(match?.params, params, `${verb} ${path} params`);
  }
  tt.equal(matchRestPath('GET', '/message:send').verbMismatch, true, 'a known path with another verb');
  tt.equal(matchRestPath('GET', '/nothing/here/at/all').match, undefined, 'unknown path');
  tt.throws(() => matchRestPath('GET', '/tasks/%E0%A4%A'), 'malformed percent-encoding is an error');
});

t.test('§11.5 query parameters', async (tt) => {
  const q = new URLSearchParams(
    'contextId=c1&status=TASK_STATE_WORKING&pageSize=50&pageToken=cur&historyLength=0&includeArtifacts=true&statusTimestampAfter=2025-11-09T10:30:00Z&A2A-Version=1.0&unknown=1',
  );
  const json = queryToJson(ListTasks, q);
  tt.same(
    writeJson(ListTasks, readJson(ListTasks, json)),
    {
      contextId: 'c1',
      status: 'TASK_STATE_WORKING',
      pageSize: 50,
      pageToken: 'cur',
      historyLength: 0,
      statusTimestampAfter: '2025-11-09T10:30:00Z',
      includeArtifacts: true,
    },
    'strings, enums by name, numbers, booleans, timestamps; service parameters and unknown names ignored',
  );
  tt.same(
    queryToJson(ListTasks, new URLSearchParams('status=2&context_id=x')),
    { status: 2, contextId: 'x' },
    'enum numbers and snake_case names accepted',
  );
  tt.same(
    queryToJson(ListTasks, new URLSearchParams('contextId=a&contextId=b')),
    { contextId: 'b' },
    'a repeated singular name: the last value wins',
  );
  tt.same(
    queryToJson(ListTasks, new URLSearchParams('includeArtifacts=yes')),
    { includeArtifacts: 'yes' },
    'a bad boolean is left for the reader to reject',
  );
  let refused: unknown;
  try {
    readJson(ListTasks, { includeArtifacts: 'yes' });
  } catch (e) {
    refused = e;
  }
  tt.match(refused, { violations: [{ field: 'includeArtifacts' }] }, 'which it does, naming the field');

  tt.same(
    queryToJson(SendMessageConfigurationSchema, new URLSearchParams('acceptedOutputModes=text/plain,application/json')),
    { acceptedOutputModes: ['text/plain', 'application/json'] },
    'a repeated string field of a2a.proto from a comma list',
  );
  // a2a.proto has no request with repeated query fields: a descriptor built for the test has them.
  const registry = createFileRegistry(
    create(FileDescriptorProtoSchema, {
      name: 'tagged.proto',
      package: 'test',
      syntax: 'proto3',
      messageType: [
        {
          name: 'Tagged',
          field: [
            { name: 'tags', jsonName: 'tags', number: 1, type: Type.STRING, label: Label.REPEATED },
            { name: 'counts', jsonName: 'counts', number: 2, type: Type.INT32, label: Label.REPEATED },
          ],
        },
      ],
    }),
    () => undefined,
  );
  const Tagged = registry.getMessage('test.Tagged');
  if (!Tagged) throw new Error('test.Tagged not built');
  const tagged = queryToJson(Tagged, new URLSearchParams('tags=a&tags=b,c&counts=1,2&counts='));
  tt.same(tagged, { tags: ['a', 'b', 'c'], counts: ['1', '2'] }, 'repeated: repeated names and comma lists');
  tt.same(
    writeJson(Tagged, readJson(Tagged, tagged)),
    { tags: ['a', 'b', 'c'], counts: [1, 2] },
    'and read as typed values',
  );
});
