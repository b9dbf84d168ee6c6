// Encryption at rest against the same work in the clear, side by side in one run
// (docs/benchmarks.md, docs/encryption.md): a checkpoint (~2 KB message) taking turns between an
// encrypted and a plain session; open + fold of 10,000 messages, alternating; and
// `conclave sessions list --json` over 1,000 sessions of an encrypted and a plain home, each
// with a config file (`encryption: on` / `off`) so both take the same path. Budgets: 1.3x, 1.5x, 1.3x.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine } from '@resume/core';
import { generateDataKey } from '@resume/core/encryption';
import { createFsStore } from '@resume/storage-fs';
import { defaultCliPath } from './cli-startup.mjs';
import { benchSection, median, payload } from './measure.mjs';
import { collectGarbage } from './open-and-size.mjs';

const key = generateDataKey();
const keyring = { keys: { [key.id]: key.key }, current: key.id };
const storeOptions = (dir, encrypted) => ({ dir, ...(encrypted ? { encryption: keyring } : {}) });

/**
 * The order of the two sides (0: plain, 1: encrypted) in run `index`: plain first, then encrypted
 * first, and so on, so neither side always runs right after the other's writes (a sync that waits
 * on the other's dirty pages, a cache the other just warmed).
 */
const turns = (index) => (index % 2 === 0 ? [0, 1] : [1, 0]);

async function session(home, encrypted, messages) {
  const store = createFsStore(storeOptions(home, encrypted));
  const engine = createEngine({ store });
  const created = await engine.createSession({ title: 'bench', mode: 'custom' });
  for (let index = 1; index <= messages; index += 1) {
    created.addMessage({ role: 'assistant', content: payload(index) });
    if (index % 200 === 0) await created.checkpoint();
  }
  await created.checkpoint();
  return { store, engine, session: created };
}

async function checkpointRatio(directory, iterations) {
  const sides = await Promise.all(
    [false, true].map((encrypted) => session(path.join(directory, `cp-${encrypted}`), encrypted, 1_000)),
  );
  const samples = [[], []];
  for (let index = 0; index < iterations; index += 1) {
    for (const side of turns(index)) {
      const open = sides[side].session;
      open.addMessage({ role: 'assistant', content: payload(index) });
      const start = performance.now();
      await open.checkpoint();
      samples[side].push((performance.now() - start) * 1000);
    }
  }
  for (const side of sides) {
    await side.session.close();
    await side.engine.close();
  }
  const [plainUs, encryptedUs] = samples.map(median);
  return { plainUs, encryptedUs, ratio: encryptedUs / plainUs };
}

async function openRatio(directory, repeats) {
  const ids = [];
  for (const encrypted of [false, true]) {
    const built = await session(path.join(directory, `open-${encrypted}`), encrypted, 10_000);
    ids.push(built.session.id);
    await built.session.close();
    await built.engine.close();
  }
  const samples = [[], []];
  for (let index = 0; index < repeats; index += 1) {
    for (const side of turns(index)) {
      const encrypted = side === 1;
      const engine = createEngine({
        store: createFsStore(storeOptions(path.join(directory, `open-${encrypted}`), encrypted)),
      });
      // Each open starts from a collected heap, as a resume starts in a fresh process: otherwise
      // the garbage of the open before (a 10,000-message session's buffers) is collected inside
      // this one's clock, and which side pays for it follows the order of the turns.
      collectGarbage();
      const start = performance.now();
      const opened = await engine.openSession(ids[side]);
      samples[side].push(performance.now() - start);
      await opened.close();
      await engine.close();
    }
  }
  const [plainMs, encryptedMs] = samples.map(median);
  return { plainMs, encryptedMs, ratio: encryptedMs / plainMs };
}

async function listRatio(directory, runs, cli) {
  const homes = {};
  for (const encrypted of [false, true]) {
    const home = path.join(directory, `list-${encrypted}`);
    const engine = createEngine({ store: createFsStore(storeOptions(home, encrypted)) });
    for (let index = 0; index < 1_000; index += 1) {
      const created = await engine.createSession({ title: `session ${index}`, mode: 'discussion' });
      created.addMessage({ role: 'user', content: `task ${index}` });
      await created.complete();
      await created.close();
    }
    await engine.close();
    if (encrypted) {
      mkdirSync(path.join(home, 'keys', 'data'), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(home, 'keys', 'data', `${key.id}.key`), `${Buffer.from(key.key).toString('base64')}\n`, {
        mode: 0o600,
      });
      writeFileSync(path.join(home, 'keys', 'data', 'current'), `${key.id}\n`, { mode: 0o600 });
    }
    writeFileSync(path.join(home, 'config.yaml'), `encryption: ${encrypted ? 'on' : 'off'}\n`);
    homes[encrypted] = home;
  }
  const run = (home) => {
    const start = performance.now();
    execFileSync(process.execPath, [cli, 'sessions', 'list', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', CONCLAVE_HOME: home, NO_COLOR: '1' },
      maxBuffer: 256 * 1024 * 1024,
    });
    return performance.now() - start;
  };
  // Settled and listed once (the index stamped), as a user's home is between runs.
  await new Promise((resolve) => setTimeout(resolve, 2_200));
  run(homes[false]);
  run(homes[true]);
  const samples = [[], []];
  for (let index = 0; index < runs; index += 1) {
    for (const side of turns(index)) samples[side].push(run(homes[side === 1]));
  }
  const [plainMs, encryptedMs] = samples.map(median);
  return { plainMs, encryptedMs, ratio: encryptedMs / plainMs };
}

export async function measureEncryption({ quick = false, cli = defaultCliPath } = {}) {
  const directory = await mkdtemp(path.join(tmpdir(), 'conclave-bench-encryption-'));
  try {
    return {
      checkpoint: await checkpointRatio(directory, quick ? 50 : 200),
      open: await openRatio(directory, quick ? 3 : 7),
      list: existsSync(cli) ? await listRatio(directory, quick ? 5 : 15, cli) : null,
    };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

export function formatEncryption(result) {
  const row = (name, plain, encrypted, ratio, limit, unit) =>
    `  ${name.padEnd(44)} ${plain.toFixed(unit === 'us' ? 0 : 1).padStart(8)} ${encrypted.toFixed(unit === 'us' ? 0 : 1).padStart(9)} ${unit}  ${ratio.toFixed(2).padStart(5)}x  ${ratio <= limit ? 'ok' : 'MISSED'} (budget ${limit}x)\n`;
  const lines = ['encryption at rest vs in the clear (medians, side by side)\n'];
  lines.push(`  ${''.padEnd(44)} ${'plain'.padStart(8)} ${'encrypted'.padStart(9)}\n`);
  lines.push(
    row(
      'checkpoint (~2 KB message)',
      result.checkpoint.plainUs,
      result.checkpoint.encryptedUs,
      result.checkpoint.ratio,
      1.3,
      'us',
    ),
  );
  lines.push(
    row('open + fold of 10,000 messages', result.open.plainMs, result.open.encryptedMs, result.open.ratio, 1.5, 'ms'),
  );
  if (result.list) {
    lines.push(
      row(
        'sessions list --json (1,000 sessions)',
        result.list.plainMs,
        result.list.encryptedMs,
        result.list.ratio,
        1.3,
        'ms',
      ),
    );
  } else lines.push('  sessions list --json: skipped (build the CLI first)\n');
  return lines.join('');
}

export const runEncryptionSection = benchSection(import.meta.url, measureEncryption, formatEncryption);
