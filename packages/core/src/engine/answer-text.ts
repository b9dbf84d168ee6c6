// A person's answer typed as text (`conclave answer`, the TUI's answer box, the question asked
// inline in a terminal), turned into the value the question's JSON Schema expects, and the
// expectation put into words for the prompt. Checking the value stays with `engine.respond`.
import type { JsonValue } from '../spec/index.js';

type SchemaObject = { [key: string]: JsonValue };

function schemaObject(schema: JsonValue | null): SchemaObject | null {
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schema : null;
}

/**
 * The value a typed answer stands for: the text itself for a text question (or one without a
 * schema), `yes`/`no` (also `y`/`n`, `true`/`false`) for a yes-or-no question, JSON otherwise
 * (a number, an object). Text that is not JSON stays text, so the schema check names the problem.
 */
export function answerFromText(schema: JsonValue | null, text: string): JsonValue {
  const object = schemaObject(schema);
  const type = object?.type;
  if (object === null || type === 'string') return text;
  if (type === undefined && object.enum === undefined && object.const === undefined && object.anyOf === undefined)
    return text;
  if (type === 'boolean' && /^(y|yes|true)$/i.test(text.trim())) return true;
  if (type === 'boolean' && /^(n|no|false)$/i.test(text.trim())) return false;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** What a question expects, for the prompt: a short hint and, for a closed question, the choices. */
export interface ExpectedAnswer {
  /** E.g. "yes or no", "a whole number", "JSON: {"approved": boolean, "note"?: string}"; null: free text. */
  hint: string | null;
  /** The answers that fit a question with a fixed set of them (`enum`, yes-or-no); null otherwise. */
  choices: string[] | null;
}

const HINT_LENGTH = 120;

export function expectedAnswer(schema: JsonValue | null): ExpectedAnswer {
  const object = schemaObject(schema);
  if (object === null) return { hint: null, choices: null };
  const choices = enumChoices(object);
  if (choices !== null) return { hint: `one of: ${choices.join(', ')}`, choices };
  switch (object.type) {
    case undefined:
    case 'string':
      return { hint: null, choices: null };
    case 'boolean':
      return { hint: 'yes or no', choices: ['yes', 'no'] };
    case 'integer':
      return { hint: `a whole number${rangeOf(object)}`, choices: null };
    case 'number':
      return { hint: `a number${rangeOf(object)}`, choices: null };
    default: {
      const shape = shapeOf(object);
      return {
        hint: `JSON: ${shape.length > HINT_LENGTH ? `${shape.slice(0, HINT_LENGTH - 1)}…` : shape}`,
        choices: null,
      };
    }
  }
}

function enumChoices(object: SchemaObject): string[] | null {
  const values = Array.isArray(object.enum)
    ? object.enum
    : 'const' in object
      ? [object.const as JsonValue]
      : Array.isArray(object.anyOf) && object.anyOf.every((part) => schemaObject(part)?.const !== undefined)
        ? object.anyOf.map((part) => schemaObject(part)?.const as JsonValue)
        : null;
  if (values === null || values.length === 0) return null;
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
}

function rangeOf(object: SchemaObject): string {
  // A whole number's schema carries the safe-integer bounds; they say nothing to a person.
  const bound = (value: JsonValue | undefined) =>
    typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : null;
  const low = bound(object.minimum);
  const high = bound(object.maximum);
  if (low !== null && high !== null) return ` from ${low} to ${high}`;
  if (low !== null) return ` of at least ${low}`;
  if (high !== null) return ` of at most ${high}`;
  return '';
}

/** A compact TypeScript-like shape of a JSON Schema: `{"approved": boolean, "note"?: string}`. */
function shapeOf(schema: JsonValue | undefined): string {
  const object = schemaObject(schema ?? null);
  if (object === null) return 'any';
  const choices = enumChoices(object);
  if (choices !== null) return choices.map((choice) => JSON.stringify(choice)).join(' | ');
  if (object.type === 'object') {
    const properties = schemaObject(object.properties ?? null) ?? {};
    const required = new Set(Array.isArray(object.required) ? object.required : []);
    const fields = Object.entries(properties).map(
      ([name, property]) => `${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${shapeOf(property)}`,
    );
    return `{${fields.join(', ')}}`;
  }
  if (object.type === 'array') return `${shapeOf(object.items)}[]`;
  if (Array.isArray(object.anyOf)) return object.anyOf.map((part) => shapeOf(part)).join(' | ');
  return typeof object.type === 'string' ? object.type : 'any';
}
