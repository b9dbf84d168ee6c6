// End-to-end: the built `conclave` executable as a subprocess, against a temporary
// CONCLAVE_HOME and workspace, with the offline scripted provider. Covers every command
// and alias, the JSON shapes and exit codes of docs/architecture.md#the-cli, Ctrl+C and resume, and what
// happens without a terminal when a decision is missing.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createSandbox, type Sandbox } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

interface ListItem {
  index: number;
  id: string;
  title: string;
  mode: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  parentId: string | null;
}

interface ShowJson {
  id: string;
  title: string;
  mode: string;
  status: string;
  parentId: string | null;
  messages: { role: string; speaker: string | null; content: string; round: number | null }[];
  checkpoints: { seq: number; label: string | null }[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number | null };
  lineageUsage: { inputTokens: number; outputTokens: number; costUsd: number | null };
}

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? null;

beforeAll(() => assertBuilt());

describe('conclave: a discussion, continued, listed, shown', () => {
  let sandbox: Sandbox;
  let parentId: string;
  let childId: string;

  beforeAll(async () => {
    sandbox = await createSandbox();
    const started = await sandbox.run(['Evaluate my idea: durable agent sessions']);
    expect(started.code, started.stderr).toBe(0);
    parentId = sessionIdFrom(started.stdout) ?? '';
    expect(parentId).toMatch(/^[0-9a-z]{22}$/);
    const notices = started.stderr.split('\n').filter((line) => line.includes('offline scripted provider'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/OPENAI_API_KEY/);
    const continued = await sandbox.run(['--continue', 'What about scale?']);
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stderr).toContain(`Continuing session ${parentId}`);
    childId = sessionIdFrom(continued.stdout) ?? '';
    expect(childId).not.toBe(parentId);
  });
  afterAll(() => sandbox.remove());

  it('lists every session as JSON with the binding fields, newest first', async () => {
    const list = await sandbox.json<ListItem[]>(['sessions', 'list']);
    expect(list.map((item) => item.id)).toEqual([childId, parentId]);
    for (const item of list) {
      expect(Object.keys(item)).toEqual(
        expect.arrayContaining(['id', 'title', 'mode', 'status', 'createdAt', 'updatedAt', 'parentId']),
      );
      expect(item.mode).toBe('discussion');
      expect(item.status).toBe('completed');
    }
    expect(list[0]?.parentId).toBe(parentId);
    expect(list[1]?.parentId).toBeNull();
    expect(await sandbox.json<ListItem[]>(['sessions', 'list', '--limit', '1'])).toHaveLength(1);
    expect(await sandbox.json<ListItem[]>(['--list-sessions'])).toEqual(list);
  });

  it('shows a session by prefix, by list index and through the alias, with transcript and usage', async () => {
    const byPrefix = await sandbox.json<ShowJson>(['sessions', 'show', childId.slice(0, 16)]);
    expect(byPrefix).toMatchObject({ id: childId, mode: 'discussion', status: 'completed', parentId });
    expect(byPrefix.messages.length).toBeGreaterThan(3);
    for (const message of byPrefix.messages) {
      expect(Object.keys(message)).toEqual(expect.arrayContaining(['role', 'speaker', 'content', 'round']));
    }
    expect(byPrefix.messages.some((message) => message.speaker === 'critic')).toBe(true);
    expect(byPrefix.checkpoints.length).toBeGreaterThan(0);
    expect(byPrefix.checkpoints[0]).toEqual(expect.objectContaining({ seq: expect.any(Number) }));
    expect(byPrefix.usage.inputTokens).toBeGreaterThan(0);
    expect(byPrefix.lineageUsage.inputTokens).toBeGreaterThan(byPrefix.usage.inputTokens);
    expect(await sandbox.json<ShowJson>(['sessions', 'show', '2'])).toMatchObject({ id: parentId });
    expect(await sandbox.json<ShowJson>(['--show-session', parentId])).toMatchObject({ id: parentId });

    const human = await sandbox.run(['sessions', 'show', parentId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Evaluate my idea: durable agent sessions');
    expect(human.stdout).toMatch(/\[architect\]/);
    expect(human.stdout).toMatch(/round 1/);
  });

  it('lists checkpoints as JSON, all of them or the newest N', async () => {
    const checkpoints = await sandbox.json<{ seq: number; label: string | null }[]>(['checkpoints', 'list', parentId]);
    expect(checkpoints.length).toBeGreaterThan(2);
    expect(checkpoints.some((checkpoint) => checkpoint.label?.includes('round 1'))).toBe(true);
    const newest = await sandbox.json<{ seq: number }[]>(['checkpoints', 'list', parentId, '--limit', '2']);
    expect(newest).toEqual(checkpoints.slice(-2));
    const human = await sandbox.run(['checkpoints', 'list', parentId, '--limit', '1']);
    expect(human.stdout).toContain(String(checkpoints.at(-1)?.seq));
    expect(human.stdout).not.toMatch(new RegExp(`^\\s+${checkpoints[0]?.seq}\\s`, 'm'));
    expect(human.stderr).toContain(`… ${checkpoints.length - 1} older, not shown: the newest follows`);
  });

  it('exports and imports a session that shows the same transcript', async () => {
    const file = path.join(sandbox.root, 'export.json');
    const exported = await sandbox.run(['sessions', 'export', parentId, '-o', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const markdown = await sandbox.run(['sessions', 'export', parentId, '--format', 'md']);
    expect(markdown.stdout).toMatch(/^# Evaluate my idea/);

    const other = await createSandbox();
    try {
      const imported = await other.run(['sessions', 'import', file]);
      expect(imported.code, imported.stderr).toBe(0);
      const original = await sandbox.json<ShowJson>(['sessions', 'show', parentId]);
      const copy = await other.json<ShowJson>(['sessions', 'show', parentId]);
      expect(copy.messages).toEqual(original.messages);
      expect(copy.checkpoints).toEqual(original.checkpoints);
      const again = await other.run(['sessions', 'import', file]);
      expect(again.code).toBe(64);
      expect(again.stderr).toContain('already exists');
    } finally {
      await other.remove();
    }
    const damaged = path.join(sandbox.root, 'damaged.json');
    await writeFile(damaged, JSON.stringify({ format: 'conclave-session', formatVersion: 1, events: [] }));
    const refused = await sandbox.run(['sessions', 'import', damaged]);
    expect(refused.code).toBe(65);
  });

  it('branches from a round of a finished session without changing it', async () => {
    const before = await sandbox.json<ShowJson>(['sessions', 'show', parentId]);
    const branched = await sandbox.run(['--branch-from', parentId, '--at-round', '1', 'What if we target teams?']);
    expect(branched.code, branched.stderr).toBe(0);
    const branchId = sessionIdFrom(branched.stdout) ?? '';
    const branch = await sandbox.json<ShowJson>(['sessions', 'show', branchId]);
    expect(branch.parentId).toBe(parentId);
    expect(branch.messages.some((message) => message.content === 'What if we target teams?')).toBe(true);
    expect((await sandbox.json<ShowJson>(['sessions', 'show', parentId])).messages).toEqual(before.messages);
    const missingPoint = await sandbox.run(['--branch-from', parentId, 'question']);
    expect(missingPoint.code).toBe(64);
    expect(missingPoint.stderr).toContain('--at-round');
  });
});

describe('conclave: interrupt and resume', () => {
  const sandbox = sandboxFixture('all');

  it('exits 130 on Ctrl+C with the exact resume command, and the resumed transcript equals an uninterrupted one', async () => {
    const task = 'Plan the database migration';
    const slow = { CONCLAVE_SCRIPTED_LATENCY_MS: '150' };
    const running = sandbox.start([task], { env: slow });
    await running.waitFor(/round 2 · architect is speaking/);
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code).toBe(130);
    const command = /Resume with: (conclave --resume ([0-9a-z]{22}))/.exec(interrupted.stderr);
    expect(command, interrupted.stderr).not.toBeNull();
    const id = command?.[2] ?? '';
    expect((await sandbox.json<ShowJson>(['sessions', 'show', id])).status).toBe('interrupted');

    const withoutDecision = await sandbox.run(['--resume', id]);
    expect(withoutDecision.code).toBe(64);
    expect(withoutDecision.stderr).toContain('--yes');

    const plan = await sandbox.run(['--resume', id, '--dry-run']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/Done, will be skipped/);

    const resumed = await sandbox.run(['--resume', id, '--yes']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const afterResume = await sandbox.json<ShowJson>(['sessions', 'show', id]);
    expect(afterResume.status).toBe('completed');

    const other = await createSandbox();
    try {
      const uninterrupted = await other.run([task]);
      const reference = await other.json<ShowJson>(['sessions', 'show', sessionIdFrom(uninterrupted.stdout) ?? '']);
      const strip = (show: ShowJson) =>
        show.messages.map(({ role, speaker, content, round }) => ({ role, speaker, content, round }));
      expect(strip(afterResume)).toEqual(strip(reference));
    } finally {
      await other.remove();
    }
  });

  it('exits 75 while another process holds the session, naming pid and host', async () => {
    const running = sandbox.start(['A long discussion'], { env: { CONCLAVE_SCRIPTED_LATENCY_MS: '400' } });
    await running.waitFor(/is speaking/);
    const list = await sandbox.json<ListItem[]>(['sessions', 'list', '--status', 'running']);
    const live = list.find((item) => item.title === 'A long discussion');
    expect(live, JSON.stringify(list)).toBeDefined();
    const locked = await sandbox.run(['sessions', 'delete', live?.id ?? '']);
    expect(locked.code).toBe(75);
    expect(locked.stderr).toMatch(new RegExp(`pid ${running.child.pid}`));
    expect(locked.stderr).toMatch(/since/);
    running.child.kill('SIGINT');
    expect((await running.done).code).toBe(130);
  });

  it('asks for --on-conflict when a file the session wrote changed, and restores the snapshot', async () => {
    const script = path.join(sandbox.root, 'write-script.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: write_file, args: { path: out.txt, content: "from the session" } }',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const target = path.join(sandbox.workspace, 'out.txt');
    const running = sandbox.start(['--mode', 'orchestrated', '--script', script, 'Write out.txt'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '1500' },
    });
    while (!existsSync(target)) await new Promise((resolve) => setTimeout(resolve, 50));
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    const id = /conclave --resume ([0-9a-z]{22})/.exec(interrupted.stderr)?.[1] ?? '';
    await writeFile(target, 'edited by hand');
    const undecided = await sandbox.run(['--resume', id, '--yes']);
    expect(undecided.code).toBe(64);
    expect(undecided.stderr).toContain('out.txt (modified)');
    expect(undecided.stderr).toContain('--on-conflict');
    expect(await readFile(target, 'utf8')).toBe('edited by hand');
    const declined = await sandbox.run(['--resume', id, '--yes', '--on-conflict', 'cancel']);
    expect(declined.code).toBe(130);
    expect(declined.stderr).toContain(`Not resumed; session ${id} is unchanged.`);
    expect(declined.stderr).not.toContain('Interrupted');
    expect(await readFile(target, 'utf8')).toBe('edited by hand');
    const restored = await sandbox.run(['--resume', id, '--yes', '--on-conflict', 'restore']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('from the session');
    // The edit the restore replaced is journaled with the session and can be taken back.
    expect(restored.stderr).toContain(
      `out.txt: restored from the snapshot; your version is kept with the session: conclave files ${id} --restore out.txt`,
    );
    const listing = await sandbox.run(['files', id]);
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(/1 .* 14 B\s+out\.txt/);
    const inPlace = await sandbox.run(['files', id, '--restore', 'out.txt']);
    expect(inPlace.code).toBe(64);
    expect(inPlace.stderr).toContain('exists with other content; nothing was written');
    expect(await readFile(target, 'utf8')).toBe('from the session');
    const aside = await sandbox.run(['files', id, '--restore', '1', '--to', 'out.mine.txt']);
    expect(aside.code, aside.stderr).toBe(0);
    expect(await readFile(path.join(sandbox.workspace, 'out.mine.txt'), 'utf8')).toBe('edited by hand');
    // Only a new path is written: a FIFO or a link there is refused by name, never read or followed.
    execFileSync('mkfifo', [path.join(sandbox.workspace, 'out.fifo')]);
    await symlink(target, path.join(sandbox.workspace, 'out.link'));
    for (const [name, kind] of [
      ['out.link', `is a symbolic link to ${target}`],
      ['out.fifo', 'is a named pipe (FIFO)'],
    ] as const) {
      const refused = await sandbox.run(['files', id, '--restore', '1', '--to', name]);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain(`${path.join(sandbox.workspace, name)} ${kind}`);
    }
    expect(await readFile(target, 'utf8')).toBe('from the session');
    const exported = await sandbox.run(['sessions', 'export', id, '--format', 'json']);
    expect(exported.code, exported.stderr).toBe(0);
    const file = JSON.parse(exported.stdout) as {
      events: { type: string; blob?: string }[];
      blobs: Record<string, string>;
    };
    const saved = file.events.find((event) => event.type === 'file-version-saved');
    expect(Buffer.from(file.blobs[saved?.blob ?? ''] ?? '', 'base64').toString()).toBe('edited by hand');
  });

  it('flags a file created since the session read it as missing, without a terminal', async () => {
    const script = path.join(sandbox.root, 'read-script.yaml');
    await writeFile(
      script,
      [
        '- agent: lead',
        '  tool_calls:',
        '    - { name: read_file, args: { path: later.txt } }',
        '- agent: lead',
        '  text: "Done."',
        '',
      ].join('\n'),
    );
    const running = sandbox.start(['--mode', 'orchestrated', '--script', script, 'Read later.txt'], {
      env: { CONCLAVE_SCRIPTED_LATENCY_MS: '1500' },
    });
    await running.waitFor(/read_file/);
    running.child.kill('SIGINT');
    const interrupted = await running.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    const id = /conclave --resume ([0-9a-z]{22})/.exec(interrupted.stderr)?.[1] ?? '';
    await writeFile(path.join(sandbox.workspace, 'later.txt'), 'written since');
    const undecided = await sandbox.run(['--resume', id, '--yes']);
    expect(undecided.code).toBe(64);
    expect(undecided.stderr).toContain('later.txt (created since the session read it as missing)');
  });

  it('never picks a session of another workspace for a bare --resume', async () => {
    const elsewhere = path.join(sandbox.root, 'elsewhere');
    await mkdir(elsewhere);
    const result = await sandbox.run(['--resume', '--yes'], { cwd: elsewhere });
    expect(result.code).toBe(66);
    expect(result.stderr).toContain(`No interrupted or failed session in this workspace (${elsewhere})`);
    expect(result.stderr).toContain('Sessions of other workspaces');
  });
});

describe('conclave: the README tour', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(() => sandbox.remove());

  it('stops at a cost limit with a priced scripted provider, and goes on with a higher one, as printed', async () => {
    const env = { CONCLAVE_SCRIPTED_PRICE: '2.5,10' };
    const stopped = await sandbox.run(['Plan the Q3 launch', '--max-cost', '0.01'], { env });
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('Cost limit: Stopped before round-2/pragmatist');
    const id = /conclave --resume (\S+) --max-cost <usd>/.exec(stopped.stderr)?.[1] ?? '';
    expect(id).not.toBe('');
    const resumed = await sandbox.run(['--resume', id, '--yes', '--max-cost', '0.05'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const [session] = await sandbox.json<Array<{ costUsd: number }>>(['sessions', 'list']);
    expect(session?.costUsd).toBeGreaterThan(0.01);
    expect(session?.costUsd).toBeLessThan(0.05);
  });

  it('prices scripted calls from providers.scripted.price in the config, and refuses a malformed price', async () => {
    await writeFile(
      path.join(sandbox.workspace, '.conclave.yaml'),
      'providers:\n  scripted:\n    price: { input: 2.5, output: 10 }\n',
    );
    const priced = await sandbox.run(['Plan the Q3 launch', '--max-cost', '0.01']);
    expect(priced.code, priced.stderr).toBe(130);
    await rm(path.join(sandbox.workspace, '.conclave.yaml'));
    const malformed = await sandbox.run(['Plan the Q3 launch'], { env: { CONCLAVE_SCRIPTED_PRICE: 'cheap' } });
    expect(malformed.code).toBe(64);
    expect(malformed.stderr).toContain('CONCLAVE_SCRIPTED_PRICE');
    expect(malformed.stderr).toContain('CONCLAVE_SCRIPTED_PRICE=2.5,10');
  });
});

describe('conclave: workflows, admin commands and errors', () => {
  const sandbox = sandboxFixture('all');

  it('runs a workflow spec with variables, writes its artifact, and resumes by run --resume', async () => {
    await writeFile(
      path.join(sandbox.workspace, 'research.yaml'),
      [
        'name: research-chain',
        'variables: { topic: "AI agents" }',
        'agents:',
        '  researcher: { prompt: "You research {{ topic }}." }',
        '  writer: { prompt: "You write short reports." }',
        'steps:',
        '  - agent: researcher',
        '    input: "Research {{ topic }}"',
        '  - agent: writer',
        '    input: "Write a report from: {{ steps[0].response }}"',
        'outputs:',
        '  artifacts:',
        '    - { path: report.md, from: "{{ last_response }}" }',
        '',
      ].join('\n'),
    );
    const result = await sandbox.run(['run', 'research.yaml', '--var', 'topic=durable sessions', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as { sessionId: string; status: string };
    expect(outcome.status).toBe('completed');
    expect(await readFile(path.join(sandbox.workspace, 'report.md'), 'utf8')).not.toBe('');
    const show = await sandbox.json<ShowJson>(['sessions', 'show', outcome.sessionId]);
    expect(show.mode).toBe('chain');
    expect(JSON.stringify(show.messages)).toContain('durable sessions');

    const done = await sandbox.run(['run', '--resume', outcome.sessionId, '--yes']);
    expect(done.code).toBe(64);
    expect(done.stderr).toMatch(/is (already )?completed/);

    const discarded = await sandbox.run(['run', 'research.yaml', '--no-save-session', '--json']);
    expect(discarded.code).toBe(0);
    const discardedId = (JSON.parse(discarded.stdout) as { sessionId: string }).sessionId;
    expect((await sandbox.run(['sessions', 'show', discardedId])).code).toBe(66);

    const missing = await sandbox.run(['run', 'nope.yaml']);
    expect(missing.code).toBe(66);
  });

  it('reports a corrupted journal with file and offset (65), and repairs it', async () => {
    const started = await sandbox.run(['A session to damage']);
    const id = sessionIdFrom(started.stdout) ?? '';
    const journal = path.join(sandbox.home, 'sessions', id, 'journal.jsonl');
    const bytes = readFileSync(journal);
    let offset = Math.floor(bytes.length / 2);
    while (bytes[offset] === 0x0a || bytes[offset] === 0x22) offset += 1;
    bytes[offset] = bytes[offset] === 0x58 ? 0x59 : 0x58;
    writeFileSync(journal, bytes);
    const show = await sandbox.run(['sessions', 'show', id]);
    expect(show.code).toBe(65);
    expect(show.stderr).toContain('journal.jsonl');
    expect(show.stderr).toMatch(/byte \d+/);
    expect(show.stderr).toContain(`conclave sessions repair ${id}`);
    expect(show.stderr).not.toMatch(/\n\s+at /);
    const repaired = await sandbox.run(['sessions', 'repair', id]);
    expect(repaired.code, repaired.stderr).toBe(0);
    expect((await sandbox.run(['sessions', 'show', id])).code).toBe(0);
  });

  it('cleans up finished sessions but keeps interrupted ones unless asked', async () => {
    const interrupted = sandbox.start(['Keep me'], { env: { CONCLAVE_SCRIPTED_LATENCY_MS: '150' } });
    await interrupted.waitFor(/is speaking/);
    interrupted.child.kill('SIGINT');
    expect((await interrupted.done).code).toBe(130);
    const before = await sandbox.json<ListItem[]>(['sessions', 'list']);
    // `m` could be minutes or months: refused, naming both ways to write it; nothing deleted.
    const ambiguous = await sandbox.run(['sessions', 'cleanup', '--older-than', '1m']);
    expect(ambiguous.code).toBe(64);
    expect(ambiguous.stderr).toContain(
      '"1m" is ambiguous (minutes or months?): write 1min for minutes, or 30d for months',
    );
    const dryMinutes = await sandbox.run([
      'sessions',
      'cleanup',
      '--older-than',
      '0min',
      '--status',
      'interrupted',
      '--dry-run',
    ]);
    expect(dryMinutes.code, dryMinutes.stderr).toBe(0);
    expect(`${dryMinutes.stdout}${dryMinutes.stderr}`).toMatch(/not updated for \d+ minutes? \(limit 0 minutes\)/);
    const dry = await sandbox.json<{ delete: { id: string }[] }>([
      'sessions',
      'cleanup',
      '--older-than',
      '0d',
      '--dry-run',
    ]);
    expect(dry.delete.length).toBe(before.filter((item) => item.status === 'completed').length);
    expect((await sandbox.json<ListItem[]>(['sessions', 'list'])).length).toBe(before.length);
    const alias = await sandbox.run(['--cleanup-sessions', '--older-than', '0d']);
    expect(alias.code, alias.stderr).toBe(0);
    const after = await sandbox.json<ListItem[]>(['sessions', 'list']);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((item) => item.status === 'interrupted')).toBe(true);
    expect(after.map((item) => item.title)).toContain('Keep me');
    const nothing = await sandbox.run(['sessions', 'cleanup']);
    expect(nothing.code).toBe(64);
    expect(nothing.stderr).toContain('--older-than');
  });

  it('deletes by id and through the alias; a missing session exits 66 and lists recent ones', async () => {
    const first = sessionIdFrom((await sandbox.run(['First to delete'])).stdout) ?? '';
    const second = sessionIdFrom((await sandbox.run(['Second to delete'])).stdout) ?? '';
    expect((await sandbox.run(['sessions', 'delete', first])).code).toBe(0);
    // Ten characters are its creation time to about a second, which a session of an earlier test can share.
    expect((await sandbox.run(['--delete-session', second.slice(0, 14)])).code).toBe(0);
    const missing = await sandbox.run(['sessions', 'show', 'zzzzzzzz']);
    expect(missing.code).toBe(66);
    expect(missing.stderr).toContain('Recent sessions');
    expect((await sandbox.run(['sessions', 'show', '99'])).code).toBe(66);
  });

  it('keeps secrets out of the store', async () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const result = await sandbox.run(['--provider', 'scripted', `Review this config: OPENAI_API_KEY=${secret}`], {
      env: { OPENAI_API_KEY: secret },
    });
    expect(result.code, result.stderr).toBe(0);
    const files = readdirSync(sandbox.home, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (const file of files) {
      expect(readFileSync(path.join(file.parentPath, file.name)).includes(secret), file.name).toBe(false);
    }
  });

  it('exits 69 when a real provider has no key, and 64 on usage errors and missing decisions', async () => {
    const noKey = await sandbox.run(['--provider', 'openai', 'A task']);
    expect(noKey.code).toBe(69);
    expect(noKey.stderr).toContain('OPENAI_API_KEY');
    const unknownOption = await sandbox.run(['--bogus']);
    expect(unknownOption.code).toBe(64);
    const badChoice = await sandbox.run(['--on-conflict', 'maybe', '--resume', 'x']);
    expect(badChoice.code).toBe(64);
    const noFollowUp = await sandbox.run(['--continue']);
    expect(noFollowUp.code).toBe(64);
    expect(noFollowUp.stderr).toContain('follow-up');
    const noTask = await sandbox.run([]);
    expect(noTask.code).toBe(64);
  });

  it('with --json, every failure prints an error object on stdout and the message on stderr', async () => {
    interface ErrorJson {
      error: { code: string; message: string; exitCode: number; hint: string | null };
    }
    // Options commander refuses itself get their hint for scripts only; every other hint is on stderr too.
    const cases: Array<{ args: string[]; code: string; exitCode: number; parser?: true }> = [
      { args: ['sessions', 'list', '--json', '--bogus'], code: 'usage', exitCode: 64, parser: true },
      { args: ['sessions', 'show', 'zzzzzzzzzz', '--json'], code: 'session-not-found', exitCode: 66 },
      { args: ['run', 'missing.yaml', '--json'], code: 'file-not-found', exitCode: 66 },
      { args: ['--json', '--on-conflict', 'maybe', '--resume', 'x'], code: 'usage', exitCode: 64, parser: true },
      { args: ['--continue', '--json'], code: 'usage', exitCode: 64 },
    ];
    for (const { args, code, exitCode, parser } of cases) {
      const result = await sandbox.run(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(exitCode);
      const printed = JSON.parse(result.stdout) as ErrorJson;
      expect(printed.error).toMatchObject({ code, exitCode });
      expect(printed.error.message.length).toBeGreaterThan(0);
      expect(result.stderr).toContain(printed.error.message.split('\n')[0]);
      if (printed.error.hint !== null && !parser) expect(result.stderr).toContain(printed.error.hint.split('\n')[0]);
    }
  });

  it('shows the effective config with sources and names file and key of an invalid one', async () => {
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'retention:\n  maxAgeDays: 45\n');
    const config = await sandbox.json<{
      config: { retention: { maxAgeDays: number } };
      sources: Record<string, string>;
    }>(['config']);
    expect(config.config.retention.maxAgeDays).toBe(45);
    expect(config.sources['retention.maxAgeDays']).toBe(path.join(sandbox.workspace, '.conclave.yaml'));
    expect(config.sources.home).toBe('$CONCLAVE_HOME');
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), 'retention:\n  maxAgeDayz: 45\n');
    const invalid = await sandbox.run(['sessions', 'list']);
    expect(invalid.code).toBe(64);
    expect(invalid.stderr).toContain('.conclave.yaml at retention.maxAgeDayz');
    await writeFile(path.join(sandbox.workspace, '.conclave.yaml'), '');
  });

  it('never prints a store password: config shows it as *** from --store and CONCLAVE_STORE_URL', async () => {
    const url = 'postgres://conclave:s3cret-pass-word@db.internal:5432/conclave';
    for (const run of [
      () => sandbox.run(['config', '--store', url]),
      () => sandbox.run(['config', '--json', '--store', url]),
      () => sandbox.run(['config'], { env: { CONCLAVE_STORE_URL: url } }),
      () => sandbox.run(['config', '--json'], { env: { CONCLAVE_STORE_URL: url } }),
    ]) {
      const result = await run();
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain('s3cret-pass-word');
      expect(result.stdout).toContain('postgres://conclave:***@db.internal:5432/conclave');
    }
  });

  it('has --help with examples on every command, and respects NO_COLOR', async () => {
    const commands = [
      [],
      ['run'],
      ['sessions', 'list'],
      ['sessions', 'show'],
      ['sessions', 'delete'],
      ['sessions', 'cleanup'],
      ['sessions', 'export'],
      ['sessions', 'import'],
      ['sessions', 'repair'],
      ['checkpoints', 'list'],
      ['config'],
      ['db', 'migrate'],
      ['tui'],
    ];
    const results = await Promise.all(commands.map((command) => sandbox.run([...command, '--help'])));
    results.forEach((result, index) => {
      expect(result.code, commands[index]?.join(' ')).toBe(0);
      expect(result.stdout, commands[index]?.join(' ')).toContain('Examples:');
    });
    const coloured = await sandbox.run(['sessions', 'show', 'zzzzzzzz'], {
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(coloured.stderr).toContain('\u001b[');
    const plain = await sandbox.run(['sessions', 'show', 'zzzzzzzz'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stderr).not.toContain('\u001b[');
    const flag = await sandbox.run(['sessions', 'show', 'zzzzzzzz', '--no-color'], {
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(flag.stderr).not.toContain('\u001b[');
  });

  it('refuses a malformed store URL with 64 and how to write it', async () => {
    const result = await sandbox.run(['sessions', 'list', '--store', 'postgres://me:pw-secret-1@[::1']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('is not a valid URL');
    expect(result.stderr).toContain('postgres://user@[::1]:5432/database');
    expect(result.stderr).not.toContain('pw-secret-1');
  });

  it('db migrate needs a PostgreSQL store and tui needs a terminal', async () => {
    const migrate = await sandbox.run(['db', 'migrate']);
    expect(migrate.code).toBe(64);
    expect(migrate.stderr).toContain('postgres://');
    const tui = await sandbox.run(['tui']);
    expect(tui.code).toBe(64);
  });
});
