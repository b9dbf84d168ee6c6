// @ts-nocheck
// Generated from the journal event, session header and summary schemas (events.ts, summary.ts) by
// fastParseSource (fast-parse-source.ts):
// do not edit. journal-event-parse.test.ts says how to write it again when a schema changes.
// Answers exactly what the schema's parse returns, or NOT_PROVEN (zod then decides).
import { NOT_PROVEN } from './fast-parse.js';
function parse2(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) && value > 0 ? value : NOT_PROVEN;
}
function parse3(value) {
  return typeof value === 'string' ? value : NOT_PROVEN;
}
function parse6(value) {
  return typeof value === 'string' && value.length >= 1 ? value : NOT_PROVEN;
}
function parse5(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  return output;
}
function parse4(value) {
  return value === undefined ? undefined : parse5(value);
}
function parse8(value) {
  return (value === "session-created") ? value : NOT_PROVEN;
}
const pattern11 = new RegExp("^[0-9a-hjkmnp-tv-z]{22}$", "");
function parse10(value) {
  return typeof value === 'string' && ((pattern11.lastIndex = 0), pattern11.test(value)) ? value : NOT_PROVEN;
}
const pattern14 = new RegExp("^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$", "");
function parse13(value) {
  return typeof value === 'string' && value.length <= 64 && ((pattern14.lastIndex = 0), pattern14.test(value)) ? value : NOT_PROVEN;
}
function parse15(value) {
  return value === null ? null : parse3(value);
}
function parse18(value) {
  return value === null ? null : parse10(value);
}
function parse20(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) && value >= 0 ? value : NOT_PROVEN;
}
function parse19(value) {
  return value === null ? null : parse20(value);
}
function parse28(value) {
  return typeof value === 'number' && Number.isFinite(value) ? value : NOT_PROVEN;
}
function parse29(value) {
  return typeof value === 'boolean' ? value : NOT_PROVEN;
}
function parse30(value) {
  return value === null ? value : NOT_PROVEN;
}
function parse31(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_PROVEN;
  if (Object.keys(value).length !== value.length) return NOT_PROVEN;
  const output = new Array(value.length);
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined) return NOT_PROVEN;
    const parsed = parse25(item);
    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;
    output[index] = parsed;
  }
  return output;
}
function parse32(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  if (Object.getOwnPropertySymbols(value).length > 0) return NOT_PROVEN;
  const output = {};
  const keys = Object.keys(value);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index];
    if (key === '__proto__') return NOT_PROVEN;
    const item = value[key];
    if (item === undefined) return NOT_PROVEN;
    const parsed = parse25(item);
    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;
    output[key] = parsed;
  }
  return output;
}
function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? type : 'other';
}
function parse26(value) {
  switch (kindOf(value)) {
    case 'string':
      return parse3(value);
    case 'number':
      return parse28(value);
    case 'boolean':
      return parse29(value);
    case 'null':
      return parse30(value);
    case 'array':
      return parse31(value);
    case 'object':
      return parse32(value);
    default:
      return NOT_PROVEN;
  }
}
function parse25(value) {
  return parse26(value);
}
function parse34(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["branch"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["branch"] = parsed;
  item = value["head"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["head"] = parsed;
  return output;
}
function parse33(value) {
  return value === null ? null : parse34(value);
}
function parse9(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["id"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse10(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["id"] = parsed;
  item = value["title"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["title"] = parsed;
  item = value["mode"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse13(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["mode"] = parsed;
  item = value["workspaceDir"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["workspaceDir"] = parsed;
  item = value["createdAt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["createdAt"] = parsed;
  item = value["parentId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse18(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["parentId"] = parsed;
  item = value["branchPoint"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse19(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["branchPoint"] = parsed;
  item = value["specHash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["specHash"] = parsed;
  item = value["formatVersion"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["formatVersion"] = parsed;
  item = value["options"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse32(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["options"] = parsed;
  item = value["git"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse33(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["git"] = parsed;
  return output;
}
function parse39(value) {
  return value === undefined ? undefined : parse20(value);
}
function parse1(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse8(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["header"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse9(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["header"] = parsed;
  item = value["setup"];
  if (item === undefined && "setup" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse39(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["setup"] = parsed;
  }
  item = value["copied"];
  if (item === undefined && "copied" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse39(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["copied"] = parsed;
  }
  return output;
}
function parse44(value) {
  return (value === "message-added") ? value : NOT_PROVEN;
}
function parse46(value) {
  return (value === "system" || value === "user" || value === "assistant" || value === "tool") ? value : NOT_PROVEN;
}
function parse48(value) {
  if (value === undefined) return null;
  const parsed = parse15(value);
  return parsed === undefined ? null : parsed;
}
function parse51(value) {
  if (value === undefined) return null;
  const parsed = parse19(value);
  return parsed === undefined ? null : parsed;
}
function parse56(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["id"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["id"] = parsed;
  item = value["name"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["name"] = parsed;
  item = value["args"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["args"] = parsed;
  return output;
}
function parse55(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_PROVEN;
  if (Object.keys(value).length !== value.length) return NOT_PROVEN;
  const output = new Array(value.length);
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined) return NOT_PROVEN;
    const parsed = parse56(item);
    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;
    output[index] = parsed;
  }
  return output;
}
function parse54(value) {
  return value === undefined ? undefined : parse55(value);
}
function parse59(value) {
  return value === undefined ? undefined : parse3(value);
}
function parse62(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return NOT_PROVEN;
  if (Object.keys(value).length !== value.length) return NOT_PROVEN;
  const output = new Array(value.length);
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined) return NOT_PROVEN;
    const parsed = parse3(item);
    if (parsed === NOT_PROVEN || parsed === undefined) return NOT_PROVEN;
    output[index] = parsed;
  }
  return output;
}
function parse61(value) {
  return value === undefined ? undefined : parse62(value);
}
function parse45(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["role"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse46(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["role"] = parsed;
  item = value["content"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["content"] = parsed;
  item = value["speaker"];
  if (item === undefined && "speaker" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["speaker"] = parsed;
  item = value["round"];
  if (item === undefined && "round" in value) return NOT_PROVEN;
  parsed = parse51(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["round"] = parsed;
  item = value["toolCalls"];
  if (item === undefined && "toolCalls" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse54(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["toolCalls"] = parsed;
  }
  item = value["toolCallId"];
  if (item === undefined && "toolCallId" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse59(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["toolCallId"] = parsed;
  }
  item = value["tags"];
  if (item === undefined && "tags" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse61(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["tags"] = parsed;
  }
  return output;
}
function parse43(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse44(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["message"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse45(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["message"] = parsed;
  return output;
}
function parse65(value) {
  return (value === "step-started") ? value : NOT_PROVEN;
}
function parse69(value) {
  return (value === "idempotent" || value === "unsafe") ? value : NOT_PROVEN;
}
function parse71(value) {
  return value === undefined ? undefined : parse6(value);
}
function parse64(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse65(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["attempt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["attempt"] = parsed;
  item = value["safety"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse69(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["safety"] = parsed;
  item = value["idempotencyKey"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["idempotencyKey"] = parsed;
  item = value["branch"];
  if (item === undefined && "branch" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse71(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["branch"] = parsed;
  }
  return output;
}
function parse74(value) {
  return (value === "step-completed") ? value : NOT_PROVEN;
}
function parse78(value) {
  return value === undefined ? undefined : parse25(value);
}
function parse73(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse74(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["attempt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["attempt"] = parsed;
  item = value["output"];
  if (item === undefined && "output" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse78(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["output"] = parsed;
  }
  item = value["outputBlob"];
  if (item === undefined && "outputBlob" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse59(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["outputBlob"] = parsed;
  }
  return output;
}
function parse82(value) {
  return (value === "step-failed") ? value : NOT_PROVEN;
}
function parse92(value) {
  if (value === undefined) return false;
  const parsed = parse29(value);
  return parsed === undefined ? false : parsed;
}
function parse86(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["name"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["name"] = parsed;
  item = value["message"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["message"] = parsed;
  item = value["code"];
  if (item === undefined && "code" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["code"] = parsed;
  item = value["retryable"];
  if (item === undefined && "retryable" in value) return NOT_PROVEN;
  parsed = parse92(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["retryable"] = parsed;
  return output;
}
function parse81(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse82(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["attempt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["attempt"] = parsed;
  item = value["error"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse86(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["error"] = parsed;
  item = value["willRetry"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse29(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["willRetry"] = parsed;
  return output;
}
function parse96(value) {
  return (value === "step-skipped") ? value : NOT_PROVEN;
}
function parse95(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse96(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["reason"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["reason"] = parsed;
  item = value["output"];
  if (item === undefined && "output" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse78(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["output"] = parsed;
  }
  return output;
}
function parse102(value) {
  return (value === "tool-call-started") ? value : NOT_PROVEN;
}
function parse101(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse102(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["callId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["callId"] = parsed;
  item = value["name"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["name"] = parsed;
  item = value["args"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["args"] = parsed;
  item = value["stepKey"];
  if (item === undefined && "stepKey" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["stepKey"] = parsed;
  return output;
}
function parse109(value) {
  return (value === "tool-call-completed") ? value : NOT_PROVEN;
}
function parse108(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse109(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["callId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["callId"] = parsed;
  item = value["name"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["name"] = parsed;
  item = value["result"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["result"] = parsed;
  item = value["isError"];
  if (item === undefined && "isError" in value) return NOT_PROVEN;
  parsed = parse92(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["isError"] = parsed;
  return output;
}
function parse115(value) {
  return (value === "variables-set") ? value : NOT_PROVEN;
}
function parse114(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse115(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["variables"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse32(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["variables"] = parsed;
  return output;
}
function parse118(value) {
  return (value === "file-snapshot-taken") ? value : NOT_PROVEN;
}
function parse125(value) {
  return (value === "read" || value === "write") ? value : NOT_PROVEN;
}
function parse117(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse118(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["path"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["path"] = parsed;
  item = value["hash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["hash"] = parsed;
  item = value["size"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["size"] = parsed;
  item = value["blob"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["blob"] = parsed;
  item = value["access"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse125(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["access"] = parsed;
  return output;
}
function parse127(value) {
  return (value === "file-version-saved") ? value : NOT_PROVEN;
}
function parse132(value) {
  return (value === "replaced-by-restore") ? value : NOT_PROVEN;
}
function parse126(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse127(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["path"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["path"] = parsed;
  item = value["hash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["hash"] = parsed;
  item = value["size"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["size"] = parsed;
  item = value["blob"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["blob"] = parsed;
  item = value["reason"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse132(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["reason"] = parsed;
  return output;
}
function parse134(value) {
  return (value === "usage-recorded") ? value : NOT_PROVEN;
}
function parse149(value) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : NOT_PROVEN;
}
function parse148(value) {
  return value === null ? null : parse149(value);
}
function parse133(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse134(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["provider"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["provider"] = parsed;
  item = value["model"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["model"] = parsed;
  item = value["agent"];
  if (item === undefined && "agent" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["agent"] = parsed;
  item = value["round"];
  if (item === undefined && "round" in value) return NOT_PROVEN;
  parsed = parse51(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["round"] = parsed;
  item = value["stepKey"];
  if (item === undefined && "stepKey" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["stepKey"] = parsed;
  item = value["inputTokens"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["inputTokens"] = parsed;
  item = value["outputTokens"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["outputTokens"] = parsed;
  item = value["costUsd"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse148(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["costUsd"] = parsed;
  return output;
}
function parse151(value) {
  return (value === "checkpoint-marked") ? value : NOT_PROVEN;
}
function parse150(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse151(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["label"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["label"] = parsed;
  return output;
}
function parse155(value) {
  return (value === "status-changed") ? value : NOT_PROVEN;
}
function parse156(value) {
  return (value === "running" || value === "interrupted" || value === "waiting" || value === "completed" || value === "failed") ? value : NOT_PROVEN;
}
function parse161(value) {
  return value === null ? null : parse86(value);
}
function parse160(value) {
  if (value === undefined) return null;
  const parsed = parse161(value);
  return parsed === undefined ? null : parsed;
}
function parse154(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse155(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["status"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse156(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["status"] = parsed;
  item = value["reason"];
  if (item === undefined && "reason" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["reason"] = parsed;
  item = value["error"];
  if (item === undefined && "error" in value) return NOT_PROVEN;
  parsed = parse160(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["error"] = parsed;
  return output;
}
function parse163(value) {
  return (value === "session-resumed") ? value : NOT_PROVEN;
}
function parse165(value) {
  return typeof value === 'number' && Number.isFinite(value) && Number.isSafeInteger(value) ? value : NOT_PROVEN;
}
function parse167(value) {
  return value === undefined ? undefined : parse29(value);
}
function parse162(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse163(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["recovery"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["recovery"] = parsed;
  item = value["pid"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse165(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["pid"] = parsed;
  item = value["host"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["host"] = parsed;
  item = value["crashed"];
  if (item === undefined && "crashed" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse167(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["crashed"] = parsed;
  }
  return output;
}
function parse170(value) {
  return (value === "data-set") ? value : NOT_PROVEN;
}
function parse169(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse170(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["value"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["value"] = parsed;
  return output;
}
function parse173(value) {
  return (value === "spec-recorded") ? value : NOT_PROVEN;
}
function parse174(value) {
  return (value === "task" || value === "workflow" || value === "prompt" || value === "project") ? value : NOT_PROVEN;
}
function parse186(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["spec"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["spec"] = parsed;
  item = value["rules"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["rules"] = parsed;
  item = value["hash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["hash"] = parsed;
  return output;
}
function parse185(value) {
  return value === undefined ? undefined : parse186(value);
}
function parse183(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["data"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["data"] = parsed;
  item = value["hash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["hash"] = parsed;
  item = value["validated"];
  if (item === undefined && "validated" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse185(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["validated"] = parsed;
  }
  return output;
}
function parse182(value) {
  return value === undefined ? undefined : parse183(value);
}
function parse172(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse173(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["kind"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse174(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["kind"] = parsed;
  item = value["path"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["path"] = parsed;
  item = value["hash"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["hash"] = parsed;
  item = value["blob"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["blob"] = parsed;
  item = value["content"];
  if (item === undefined && "content" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse59(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["content"] = parsed;
  }
  item = value["document"];
  if (item === undefined && "document" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse182(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["document"] = parsed;
  }
  return output;
}
function parse191(value) {
  return (value === "title-changed") ? value : NOT_PROVEN;
}
function parse190(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse191(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["title"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["title"] = parsed;
  return output;
}
function parse194(value) {
  return (value === "metadata-changed") ? value : NOT_PROVEN;
}
function parse195(value) {
  return value === undefined ? undefined : parse15(value);
}
function parse193(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse194(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["name"];
  if (item === undefined && "name" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse195(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["name"] = parsed;
  }
  item = value["tags"];
  if (item === undefined && "tags" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse61(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["tags"] = parsed;
  }
  item = value["pinned"];
  if (item === undefined && "pinned" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse167(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["pinned"] = parsed;
  }
  item = value["archived"];
  if (item === undefined && "archived" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse167(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["archived"] = parsed;
  }
  item = value["trashed"];
  if (item === undefined && "trashed" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse167(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["trashed"] = parsed;
  }
  return output;
}
function parse208(value) {
  return (value === "input-requested") ? value : NOT_PROVEN;
}
function parse213(value) {
  return value === null ? null : parse25(value);
}
function parse212(value) {
  if (value === undefined) return null;
  const parsed = parse213(value);
  return parsed === undefined ? null : parsed;
}
function parse207(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse208(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["prompt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["prompt"] = parsed;
  item = value["schema"];
  if (item === undefined && "schema" in value) return NOT_PROVEN;
  parsed = parse212(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["schema"] = parsed;
  return output;
}
function parse215(value) {
  return (value === "input-received") ? value : NOT_PROVEN;
}
function parse214(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse215(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["occurrence"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["occurrence"] = parsed;
  item = value["value"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["value"] = parsed;
  item = value["answeredBy"];
  if (item === undefined && "answeredBy" in value) return NOT_PROVEN;
  parsed = parse48(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["answeredBy"] = parsed;
  return output;
}
function parse222(value) {
  return (value === "graph-checkpoint-saved") ? value : NOT_PROVEN;
}
function parse225(value) {
  return value === null ? null : parse6(value);
}
function parse221(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse222(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["namespace"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["namespace"] = parsed;
  item = value["checkpointId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["checkpointId"] = parsed;
  item = value["parentCheckpointId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse225(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["parentCheckpointId"] = parsed;
  item = value["data"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["data"] = parsed;
  return output;
}
function parse228(value) {
  return (value === "graph-writes-saved") ? value : NOT_PROVEN;
}
function parse227(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["seq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse2(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["seq"] = parsed;
  item = value["at"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["at"] = parsed;
  item = value["within"];
  if (item === undefined && "within" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse4(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["within"] = parsed;
  }
  item = value["type"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse228(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["type"] = parsed;
  item = value["namespace"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["namespace"] = parsed;
  item = value["checkpointId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse6(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["checkpointId"] = parsed;
  item = value["taskId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["taskId"] = parsed;
  item = value["data"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse25(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["data"] = parsed;
  return output;
}
function parse0(value) {
  if (typeof value !== 'object' || value === null) return NOT_PROVEN;
  switch (value["type"]) {
    case "session-created":
      return parse1(value);
    case "message-added":
      return parse43(value);
    case "step-started":
      return parse64(value);
    case "step-completed":
      return parse73(value);
    case "step-failed":
      return parse81(value);
    case "step-skipped":
      return parse95(value);
    case "tool-call-started":
      return parse101(value);
    case "tool-call-completed":
      return parse108(value);
    case "variables-set":
      return parse114(value);
    case "file-snapshot-taken":
      return parse117(value);
    case "file-version-saved":
      return parse126(value);
    case "usage-recorded":
      return parse133(value);
    case "checkpoint-marked":
      return parse150(value);
    case "status-changed":
      return parse154(value);
    case "session-resumed":
      return parse162(value);
    case "data-set":
      return parse169(value);
    case "spec-recorded":
      return parse172(value);
    case "title-changed":
      return parse190(value);
    case "metadata-changed":
      return parse193(value);
    case "input-requested":
      return parse207(value);
    case "input-received":
      return parse214(value);
    case "graph-checkpoint-saved":
      return parse221(value);
    case "graph-writes-saved":
      return parse227(value);
    default:
      return NOT_PROVEN;
  }
}
function parse247(value) {
  return value === null ? null : parse165(value);
}
function parse244(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["label"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["label"] = parsed;
  item = value["done"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["done"] = parsed;
  item = value["total"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse247(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["total"] = parsed;
  return output;
}
function parse243(value) {
  return value === null ? null : parse244(value);
}
function parse257(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["key"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["key"] = parsed;
  item = value["prompt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["prompt"] = parsed;
  return output;
}
function parse256(value) {
  return value === null ? null : parse257(value);
}
function parse255(value) {
  return value === undefined ? undefined : parse256(value);
}
function parse280(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["problem"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["problem"] = parsed;
  item = value["file"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["file"] = parsed;
  return output;
}
function parse279(value) {
  return value === undefined ? undefined : parse280(value);
}
function parse284(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["path"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["path"] = parsed;
  item = value["problem"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["problem"] = parsed;
  return output;
}
function parse283(value) {
  return value === undefined ? undefined : parse284(value);
}
function parse232(value) {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return NOT_PROVEN;
  const output = {};
  let item;
  let parsed;
  item = value["id"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse10(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["id"] = parsed;
  item = value["title"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["title"] = parsed;
  item = value["mode"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse13(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["mode"] = parsed;
  item = value["status"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse156(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["status"] = parsed;
  item = value["workspaceDir"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["workspaceDir"] = parsed;
  item = value["createdAt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["createdAt"] = parsed;
  item = value["updatedAt"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse3(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["updatedAt"] = parsed;
  item = value["parentId"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse18(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["parentId"] = parsed;
  item = value["branchPoint"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse19(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["branchPoint"] = parsed;
  item = value["lastSeq"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["lastSeq"] = parsed;
  item = value["messageCount"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["messageCount"] = parsed;
  item = value["progress"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse243(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["progress"] = parsed;
  item = value["inputTokens"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["inputTokens"] = parsed;
  item = value["outputTokens"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse20(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["outputTokens"] = parsed;
  item = value["costUsd"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse148(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["costUsd"] = parsed;
  item = value["task"];
  if (item === undefined) return NOT_PROVEN;
  parsed = parse15(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["task"] = parsed;
  item = value["waitingFor"];
  if (item === undefined && "waitingFor" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse255(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["waitingFor"] = parsed;
  }
  item = value["archived"];
  if (item === undefined && "archived" in value) return NOT_PROVEN;
  parsed = parse92(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["archived"] = parsed;
  item = value["name"];
  if (item === undefined && "name" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse195(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["name"] = parsed;
  }
  item = value["tags"];
  if (item === undefined && "tags" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse61(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["tags"] = parsed;
  }
  item = value["pinned"];
  if (item === undefined && "pinned" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse167(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["pinned"] = parsed;
  }
  item = value["archivedAt"];
  if (item === undefined && "archivedAt" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse195(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["archivedAt"] = parsed;
  }
  item = value["trashedAt"];
  if (item === undefined && "trashedAt" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse195(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["trashedAt"] = parsed;
  }
  item = value["bytes"];
  if (item === undefined && "bytes" in value) return NOT_PROVEN;
  parsed = parse51(item);
  if (parsed === NOT_PROVEN) return NOT_PROVEN;
  output["bytes"] = parsed;
  item = value["damage"];
  if (item === undefined && "damage" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse279(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["damage"] = parsed;
  }
  item = value["unreadable"];
  if (item === undefined && "unreadable" in value) return NOT_PROVEN;
  if (item !== undefined) {
    parsed = parse283(item);
    if (parsed === NOT_PROVEN) return NOT_PROVEN;
    output["unreadable"] = parsed;
  }
  return output;
}
export function fastParseJournalEvent(value) {
  return parse0(value);
}
export function fastParseSessionHeader(value) {
  return parse9(value);
}
export function fastParseSessionSummary(value) {
  return parse232(value);
}
