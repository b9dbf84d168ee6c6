// End-to-end: searching what sessions said. `sessions search` gives hits with snippets and
// rounds, `sessions list --search` keeps the listing's indexes, and the index beside the
// listing follows new sessions and is built again when it is gone.
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './run-cli.js';
import { sandboxFixture } from './sandbox-fixture.js';

const sessionIdFrom = (text: string) => /Session saved: ([0-9a-z]{22})/.exec(text)?.[1] ?? '';

interface Hit {
  index: number;
  id: string;
  title: string;
  field: string;
  round: number | null;
  speaker: string | null;
  snippet: string;
}

beforeAll(() => assertBuilt());

describe('conclave sessions search', () => {
  const sandbox = sandboxFixture('all');
  let billing = '';
  let teaShop = '';
  beforeAll(async () => {
    billing = sessionIdFrom((await sandbox.run(['Should we move billing to event sourcing?'])).stdout);
    teaShop = sessionIdFrom((await sandbox.run(['Plan the opening of a tea shop'])).stdout);
    expect(billing).not.toBe('');
    expect(teaShop).not.toBe('');
  });

  it('finds what an agent said, with the round, the speaker and a snippet', async () => {
    const hits = await sandbox.json<Hit[]>(['sessions', 'search', '"billing fails"']);
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.id).toBe(billing);
    const [first] = hits;
    expect(first).toMatchObject({ field: 'message', round: 2 });
    expect(first?.speaker).not.toBeNull();
    expect(first?.snippet.toLowerCase()).toContain('billing fails');
    const listed = await sandbox.json<Array<{ id: string; index: number }>>(['sessions', 'list']);
    expect(first?.index).toBe(listed.find((entry) => entry.id === billing)?.index);
  });

  it('shows the hits to a person: the session, where, and the words around the match', async () => {
    const result = await sandbox.run(['sessions', 'search', 'tea']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(teaShop.slice(0, 6));
    // Where each hit is: the title (the task reads the same, so it is shown once), then messages.
    expect(result.stdout).toMatch(/ title +Plan the opening of a tea shop/);
    expect(result.stdout).toMatch(/ round 1, \w+ +Plan the opening of a tea shop/);
    expect(result.stdout).not.toContain('event sourcing');
    const none = await sandbox.run(['sessions', 'search', 'zeppelin']);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('No session mentions "zeppelin"');
  });

  it('filters the listing by content, keeping each session its index', async () => {
    const all = await sandbox.json<Array<{ id: string; index: number }>>(['sessions', 'list']);
    const listed = await sandbox.json<Array<{ id: string; index: number; match: { snippet: string } }>>([
      'sessions',
      'list',
      '--search',
      'sourcing',
    ]);
    expect(listed.map((entry) => entry.id)).toEqual([billing]);
    expect(listed[0]?.index).toBe(all.find((entry) => entry.id === billing)?.index);
    expect(listed[0]?.match.snippet.toLowerCase()).toContain('sourcing');
    const human = await sandbox.run(['sessions', 'list', '--search', 'sourcing']);
    expect(human.stdout).toContain('sourcing');
    expect(human.stdout).not.toContain('tea shop');
  });

  it('follows new sessions, and is built again when its file is gone', async () => {
    const index = path.join(sandbox.home, 'index', 'content.sqlite');
    expect((await stat(index)).mode & 0o777).toBe(0o600);
    const child = sessionIdFrom((await sandbox.run(['--resume', billing, 'What about kubernetes?'])).stdout);
    expect(child).not.toBe('');
    expect((await sandbox.json<Hit[]>(['sessions', 'search', 'kubernetes'])).map((hit) => hit.id)).toContain(child);
    await rm(index);
    expect((await sandbox.json<Hit[]>(['sessions', 'search', 'kubernetes'])).map((hit) => hit.id)).toContain(child);
  });

  it('refuses an empty query and says what to type', async () => {
    const result = await sandbox.run(['sessions', 'search', ' " ']);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('conclave sessions search "');
  });
});
