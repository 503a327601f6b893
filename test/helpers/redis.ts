// Real Redis for the tests (issue 14; never mocked): the server `.ci/run`
// starts (A2A_TEST_REDIS_URL), or one of the test's own — `redis-server` on a
// free loopback port, no persistence, its folder a t.testdir() — stopped in
// teardown. A test that stops and restarts Redis always spawns its own. Each
// test takes a key prefix of its own, so tests sharing one server never meet.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { refusedPort } from './broken-upstreams.js';
import { waitFor } from './wait.js';

interface TestLike {
  testdir(): string;
  teardown(fn: () => unknown): void;
}

export interface OwnRedis {
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: it keeps nothing). */
  start(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  try {
    await c.connect();
    return (await c.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    c.disconnect();
  }
}

/** A redis-server of the test's own, stopped in teardown. */
export async function spawnRedis(t: TestLike): Promise<OwnRedis> {
  const dir = t.testdir();
  const port = await refusedPort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    );
    await waitFor(() => answers(url), `redis-server on port ${port}`);
  };
  const stop = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    c.kill('SIGKILL');
    await once(c, 'exit');
  };
  await start();
  t.teardown(stop);
  return { url, start, stop };
}

/** The shared test Redis when .ci/run started one, else one of the test's own. */
export async function testRedisUrl(t: TestLike): Promise<string> {
  return process.env.A2A_TEST_REDIS_URL ?? (await spawnRedis(t)).url;
}

/** A key prefix no other test uses. */
export function uniquePrefix(name: string): string {
  return `a2a-test:${name}:${randomBytes(4).toString('hex')}:`;
}
