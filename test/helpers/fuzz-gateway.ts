// The gateway the inbound fuzz tests call: started on their config, with an
// HTTP pool (8 connections) and a raw gRPC client to it, all closed at the
// test's teardown; and the route those fuzzing requests alone use, whose
// agent refuses connections (every valid call ends UPSTREAM_UNAVAILABLE).
import * as grpc from '@grpc/grpc-js';
import type { Test } from 'tap';
import { pino } from 'pino';
import { Pool } from 'undici';
import type { GatewayConfig } from '../../src/config/types.js';
import { startGateway, type RunningGateway } from '../../src/server/gateway.js';
import { refusedPort } from './broken-upstreams.js';
import { gatewayConfig } from './harness.js';

export interface FuzzTarget {
  gw: RunningGateway;
  pool: Pool;
  client: grpc.Client;
}

export async function fuzzTarget(t: Test, config: GatewayConfig): Promise<FuzzTarget> {
  const gw = await startGateway(config, pino({ level: 'silent' }));
  const pool = new Pool(gw.httpUrl, { connections: 8 });
  const client = new grpc.Client(gw.grpcAddress, grpc.credentials.createInsecure());
  t.teardown(async () => {
    client.close();
    await pool.close();
    await gw.close();
  });
  return { gw, pool, client };
}

/** A gateway whose one route leads to an agent that refuses connections (1 s timeout). */
export async function refusingTarget(t: Test): Promise<FuzzTarget> {
  const port = await refusedPort();
  const url = `http://127.0.0.1:${port}/rpc`;
  return fuzzTarget(
    t,
    gatewayConfig([{ name: 'fuzz', upstream: { url, binding: 'JSONRPC' as const }, timeoutMs: 1000 }]),
  );
}
