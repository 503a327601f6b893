// Where a local caller reaches a listener (src/util/loopback.ts): the admin
// console's try-it and the image's healthcheck share this rule.
import t from 'tap';
import { loopbackHost } from '../../src/util/loopback.js';

t.test('a wildcard bind is reached on the loopback of its family; any other host as it is', async (t) => {
  for (const [host, expected] of [
    [undefined, '127.0.0.1'],
    ['', '127.0.0.1'],
    ['0.0.0.0', '127.0.0.1'],
    ['::', '::1'],
    ['[::]', '::1'],
    ['10.1.2.3', '10.1.2.3'],
    ['[fd00::1]', 'fd00::1'],
    ['gw.internal', 'gw.internal'],
  ] as const)
    t.equal(loopbackHost(host), expected, `${String(host)} → ${expected}`);
});
