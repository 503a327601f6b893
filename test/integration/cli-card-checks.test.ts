// `a2a-gateway check` on a route's card settings (docs/cards.md; spec §8):
// each card.overrides value must read as the AgentCard field it replaces
// (§4.4.1) — a wrong JSON type, or a wrong type inside an object or list, is
// a config error naming the field (exit 2), so no served or re-signed card
// carries it — and a prefix whose routes are all bound to different tenants
// is valid but warned about (whose card is the prefix's own?). The command
// as shipped (dist/), run as a process.
import { join } from 'node:path';
import t from 'tap';
import { runCli } from '../helpers/cli-process.js';

const upstream = { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' };
const withOverrides = (overrides: Record<string, unknown>) =>
  JSON.stringify({ routes: [{ name: 'r', upstream, card: { overrides } }] });

t.test('card.overrides of the wrong type: one error per field, naming it, exit 2', async (tt) => {
  const dir = tt.testdir({
    'types.yaml': withOverrides({ name: 5, capabilities: 'streaming', skills: { a: 1 }, iconUrl: null }),
    'inner.yaml': withOverrides({
      skills: [{ id: 5, name: 'x', description: 'd', tags: [] }],
      capabilities: { streaming: 'yes' },
      defaultInputModes: [1],
    }),
    'good.yaml': withOverrides({
      name: 'Billing',
      capabilities: { streaming: false, extendedAgentCard: true },
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
      defaultOutputModes: ['text/plain'],
      provider: { organization: 'Example', url: 'https://example.com' },
    }),
  });
  const types = await runCli(['check', '--config', join(dir, 'types.yaml')]);
  tt.equal(types.code, 2, `exit 2: ${types.stdout}`);
  for (const [field, wanted] of [
    ['name', 'a string'],
    ['capabilities', 'an object'],
    ['skills', 'an array'],
    ['iconUrl', 'a string'],
  ] as const)
    tt.match(types.stderr, `routes[0].card.overrides.${field}: must be ${wanted} (AgentCard.${field})`, field);
  tt.equal(types.stderr.trimEnd().split('\n').length, 4, 'one line per field');

  const inner = await runCli(['check', '--config', join(dir, 'inner.yaml')]);
  tt.equal(inner.code, 2, 'exit 2');
  tt.match(inner.stderr, /routes\[0\]\.card\.overrides\.skills: AgentSkill\.id: expected string, got 5/);
  tt.match(inner.stderr, /routes\[0\]\.card\.overrides\.capabilities: AgentCapabilities\.streaming: expected boolean/);
  tt.match(inner.stderr, /routes\[0\]\.card\.overrides\.defaultInputModes: .*expected string, got 1/);

  const good = await runCli(['check', '--config', join(dir, 'good.yaml')]);
  tt.same([good.code, good.stderr], [0, ''], 'overrides of the right types are valid');
});

t.test('routes of a prefix all bound to tenants: valid, with a warning', async (tt) => {
  const route = (name: string, match: Record<string, unknown>) => ({ name, match, upstream });
  const dir = tt.testdir({
    'tenants.yaml': JSON.stringify({
      routes: [route('a', { pathPrefix: '/p', tenant: 'a' }), route('b', { pathPrefix: '/P/', tenant: 'b' })],
    }),
    'with-default.yaml': JSON.stringify({
      routes: [route('a', { pathPrefix: '/p', tenant: 'a' }), route('b', { pathPrefix: '/p', tenant: 'b' })].concat(
        route('default', { pathPrefix: '/p' }),
      ),
    }),
  });
  const tenants = await runCli(['check', '--config', join(dir, 'tenants.yaml')]);
  tt.equal(tenants.code, 0, 'valid');
  tt.match(tenants.stdout, /valid \(2 route\(s\)\)/);
  tt.match(
    tenants.stderr,
    /^a2a-gateway: warning: routes "a", "b" share the path prefix "\/p" .*\/p\/\.well-known\/agent-card\.json serves "a"'s card/,
    'the warning names the routes and whose card the prefix serves',
  );
  const withDefault = await runCli(['check', '--config', join(dir, 'with-default.yaml')]);
  tt.same([withDefault.code, withDefault.stderr], [0, ''], 'no warning where a route bound to no tenant is there');
});
