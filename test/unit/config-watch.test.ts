// The config file watcher on real files in a real folder (t.testdir()): a
// Kubernetes ConfigMap's `..data` symlink swapped three times gives three
// reloads; `sed -i` and `mv` over the file, repeated, each reload; an invalid
// file keeps the old config, is logged with why and counted as rejected;
// SIGHUP's reload re-applies unchanged bytes; the metrics name the outcome,
// the load time and the hash of the bytes in force.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import type { GatewayConfig } from '../../src/config/types.js';
import { ConfigWatch, configHash } from '../../src/ops/config-watch.js';
import { Metrics } from '../../src/ops/metrics.js';

/** Writes the file by rename, so no reader ever sees it half-written. */
function replace(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const yaml = (name: string): string =>
  stringify({ routes: [{ name, upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' } }] });

/** A watcher on `path` whose applies and rejections can be awaited one by one. */
function watcher(t: Test, path: string) {
  const applied: string[] = [];
  const rejected: Array<Record<string, unknown>> = [];
  let wake: () => void = () => undefined;
  const changed = (): Promise<void> => new Promise((r) => (wake = r));
  const log = pino(
    { level: 'info' },
    {
      write(line: string) {
        const json = JSON.parse(line) as Record<string, unknown>;
        if (String(json.msg).includes('NOT reloaded')) {
          rejected.push(json);
          wake();
        }
      },
    },
  );
  const metrics = new Metrics();
  const w = new ConfigWatch({
    path,
    hash: configHash(readFileSync(path)),
    log,
    metrics,
    debounceMs: 50,
    apply: (c: GatewayConfig) => {
      applied.push(c.routes[0]!.name);
      wake();
    },
  }).start();
  // The watcher holds the process open no more than the gateway's listeners would: keep it alive meanwhile.
  const alive = setInterval(() => undefined, 60_000);
  t.teardown(() => {
    clearInterval(alive);
    w.close();
  });
  return {
    w,
    applied,
    rejected,
    metrics,
    /** Runs `change` and resolves once the watcher has applied or rejected something. */
    async after(change: () => void): Promise<void> {
      const next = changed();
      change();
      await next;
    },
  };
}

async function metric(m: Metrics, prefix: string): Promise<string | undefined> {
  return (await m.text()).split('\n').find((l) => l.startsWith(prefix));
}

t.test('a ConfigMap-style ..data symlink swapped 3 times: 3 reloads', async (t) => {
  const dir = t.testdir();
  const generation = (n: number): void => {
    mkdirSync(join(dir, `..gen_${n}`));
    writeFileSync(join(dir, `..gen_${n}`, 'gateway.yaml'), yaml(`gen-${n}`));
  };
  generation(0);
  symlinkSync(`..gen_0`, join(dir, '..data'));
  symlinkSync('..data/gateway.yaml', join(dir, 'gateway.yaml'));
  const path = join(dir, 'gateway.yaml');
  const w = watcher(t, path);
  for (let n = 1; n <= 3; n++) {
    // What the kubelet does: a new timestamped folder, a new symlink renamed over ..data, the old folder removed.
    await w.after(() => {
      generation(n);
      symlinkSync(`..gen_${n}`, join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, `..gen_${n - 1}`), { recursive: true });
    });
  }
  t.same(w.applied, ['gen-1', 'gen-2', 'gen-3'], 'each swap reloaded, in order');
  t.equal(
    await metric(w.metrics, 'a2a_gateway_config_reload_total{outcome="success"}'),
    'a2a_gateway_config_reload_total{outcome="success"} 3',
  );
  t.equal(
    await metric(w.metrics, 'a2a_gateway_config_info{'),
    `a2a_gateway_config_info{hash="${configHash(readFileSync(path))}"} 1`,
    'the hash of the bytes in force',
  );
});

t.test('sed -i and mv over the file, repeated: each reloads', async (t) => {
  const dir = t.testdir({ 'gateway.yaml': yaml('first') });
  const path = join(dir, 'gateway.yaml');
  const w = watcher(t, path);
  for (const name of ['sed-1', 'sed-2', 'sed-3']) {
    const before = readFileSync(path, 'utf8').match(/name: (\S+)/)![1]!;
    await w.after(() => execFileSync('sed', ['-i', `s/name: ${before}/name: ${name}/`, path]));
  }
  for (const name of ['mv-1', 'mv-2', 'mv-3']) {
    await w.after(() => {
      writeFileSync(join(dir, 'next.yaml'), yaml(name));
      execFileSync('mv', [join(dir, 'next.yaml'), path]);
    });
  }
  t.same(w.applied, ['sed-1', 'sed-2', 'sed-3', 'mv-1', 'mv-2', 'mv-3']);
  t.equal(
    await metric(w.metrics, 'a2a_gateway_config_reload_total{outcome="success"}'),
    'a2a_gateway_config_reload_total{outcome="success"} 6',
  );
  const at = Number(
    (await metric(w.metrics, 'a2a_gateway_config_last_reload_success_timestamp_seconds'))?.split(' ')[1],
  );
  t.ok(Math.abs(at - Date.now() / 1000) < 600, 'the last reload time, in unix seconds');
});

t.test('an invalid file keeps the old config, says why and counts as rejected', async (t) => {
  const dir = t.testdir({ 'gateway.yaml': yaml('good') });
  const path = join(dir, 'gateway.yaml');
  const w = watcher(t, path);
  const goodHash = await metric(w.metrics, 'a2a_gateway_config_info{');
  await w.after(() => replace(path, 'routes:\n  - name: broken\n    upstream: { binding: SOAP }\n'));
  t.same(w.applied, [], 'nothing applied');
  t.match((w.rejected[0]?.problems as string[]).join('\n'), /gateway\.yaml:\d+:\d+: routes\[0\]/, 'with where and why');
  t.equal(
    await metric(w.metrics, 'a2a_gateway_config_reload_total{outcome="rejected"}'),
    'a2a_gateway_config_reload_total{outcome="rejected"} 1',
  );
  t.equal(await metric(w.metrics, 'a2a_gateway_config_info{'), goodHash, 'the hash in force is still the old one');
  await w.after(() => rmSync(path));
  t.match((w.rejected[1]?.problems as string[])[0], /cannot read/, 'a removed file is rejected too');
  await w.after(() => replace(path, yaml('fixed')));
  t.same(w.applied, ['fixed'], 'a valid file afterwards applies');
});

t.test('SIGHUP re-applies the file even when its bytes did not change', async (t) => {
  const dir = t.testdir({ 'gateway.yaml': yaml('same') });
  const w = watcher(t, join(dir, 'gateway.yaml'));
  t.equal(await w.w.reload(), true);
  t.same(w.applied, ['same']);
});

t.test('once closed (the gateway drains), a SIGHUP reloads nothing, even a changed file', async (t) => {
  const dir = t.testdir({ 'gateway.yaml': yaml('first') });
  const path = join(dir, 'gateway.yaml');
  const w = watcher(t, path);
  w.w.close();
  replace(path, yaml('during-drain'));
  t.equal(await w.w.reload(), false, 'SIGHUP after close applies nothing');
  t.same(w.applied, [], 'the new routes were not swapped in');
  t.same(w.rejected, [], 'nor reported as a rejected reload');
});

t.test('a reloaded card signing key that does not fit its alg is rejected; one that fits applies', async (t) => {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const dir = t.testdir({ 'gateway.yaml': yaml('first'), 'card.pem': key.toString() });
  const path = join(dir, 'gateway.yaml');
  const signed = (name: string, alg: string): string =>
    stringify({
      routes: [
        {
          name,
          upstream: { url: 'http://127.0.0.1:9/rpc', binding: 'JSONRPC' },
          card: { signatures: 'resign', signingKey: { file: 'card.pem', alg, kid: 'k1' } },
        },
      ],
    });
  const w = watcher(t, path);
  await w.after(() => replace(path, signed('rs256', 'RS256')));
  t.same(w.applied, [], 'an EC key for RS256 is not applied');
  t.match(
    (w.rejected[0]?.problems as string[])[0],
    /gateway\.yaml:\d+:\d+: routes\[0\]\.card\.signingKey: \S*card\.pem is not a usable RS256 signing key/,
  );
  await w.after(() => replace(path, signed('es256', 'ES256')));
  t.same(w.applied, ['es256'], 'the same key for ES256 applies');
});
