// Reading a JSON object's top-level keys without parsing it (http/top-level-keys.ts): the values of a key in any
// case, and, with `until`, nothing past a key that ends the search (a JSON-RPC answer's `result` is never walked).
import t from 'tap';
import { topLevelValues } from '../../src/http/top-level-keys.js';

const b = (v: unknown) => Buffer.from(JSON.stringify(v));

t.test('the values of a key, in any case and order', async (tt) => {
  tt.same(topLevelValues(b({ a: 1, tenant: 'x', TENANT: 'y' }), 'tenant'), ['x', 'y']);
  tt.same(topLevelValues(b({ a: { tenant: 'inner' } }), 'tenant'), [], 'a nested key is not top-level');
  tt.equal(topLevelValues(Buffer.from('[1]'), 'tenant'), undefined, 'no object');
});

t.test('until: the search stops at that key, its value unread', async (tt) => {
  const error = { code: -32001, message: 'gone' };
  tt.same(topLevelValues(b({ jsonrpc: '2.0', id: 1, error }), 'error', 'result'), [error]);
  // a result that is no valid JSON past its start: read, it would make the whole text undefined
  const result = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"never":read}');
  tt.same(topLevelValues(result, 'error', 'result'), [], 'none before the result; the result not walked');
  tt.equal(topLevelValues(result, 'error'), undefined, 'without until, the text is read to its end');
  tt.same(topLevelValues(b({ id: 1, Result: { error: 1 } }), 'error', 'result'), [], 'until in any case');
});
