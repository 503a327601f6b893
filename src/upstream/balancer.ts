// Load balancing over a route's available endpoints (issue 14), the two
// policies Envoy users know: least outstanding requests as Envoy does it
// (power of two choices: of two endpoints drawn by weight, the one with fewer
// calls in flight per unit of weight), and smooth weighted round robin
// (nginx's: each endpoint gets its share of picks, evenly interleaved).

/** What the balancer sees of an endpoint. */
export interface Balanced {
  readonly weight: number;
  /** Calls in flight to the endpoint now. */
  readonly active: number;
  /** Round-robin state (the endpoint's current weight). */
  current: number;
}

function drawByWeight<T extends Balanced>(from: readonly T[], random: () => number): T {
  const total = from.reduce((n, e) => n + e.weight, 0);
  let x = random() * total;
  for (const e of from) {
    x -= e.weight;
    if (x < 0) return e;
  }
  return from[from.length - 1]!;
}

/** Least outstanding requests, power of two choices. */
export function leastRequest<T extends Balanced>(from: readonly T[], random: () => number = Math.random): T {
  if (from.length === 1) return from[0]!;
  const a = drawByWeight(from, random);
  const b = drawByWeight(
    from.filter((e) => e !== a),
    random,
  );
  return (a.active + 1) / a.weight <= (b.active + 1) / b.weight ? a : b;
}

/** Smooth weighted round robin. */
export function roundRobin<T extends Balanced>(from: readonly T[]): T {
  let total = 0;
  let best = from[0]!;
  for (const e of from) {
    e.current += e.weight;
    total += e.weight;
    if (e.current > best.current) best = e;
  }
  best.current -= total;
  return best;
}
