// Load balancing over a route's available endpoints (issue 14), the two
// policies Envoy users know: least outstanding requests as Envoy does it
// (equal weights: power of two choices, the one of two random endpoints with
// fewer calls in flight; weights that differ: a weighted choice on each
// endpoint's weight / (calls in flight + 1), Envoy's load-adjusted weights,
// scheduled here by smooth weighted round robin so that an idle route still
// gets its configured shares), and smooth weighted round robin (nginx's: each
// endpoint gets its share of picks, evenly interleaved). Each pick is one pass
// over the endpoints and allocates nothing.

/** What the balancer sees of an endpoint. */
export interface Balanced {
  readonly weight: number;
  /** Calls in flight to the endpoint now. */
  readonly active: number;
  /** Round-robin state (the endpoint's current weight; least-request with weights uses it too). */
  current: number;
}

/** Smooth weighted round robin over each endpoint's weight, or (byLoad) its weight / (calls in flight + 1). */
function smooth<T extends Balanced>(from: readonly T[], byLoad: boolean): T {
  let total = 0;
  let best = from[0]!;
  for (const e of from) {
    const w = byLoad ? e.weight / (e.active + 1) : e.weight;
    e.current += w;
    total += w;
    if (e.current > best.current) best = e;
  }
  best.current -= total;
  return best;
}

/**
 * Least outstanding requests. Equal weights: power of two choices (two distinct endpoints drawn at random, the one
 * with fewer calls in flight). Weights that differ: a weighted choice on weight / (calls in flight + 1), as Envoy
 * does, so that with nothing in flight each endpoint gets its weight's share, and a loaded one less.
 */
export function leastRequest<T extends Balanced>(from: readonly T[], random: () => number = Math.random): T {
  const n = from.length;
  if (n === 1) return from[0]!;
  const w = from[0]!.weight;
  for (let k = 1; k < n; k++) if (from[k]!.weight !== w) return smooth(from, true);
  const i = Math.min(n - 1, Math.floor(random() * n));
  let j = Math.min(n - 2, Math.floor(random() * (n - 1)));
  if (j >= i) j++;
  const a = from[i]!;
  const b = from[j]!;
  return a.active <= b.active ? a : b;
}

/** Smooth weighted round robin. */
export function roundRobin<T extends Balanced>(from: readonly T[]): T {
  return smooth(from, false);
}
