// A route whose card.bindings allows only GRPC must be one gRPC can reach (a
// host, a tenant or the root: gRPC has no path). One behind a path prefix alone
// serves no call of any binding and its card names no interface (a 0.3 caller
// of its card got 500): refused at load, naming card.bindings.
import t from 'tap';
import { ConfigError, parseConfig } from '../../src/config/load.js';

const route = (match: string) =>
  `  - { name: r, match: ${match}, upstream: { url: "agent:50051", binding: GRPC }, card: { bindings: [GRPC] } }`;

function problems(match: string): string[] {
  try {
    parseConfig(['routes:', route(match)].join('\n'), 'inline');
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems;
  }
}

t.test('GRPC alone behind a path prefix: refused', async (tt) => {
  const found = problems('{ pathPrefix: /agent }');
  tt.equal(found.length, 1, 'one problem');
  tt.match(found[0], /routes\[0\]\.card\.bindings: never matches: card\.bindings allows only GRPC/);
});

t.test('GRPC alone where gRPC reaches the route: accepted', async (tt) => {
  for (const match of [
    '{ pathPrefix: / }',
    '{ pathPrefix: /agent, tenant: t }',
    '{ pathPrefix: /agent, hosts: [a.example] }',
  ]) {
    tt.same(problems(match), [], match);
  }
});
