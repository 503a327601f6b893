// The two balancing policies (issue 14): smooth weighted round robin gives
// each endpoint its share, interleaved; least-request with equal weights
// prefers, of the two it draws, the endpoint with fewer calls in flight, and
// with weights that differ gives each endpoint its weight's share when
// nothing is in flight, less to one with calls in flight (Envoy's
// weight / (active + 1)).
import t from 'tap';
import { leastRequest, roundRobin } from '../../src/upstream/balancer.js';

const endpoint = (name: string, weight: number, active = 0) => ({ name, weight, active, current: 0 });

t.test('weighted round robin: shares by weight, evenly interleaved', async (tt) => {
  const list = [endpoint('a', 1), endpoint('b', 2), endpoint('c', 1)];
  const picks = Array.from({ length: 8 }, () => roundRobin(list).name);
  tt.same(picks, ['b', 'a', 'c', 'b', 'b', 'a', 'c', 'b']);
  const even = [endpoint('x', 1), endpoint('y', 1), endpoint('z', 1)];
  tt.same(
    Array.from({ length: 6 }, () => roundRobin(even).name),
    ['x', 'y', 'z', 'x', 'y', 'z'],
  );
});

t.test('least request, equal weights: of the two drawn, the less loaded', async (tt) => {
  const busy = endpoint('busy', 1, 10);
  const idle = endpoint('idle', 1, 0);
  // draws: 0.1 → busy first, then the other one
  tt.equal(leastRequest([busy, idle], () => 0.1).name, 'idle');
  tt.equal(leastRequest([idle, busy], () => 0.1).name, 'idle');
  tt.equal(leastRequest([idle]).name, 'idle', 'one endpoint: that one');
  const three = [endpoint('x', 1, 2), endpoint('y', 1, 0), endpoint('z', 1, 5)];
  const picks = new Set(Array.from({ length: 300 }, () => leastRequest(three).name));
  tt.notOk(picks.has('z'), 'the busiest of all is never the less loaded of two');
});

/** How many of `n` picks each endpoint got. */
function shares(list: Array<ReturnType<typeof endpoint>>, n: number): number[] {
  const got = list.map(() => 0);
  for (let i = 0; i < n; i++) got[list.indexOf(leastRequest(list))]!++;
  return got;
}

t.test('least request, weights that differ: each its share when nothing is in flight', async (tt) => {
  tt.same(shares([endpoint('a', 1), endpoint('b', 2)], 300), [100, 200], 'weights 1:2');
  tt.same(shares([endpoint('a', 1), endpoint('b', 3), endpoint('c', 6)], 1000), [100, 300, 600], 'weights 1:3:6');
});

t.test('least request, weights that differ: calls in flight lower a share', async (tt) => {
  // weight 2 with 3 in flight counts as 2 / 4 = 0.5; weight 1 idle as 1 / 1 = 1
  tt.same(shares([endpoint('heavy', 2, 3), endpoint('light', 1, 0)], 300), [100, 200]);
  const heavy = endpoint('heavy', 4, 3); // 4 / 4 = 1
  const light = endpoint('light', 1, 1); // 1 / 2 = 0.5
  tt.same(shares([heavy, light], 300), [200, 100], 'weights count');
});
