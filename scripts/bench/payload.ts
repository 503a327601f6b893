// Large payloads through the gateway (the payload part of `npm run bench`;
// alone: `npm run bench:payload`): SendMessage with one `raw` part of 1 MiB
// and 10 MiB, for every binding pair, on a gateway of its own per pair.
// Memory, one call at a time: the pair is warmed up with a small call, then
// the gateway's peak RSS is reset to its RSS (the pair's idle RSS) and
// CALLS calls go one after the other; the figure is the peak over that idle
// RSS, in multiples of the payload. Throughput is measured after that,
// apart: 2 callers for SECONDS s.
import type { Binding } from '../../src/config/types.js';
import { params, target, type Target } from './calls.js';
import { grpcCallOnce, grpcLoad, httpCallOnce, httpLoad, memory, resetPeak } from './load.js';
import { startGatewayProc, startUpstreams, type Upstreams } from './procs.js';
import { BINDINGS, benchConfig, via } from './routes.js';

/** BENCH_PAYLOAD_CALLS: more calls show where the all-calls peak levels off (see the report's text). */
const CALLS = Number(process.env.BENCH_PAYLOAD_CALLS ?? 5);
const SECONDS = 2;
const CALLERS = 2;

export interface PayloadRow {
  mib: number;
  inbound: Binding;
  upstream: Binding;
  /** Calls of the one-at-a-time run that failed (of CALLS). */
  callErrors: number;
  /** The gateway's RSS after the warm-up, before the pair's calls (bytes). */
  start: number;
  /** The gateway's peak RSS over the pair's one-at-a-time calls (bytes). */
  peak: number;
  /** (peak − start) ÷ payload. */
  perPayload: number;
  /** The same over the first call alone: what one call holds at once, before garbage of earlier calls adds up. */
  firstCall: number;
  mibPerSecond: number;
  /** Failed calls of the throughput run. */
  errors: number;
}

export const PAYLOAD_CALLS = CALLS;
export const PAYLOAD_SECONDS = SECONDS;
export const PAYLOAD_CALLERS = CALLERS;

const callOnce = (t: Target): Promise<boolean> => (t.kind === 'http' ? httpCallOnce(t.load) : grpcCallOnce(t.load));

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 500));

export async function measurePayloads(
  up: Upstreams,
  sizes: number[],
  log: (line: string) => void,
): Promise<PayloadRow[]> {
  const rows: PayloadRow[] = [];
  const config = benchConfig(up.urls);
  for (const mib of sizes) {
    const raw = Buffer.alloc(mib * 2 ** 20, 7).toString('base64');
    const small = Buffer.alloc(1024, 7).toString('base64');
    for (const inbound of BINDINGS) {
      for (const upstream of BINDINGS) {
        const gw = await startGatewayProc(config);
        try {
          const t = target(inbound, 'SendMessage', via(gw, upstream), params('SendMessage', '', raw));
          // the pair's code paths run once (lazy modules, compiled code) before the memory reading
          await callOnce(target(inbound, 'SendMessage', via(gw, upstream), params('SendMessage', '', small)));
          await settle();
          resetPeak(gw.pid);
          const start = memory(gw.pid).rss;
          let callErrors = 0;
          let firstPeak = 0;
          for (let i = 0; i < CALLS; i++) {
            if (!(await callOnce(t))) callErrors++;
            if (i === 0) firstPeak = memory(gw.pid).peak;
          }
          const peak = memory(gw.pid).peak;
          const r =
            t.kind === 'http' ? await httpLoad(t.load, CALLERS, SECONDS) : await grpcLoad(t.load, CALLERS, SECONDS);
          const row: PayloadRow = {
            mib,
            inbound,
            upstream,
            callErrors,
            start,
            peak,
            perPayload: (peak - start) / (mib * 2 ** 20),
            firstCall: (firstPeak - start) / (mib * 2 ** 20),
            mibPerSecond: (r.requests * mib) / SECONDS,
            errors: r.errors,
          };
          rows.push(row);
          log(
            `${String(mib).padStart(2)} MiB ${inbound.padEnd(9)} → ${upstream.padEnd(9)} peak ${(peak / 2 ** 20).toFixed(0)} MiB over ${(start / 2 ** 20).toFixed(0)}: ${row.perPayload.toFixed(1)}× (first call ${row.firstCall.toFixed(1)}×; ${callErrors} of ${CALLS} failed) | ${row.mibPerSecond.toFixed(1)} MiB/s, ${r.errors} errors`,
          );
        } finally {
          await gw.stop();
        }
      }
    }
  }
  return rows;
}

// `npm run bench:payload`: this part alone (the gateway must be built: npm run build)
if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = (process.env.BENCH_PAYLOAD_MIB ?? '1,10').split(',').map(Number);
  const up = await startUpstreams();
  const rows = await measurePayloads(up, sizes, (line) => process.stdout.write(`${line}\n`));
  await up.stop();
  for (const mib of sizes) {
    const of = rows.filter((r) => r.mib === mib);
    const worst = Math.max(...of.map((r) => r.perPayload));
    const first = Math.max(...of.map((r) => r.firstCall));
    process.stdout.write(
      `${mib} MiB: worst pair ${worst.toFixed(1)}× the payload (first call alone: ${first.toFixed(1)}×)\n`,
    );
  }
  process.exit(0);
}
