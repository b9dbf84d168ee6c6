// @ts-nocheck
// Generated from the listing index schema (summary-index.ts) by exactCheckSource (exact-check.ts):
// do not edit. index-file-check.test.ts says how to write it again when the schema changes.
// True only when zod would accept the value and return it unchanged.
const pattern9 = new RegExp("^[0-9a-hjkmnp-tv-z]{22}$", "");
const pattern12 = new RegExp("^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$", "");
const pattern18 = new RegExp("^[0-9a-hjkmnp-tv-z]{22}$", "");
function object23(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "label")) {
    const field24 = value["label"];
    if (field24 === undefined || !(typeof field24 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "done")) {
    const field25 = value["done"];
    if (field25 === undefined || !((typeof field25 === 'number' && Number.isFinite(field25) && Number.isSafeInteger(field25) && field25 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "total")) {
    const field26 = value["total"];
    if (field26 === undefined || !((field26 === null || (typeof field26 === 'number' && Number.isFinite(field26) && Number.isSafeInteger(field26))))) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function object32(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "key")) {
    const field33 = value["key"];
    if (field33 === undefined || !(typeof field33 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "prompt")) {
    const field34 = value["prompt"];
    if (field34 === undefined || !(typeof field34 === 'string')) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function array38(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  if (Object.keys(value).length !== value.length) return false;
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined || !(typeof item === 'string')) return false;
  }
  return true;
}
function object44(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "problem")) {
    const field45 = value["problem"];
    if (field45 === undefined || !(typeof field45 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "file")) {
    const field46 = value["file"];
    if (field46 === undefined || !(typeof field46 === 'string')) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function object48(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "path")) {
    const field49 = value["path"];
    if (field49 === undefined || !(typeof field49 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "problem")) {
    const field50 = value["problem"];
    if (field50 === undefined || !(typeof field50 === 'string')) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function object7(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "id")) {
    const field8 = value["id"];
    if (field8 === undefined || !((typeof field8 === 'string' && ((pattern9.lastIndex = 0), pattern9.test(field8))))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "title")) {
    const field10 = value["title"];
    if (field10 === undefined || !(typeof field10 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "mode")) {
    const field11 = value["mode"];
    if (field11 === undefined || !((typeof field11 === 'string' && field11.length <= 64 && ((pattern12.lastIndex = 0), pattern12.test(field11))))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "status")) {
    const field13 = value["status"];
    if (field13 === undefined || !((field13 === "running" || field13 === "interrupted" || field13 === "waiting" || field13 === "completed" || field13 === "failed"))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "workspaceDir")) {
    const field14 = value["workspaceDir"];
    if (field14 === undefined || !((field14 === null || typeof field14 === 'string'))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "createdAt")) {
    const field15 = value["createdAt"];
    if (field15 === undefined || !(typeof field15 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "updatedAt")) {
    const field16 = value["updatedAt"];
    if (field16 === undefined || !(typeof field16 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "parentId")) {
    const field17 = value["parentId"];
    if (field17 === undefined || !((field17 === null || (typeof field17 === 'string' && ((pattern18.lastIndex = 0), pattern18.test(field17)))))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "branchPoint")) {
    const field19 = value["branchPoint"];
    if (field19 === undefined || !((field19 === null || (typeof field19 === 'number' && Number.isFinite(field19) && Number.isSafeInteger(field19) && field19 >= 0)))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "lastSeq")) {
    const field20 = value["lastSeq"];
    if (field20 === undefined || !((typeof field20 === 'number' && Number.isFinite(field20) && Number.isSafeInteger(field20) && field20 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "messageCount")) {
    const field21 = value["messageCount"];
    if (field21 === undefined || !((typeof field21 === 'number' && Number.isFinite(field21) && Number.isSafeInteger(field21) && field21 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "progress")) {
    const field22 = value["progress"];
    if (field22 === undefined || !((field22 === null || object23(field22)))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "inputTokens")) {
    const field27 = value["inputTokens"];
    if (field27 === undefined || !((typeof field27 === 'number' && Number.isFinite(field27) && Number.isSafeInteger(field27) && field27 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "outputTokens")) {
    const field28 = value["outputTokens"];
    if (field28 === undefined || !((typeof field28 === 'number' && Number.isFinite(field28) && Number.isSafeInteger(field28) && field28 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "costUsd")) {
    const field29 = value["costUsd"];
    if (field29 === undefined || !((field29 === null || (typeof field29 === 'number' && Number.isFinite(field29) && field29 >= 0)))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "task")) {
    const field30 = value["task"];
    if (field30 === undefined || !((field30 === null || typeof field30 === 'string'))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "waitingFor")) {
    const field31 = value["waitingFor"];
    if (field31 === undefined || !((field31 === undefined || (field31 === null || object32(field31))))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "archived")) {
    const field35 = value["archived"];
    if (field35 === undefined || !((field35 !== undefined && typeof field35 === 'boolean'))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "name")) {
    const field36 = value["name"];
    if (field36 === undefined || !((field36 === undefined || (field36 === null || typeof field36 === 'string')))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "tags")) {
    const field37 = value["tags"];
    if (field37 === undefined || !((field37 === undefined || array38(field37)))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "pinned")) {
    const field39 = value["pinned"];
    if (field39 === undefined || !((field39 === undefined || typeof field39 === 'boolean'))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "archivedAt")) {
    const field40 = value["archivedAt"];
    if (field40 === undefined || !((field40 === undefined || (field40 === null || typeof field40 === 'string')))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "trashedAt")) {
    const field41 = value["trashedAt"];
    if (field41 === undefined || !((field41 === undefined || (field41 === null || typeof field41 === 'string')))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "bytes")) {
    const field42 = value["bytes"];
    if (field42 === undefined || !((field42 !== undefined && (field42 === null || (typeof field42 === 'number' && Number.isFinite(field42) && Number.isSafeInteger(field42) && field42 >= 0))))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "damage")) {
    const field43 = value["damage"];
    if (field43 === undefined || !((field43 === undefined || object44(field43)))) return false;
    present += 1;
  }
  if (Object.hasOwn(value, "unreadable")) {
    const field47 = value["unreadable"];
    if (field47 === undefined || !((field47 === undefined || object48(field47)))) return false;
    present += 1;
  }
  return Object.keys(value).length === present;
}
function object54(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "problem")) {
    const field55 = value["problem"];
    if (field55 === undefined || !(typeof field55 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "file")) {
    const field56 = value["file"];
    if (field56 === undefined || !(typeof field56 === 'string')) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function array58(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  if (Object.keys(value).length !== value.length) return false;
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined || !((item === "header" || item === "journal"))) return false;
  }
  return true;
}
function object4(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "id")) {
    const field5 = value["id"];
    if (field5 === undefined || !(typeof field5 === 'string')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "summary")) {
    const field6 = value["summary"];
    if (field6 === undefined || !((field6 === null || object7(field6)))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "journalSize")) {
    const field51 = value["journalSize"];
    if (field51 === undefined || !((typeof field51 === 'number' && Number.isFinite(field51) && Number.isSafeInteger(field51) && field51 >= 0))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "archived")) {
    const field52 = value["archived"];
    if (field52 === undefined || !(typeof field52 === 'boolean')) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "damage")) {
    const field53 = value["damage"];
    if (field53 === undefined || !((field53 !== undefined && (field53 === null || object54(field53))))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "missing")) {
    const field57 = value["missing"];
    if (field57 === undefined || !((field57 !== undefined && array58(field57)))) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function array3(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  if (Object.keys(value).length !== value.length) return false;
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined || !(object4(item))) return false;
  }
  return true;
}
function array64(value) {
  if (!Array.isArray(value) || Object.getPrototypeOf(value) !== Array.prototype) return false;
  if (Object.keys(value).length !== value.length) return false;
  for (let index = 0; index < value.length; index += 1) {
    const item = value[index];
    if (item === undefined || !(typeof item === 'string')) return false;
  }
  return true;
}
function object60(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "modifiedMs")) {
    const field61 = value["modifiedMs"];
    if (field61 === undefined || !(typeof field61 === 'number' && Number.isFinite(field61))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "changedMs")) {
    const field62 = value["changedMs"];
    if (field62 === undefined || !(typeof field62 === 'number' && Number.isFinite(field62))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "writing")) {
    const field63 = value["writing"];
    if (field63 === undefined || !(array64(field63))) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
function object0(value) {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let present = 0;
  if (Object.hasOwn(value, "v")) {
    const field1 = value["v"];
    if (field1 === undefined || !((field1 === 1))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "entries")) {
    const field2 = value["entries"];
    if (field2 === undefined || !(array3(field2))) return false;
    present += 1;
  } else return false;
  if (Object.hasOwn(value, "stamp")) {
    const field59 = value["stamp"];
    if (field59 === undefined || !((field59 !== undefined && (field59 === null || object60(field59))))) return false;
    present += 1;
  } else return false;
  return Object.keys(value).length === present;
}
export function isExactIndexFile(value) {
  return object0(value);
}
