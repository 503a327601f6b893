// Shutdown when nobody reads the gateway's log any more (a log collector or
// the parent process gone): SIGTERM must still end the process after the
// drain. pino's exit-time synchronous flush retries a failed write for ever,
// so the gateway skips it once its own flush is done or timed out
// (src/ops/lifecycle.ts). The lines a stop writes reach the log every time,
// and so do the call lines the CLI buffers (src/cli/main.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { BIN, startGatewayProcess } from '../helpers/cli-process.js';

/** Polls a state with a generous bound for loaded machines. */
async function until(cond: () => boolean, ms = 30_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && !cond()) await new Promise((r) => setTimeout(r, 100));
  return cond();
}

t.test('SIGTERM ends the gateway even when the reader of its log is gone', async (t) => {
  // A parent that starts the gateway with piped output and exits after the first line: nobody reads the log now.
  const dir = t.testdir();
  writeFileSync(
    join(dir, 'gateway.yaml'),
    stringify({
      listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
      shutdownGraceMs: 400,
      routes: [{ name: 'r', upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' } }],
    }),
  );
  const parent = spawn(
    process.execPath,
    [
      '-e',
      `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([BIN, '--config', join(dir, 'gateway.yaml')])}, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
       c.stdout.once('data', () => { console.log(c.pid); process.exit(0); });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await once(parent, 'exit');
  const pid = Number(out.trim());
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  t.teardown(() => {
    if (alive()) process.kill(pid, 'SIGKILL');
  });
  t.ok(pid > 0 && alive(), 'the gateway runs on, its log unread');
  process.kill(pid, 'SIGTERM');
  t.ok(await until(() => !alive()), 'SIGTERM: drained and exited');
});

t.test('the shutdown lines reach the log every time (SIGTERM right after start)', async (t) => {
  const dir = t.testdir();
  const config = {
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    routes: [{ name: 'r', upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' } }],
  };
  // the log's last lines were lost about one exit in ten: the flush's callback could come before them
  for (let i = 0; i < 8; i++) {
    const gw = await startGatewayProcess(dir, config);
    t.teardown(() => gw.stop('SIGKILL')); // (a no-op once stopped)
    t.equal(await gw.stop(), 0, `run ${i}: exit 0`);
    // 'exit' can come before the last of stdout is read
    if (!gw.child.stdout!.readableEnded) await once(gw.child.stdout!, 'end');
    const lines = gw.logs.map((l) => String(l.msg));
    t.ok(lines.includes('shutting down') && lines.some((m) => m.startsWith('draining')), `run ${i}: logged`);
  }
});

t.test('the CLI buffers call lines: they reach the log on their own, in order, and none is lost at exit', async (t) => {
  // The CLI buffers call lines (written per 8 KiB or every second, src/cli/main.ts): short ones stay in the buffer
  // until the periodic flush writes them, with no other line to push them out; the last ones are left at exit.
  const dir = t.testdir();
  const gw = await startGatewayProcess(dir, {
    listen: { host: '127.0.0.1', httpPort: 0, grpcPort: 0 },
    routes: [{ name: 'r', upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' } }],
  });
  t.teardown(() => gw.stop('SIGKILL')); // (a no-op once stopped)
  const ids: string[] = [];
  /** One call (a JSON-RPC error: the agent is not there), with its request id. */
  const call = async (id: string): Promise<void> => {
    ids.push(id);
    const res = await fetch(`http://${gw.http}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'GetTask', params: { id: 't' } }),
    });
    t.equal(res.status, 200, `${id} answered`);
    await res.text();
  };
  for (let i = 0; i < 5; i++) await call(`buffered-${i}`);
  await gw.logLine((l) => l.requestId === 'buffered-4');
  t.pass('the last call line came without a lifecycle line to flush it');
  for (let i = 0; i < 3; i++) await call(`at-exit-${i}`);
  t.equal(await gw.stop(), 0, 'exit 0');
  if (!gw.child.stdout!.readableEnded) await once(gw.child.stdout!, 'end');
  const calls = gw.logs.filter((l) => l.msg === 'call').map((l) => l.requestId);
  t.same(calls, ids, 'every call line, in call order');
  const msgs = gw.logs.map((l) => String(l.msg));
  t.ok(msgs.indexOf('shutting down') > msgs.lastIndexOf('call'), 'the shutdown line after the calls');
  t.ok(msgs.indexOf('a2a-gateway listening') < msgs.indexOf('call'), 'the listening line before them');
});
