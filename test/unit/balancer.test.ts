// The two balancing policies (issue 14): smooth weighted round robin gives
// each endpoint its share, interleaved; least-request prefers, of the two it
// draws, the endpoint with fewer calls in flight per unit of weight.
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

t.test('least request: of the two drawn, the less loaded per weight', async (tt) => {
  const busy = endpoint('busy', 1, 10);
  const idle = endpoint('idle', 1, 0);
  // draws: 0.1 → busy first, then the other one
  tt.equal(leastRequest([busy, idle], () => 0.1).name, 'idle');
  tt.equal(leastRequest([idle, busy], () => 0.1).name, 'idle');
  const heavy = endpoint('heavy', 4, 3); // 4 in flight per 4 weight = 1
  const light = endpoint('light', 1, 1); // 2 per 1 = 2
  tt.equal(leastRequest([heavy, light], () => 0.5).name, 'heavy', 'weights count');
  tt.equal(leastRequest([idle]).name, 'idle', 'one endpoint: that one');
});
