// The two CreateTaskPushNotificationConfig bodies A2A 0.3 peers send, as the 0.3 proto dialect
// (src/compat/v0_3/proto-dialect.ts, bridge-0.3-1.0.md §4) reads them: the request message (its parent in
// either form, snake_case too) and a TaskPushNotificationConfig (0.3.14 and 1.3.0 clients), the path's
// parent merged; one without a pushNotificationConfig is refused. (The rest: compat-proto.test.ts.)
import t from 'tap';
import { ProtoJsonError, type JsonObject } from '../../src/proto/json.js';
import { throwsWhere } from '../helpers/throws.js';
import { pushConfig, req1, sameReq } from '../helpers/compat-fixtures.js';
import { requestFromV03Proto } from '../../src/compat/v0_3/proto-dialect.js';

t.test('CreateTaskPushNotificationConfig: both bodies 0.3 peers send', async (tt) => {
  const pnc = {
    id: 'cfg-1',
    url: 'https://hooks.example/a2a',
    token: 'tok',
    authentication: { schemes: ['Bearer'], credentials: 'secret' },
  };
  const want = req1('CreateTaskPushNotificationConfig', pushConfig);
  const bodies: Array<[string, JsonObject]> = [
    [
      'CreateTaskPushNotificationConfigRequest',
      {
        parent: 'tasks/t-1',
        configId: 'cfg-1',
        config: { name: 'tasks/t-1/pushNotificationConfigs/cfg-1', pushNotificationConfig: pnc },
      },
    ],
    [
      'the proto rule’s parent ("task/…")',
      {
        parent: 'task/t-1/pushNotificationConfigs',
        configId: 'cfg-1',
        config: { pushNotificationConfig: { ...pnc, id: '' } },
      },
    ],
    [
      'TaskPushNotificationConfig (0.3.14 and 1.3.0 clients)',
      { name: 'tasks/t-1/pushNotificationConfigs/cfg-1', pushNotificationConfig: pnc },
    ],
    [
      'its body with the path’s parent merged',
      { name: 'tasks/x/pushNotificationConfigs/', pushNotificationConfig: pnc, parent: 'tasks/t-1' },
    ],
    ['snake_case', { parent: 'tasks/t-1', config_id: 'cfg-1', config: { push_notification_config: pnc } }],
  ];
  for (const [what, body] of bodies) {
    tt.ok(
      sameReq('CreateTaskPushNotificationConfig', requestFromV03Proto('CreateTaskPushNotificationConfig', body), want),
      what,
    );
  }
  throwsWhere(
    tt,
    () => requestFromV03Proto('CreateTaskPushNotificationConfig', { parent: 'tasks/t-1', config: {} }),
    (e) => e instanceof ProtoJsonError && e.violations[0]?.field === 'config.pushNotificationConfig',
    'no pushNotificationConfig',
  );
});
