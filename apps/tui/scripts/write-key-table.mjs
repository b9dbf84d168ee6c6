// Rewrites the key table of docs/tui.md from the key bindings (apps/tui/src/keys/key-bindings.ts):
//   ./bin/node apps/tui/scripts/write-key-table.mjs
// Node strips the module's types; it imports nothing of ours but types.
import { readFileSync, writeFileSync } from 'node:fs';
import { keyTable } from '../src/keys/key-bindings.ts';

const docs = new URL('../../../docs/tui.md', import.meta.url);
const lines = readFileSync(docs, 'utf8').split('\n');
const start = lines.indexOf('| Screen | Keys |');
if (start === -1) throw new Error('docs/tui.md has no key table (a line "| Screen | Keys |")');
let end = start;
while (lines[end]?.startsWith('|')) end++;
lines.splice(start, end - start, keyTable());
writeFileSync(docs, lines.join('\n'));
