// The repository explains itself: code and docs cite docs/architecture.md, the decision records
// or another page of docs/, never a design document kept somewhere else. This test fails when a
// source or doc file cites one again (the word in capitals, as such citations were written).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/packed-packages.js';

const thisFile = fileURLToPath(import.meta.url);
const skipped = new Set(['node_modules', 'dist', '.git', '.tools', '.turbo', 'results']);
const checked = /\.(ts|tsx|mts|js|mjs|cjs|md|json|yaml|yml)$/;

function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return files(full);
    return checked.test(entry.name) && full !== thisFile ? [full] : [];
  });
}

describe('citations', () => {
  it('no source or doc file cites an outside design document', () => {
    const citing = files(repositoryRoot).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          /\bDESIGN\b/.test(line) ? [`${path.relative(repositoryRoot, file)}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(citing).toEqual([]);
  });

  it('docs/architecture.md exists and every docs/architecture.md#section cited has its heading', () => {
    const architecture = readFileSync(path.join(repositoryRoot, 'docs', 'architecture.md'), 'utf8');
    const anchors = new Set(
      [...architecture.matchAll(/^#+ (.+)$/gm)].map((match) =>
        (match[1] ?? '')
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const cited = files(repositoryRoot).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/architecture\.md#([a-z0-9-]+)/g)].map((match) => ({
        file: path.relative(repositoryRoot, file),
        anchor: match[1] ?? '',
      })),
    );
    expect(cited.length).toBeGreaterThan(0);
    expect(cited.filter(({ anchor }) => !anchors.has(anchor))).toEqual([]);
  });
});
