// @ts-nocheck
// Generated from the store files' schemas (journal-codec.ts, journal-appender.ts, journal-files.ts,
// header-file.ts, lease-files.ts) by fastParseSource (@resume/core/spec): do not edit.
// store-files-parse.test.ts says how to write it again when a schema changes.
// Each answers exactly what its schema's parse returns, or NOT_PROVEN (zod then decides).
import {
  fastParseJournalEvent,
  fastParseSessionHeader,
  fastParseSessionSummary,
  NOT_PROVEN,
} from '@resume/core/spec';
function parse1(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) && value > 0 ? value : NOT_PROVEN;
}
function parse2(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) && value >= 0 ? value : NOT_PROVEN;
}
function parse5(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_PROVEN;
  if (Object.keys(value).length !== value.length) return NOT_PROVEN;
  const output = new Array(value.length);
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined) return NOT_PROVEN;
    const parsed = fastParseJournalEvent(item);
    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;
    output[index] = parsed;
  }
  return output.length >= 1 ? output : NOT_PROVEN;
}
function parse0(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["v"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse1(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["v"] = parsed;
  item = value["epoch"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["epoch"] = parsed;
  item = value["first"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse1(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["first"] = parsed;
  item = value["last"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse1(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["last"] = parsed;
  item = value["events"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse5(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["events"] = parsed;
  return output;
}
function parse6(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["summary"];
  if (item === undefined) return NOT_PROVEN;
  parsed = fastParseSessionSummary(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["summary"] = parsed;
  return output;
}
function parse8(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) ? value : NOT_PROVEN;
}
function parse7(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["epoch"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse8(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["epoch"] = parsed;
  item = value["last"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse8(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["last"] = parsed;
  item = value["summary"];
  if (item === undefined) return NOT_PROVEN;
  parsed = fastParseSessionSummary(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["summary"] = parsed;
  return output;
}
function parse10(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["expectedSeq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["expectedSeq"] = parsed;
  item = value["epoch"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["epoch"] = parsed;
  item = value["events"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse5(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["events"] = parsed;
  item = value["summary"];
  if (item === undefined) return NOT_PROVEN;
  parsed = fastParseSessionSummary(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["summary"] = parsed;
  return output;
}
function parse15(value) {
  return (value === 1) ? value : NOT_PROVEN;
}
function parse16(value) {
  return (value === "session-created") ? value : NOT_PROVEN;
}
function parse14(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse16(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["header"];
  if (item === undefined) return NOT_PROVEN;
  parsed = fastParseSessionHeader(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["header"] = parsed;
  return output;
}
function parse17(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["v"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["v"] = parsed;
  item = value["header"];
  if (item === undefined) return NOT_PROVEN;
  parsed = fastParseSessionHeader(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["header"] = parsed;
  return output;
}
function parse23(value) {
  return typeof value === 'string' ? value : NOT_PROVEN;
}
function parse25(value) {
  return value === null ? null : parse23(value);
}
function parse29(value) {
  return typeof value === 'boolean' ? value : NOT_PROVEN;
}
function parse30(value) {
  return value === undefined ? undefined : parse2(value);
}
function parse35(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : NOT_PROVEN;
}
function parse33(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["size"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["size"] = parsed;
  item = value["changedMs"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse35(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["changedMs"] = parsed;
  return output;
}
function parse32(value) {
  return value === undefined ? undefined : parse33(value);
}
function parse19(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["v"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["v"] = parsed;
  item = value["epoch"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse1(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["epoch"] = parsed;
  item = value["pid"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse8(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["pid"] = parsed;
  item = value["host"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse23(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["host"] = parsed;
  item = value["since"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse23(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["since"] = parsed;
  item = value["bootId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["bootId"] = parsed;
  item = value["processStart"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["processStart"] = parsed;
  item = value["released"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse29(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["released"] = parsed;
  item = value["lastSeq"];
  if (item === undefined && "lastSeq" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse30(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["lastSeq"] = parsed;
  }
  item = value["journal"];
  if (item === undefined && "journal" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse32(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["journal"] = parsed;
  }
  return output;
}
export function fastParseRecordEvents(value) {
  return parse0(value);
}
export function fastParseRecordSummary(value) {
  return parse6(value);
}
export function fastParseTailRecord(value) {
  return parse7(value);
}
export function fastParseBatchShape(value) {
  return parse10(value);
}
export function fastParseFirstEvent(value) {
  return parse14(value);
}
export function fastParseHeaderFile(value) {
  return parse17(value);
}
export function fastParseLeaseRecord(value) {
  return parse19(value);
}
