/**
 * Validation of prompt records, shared by the writer (admin API) and the CLI.
 *
 * Hand-written rather than the SDK's zod schemas: it must also check what the
 * spec types cannot (placeholders naming declared arguments, unique names,
 * size limits), report each problem with a field path (content-checks.ts caps the
 * list), and stay out of the Worker bundle budget (zod alone is larger than the
 * whole gateway).
 * Errors are found at publish time so that serving never meets a bad record.
 */
import { utf8Length } from './arguments.js';
import { placeholders, templatedFields } from './template.js';
import type { Issue } from './types.js';
import { isRecord } from '../lib/json.js';
import { groupProblems } from './groups.js';
import { checkContent, checkIcons, Checker } from './content-checks.js';
import { quote } from './issues.js';

export const NAME_PATTERN = /^(?!\.)[A-Za-z0-9_.-]{1,64}$/;

/**
 * A prompt as stored (one SQLite row of the writer's history, whose values are at most 2 MB): a
 * larger one is refused here, with its size, rather than failing in the write.
 */
export const MAX_PROMPT_BYTES = 1_900_000;
const MAX_VALUES = 1_000;
/**
 * The deepest a record may nest objects and lists (the record itself is level 1). The admin API
 * refuses a body nested deeper than 64 levels (src/lib/json.ts), and a record travels up to two
 * levels down in one (`{"prompts": [record]}`: a publish, a catalog, an upload's part); half that
 * bound leaves room for every such wrapper, so a record accepted here fits every admin request.
 */
export const MAX_RECORD_DEPTH = 32;
/**
 * An unpaired surrogate, as JSON.stringify writes one (`\udXXX`, its backslash not itself escaped):
 * no UTF-8 file can hold it, so `pull` would write U+FFFD and `push` would then change the prompt.
 */
const LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

/** The fields of a record, an argument and a message (types.ts); anything else is refused. */
const PROMPT_FIELDS = ['name', 'title', 'description', 'icons', 'tags', 'groups', 'tool', 'arguments', 'messages'];
const ARGUMENT_FIELDS = ['name', 'title', 'description', 'required', 'values'];
const MESSAGE_FIELDS = ['role', 'content'];

/**
 * The path of the first object or list in `value` deeper than `max` levels, or undefined.
 * Iterative: a body nested thousands deep must not overflow the stack checking it.
 */
export function pathDeeperThan(value: unknown, max: number): string | undefined {
  const stack: [unknown, string, number][] = [[value, '', 1]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return path;
    for (const [k, child] of Object.entries(v))
      stack.push([child, Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k, depth + 1]);
  }
  return undefined;
}

/** Validates one record; returns its issues (empty when valid). */
export function validatePrompt(input: unknown): Issue[] {
  const c = new Checker();
  checkPrompt(c, input);
  return c.issues;
}

/** One record's problems, into `c` (whose cap counts the whole set's). */
function checkPrompt(c: Checker, input: unknown): void {
  if (!isRecord(input)) return c.fail('', 'must be an object');
  const found = c.count;
  c.only(input, PROMPT_FIELDS, '', 'a prompt');
  c.str(input, 'name', '', { required: true, max: 64 });
  if (typeof input.name === 'string' && input.name && !NAME_PATTERN.test(input.name))
    c.fail('name', 'may only use A-Z a-z 0-9 _ . - (at most 64 characters), and may not start with a dot');
  c.str(input, 'title', '', { max: 200 });
  c.str(input, 'description', '', { max: 4000 });
  checkIcons(c, input.icons, 'icons');
  if (input.tags !== undefined && !(Array.isArray(input.tags) && input.tags.every((t) => typeof t === 'string')))
    c.fail('tags', 'must be a list of strings');
  for (const [path, message] of groupProblems(input.groups, 'groups')) c.fail(path, message);
  if (input.tool !== undefined && typeof input.tool !== 'boolean')
    c.fail('tool', 'must be true or false (false: not mirrored as a tool)');

  const declared = new Set<string>();
  if (input.arguments !== undefined && !Array.isArray(input.arguments)) c.fail('arguments', 'must be a list');
  (Array.isArray(input.arguments) ? input.arguments : []).forEach((arg: unknown, i) => {
    const p = `arguments[${i}]`;
    if (!isRecord(arg)) return c.fail(p, 'must be an object');
    c.only(arg, ARGUMENT_FIELDS, `${p}.`, 'an argument');
    c.str(arg, 'name', `${p}.`, { required: true, max: 64 });
    if (typeof arg.name === 'string') {
      if (arg.name && !NAME_PATTERN.test(arg.name))
        c.fail(`${p}.name`, 'may only use A-Z a-z 0-9 _ . -, and may not start with a dot');
      if (declared.has(arg.name)) c.fail(`${p}.name`, `duplicate argument ${quote(arg.name)}`);
      declared.add(arg.name);
    }
    c.str(arg, 'title', `${p}.`, { max: 200 });
    c.str(arg, 'description', `${p}.`, { max: 4000 });
    if (arg.required !== undefined && typeof arg.required !== 'boolean')
      c.fail(`${p}.required`, 'must be true or false');
    const vals = arg.values;
    if (
      vals !== undefined &&
      !(Array.isArray(vals) && vals.length <= MAX_VALUES && vals.every((v) => typeof v === 'string'))
    )
      c.fail(`${p}.values`, `must be a list of at most ${MAX_VALUES} strings`);
  });

  if (!Array.isArray(input.messages) || input.messages.length === 0) c.fail('messages', 'must be a non-empty list');
  (Array.isArray(input.messages) ? input.messages : []).forEach((m: unknown, i) => {
    const p = `messages[${i}]`;
    if (!isRecord(m)) return c.fail(p, 'must be an object');
    c.only(m, MESSAGE_FIELDS, `${p}.`, 'a message');
    if (m.role !== 'user' && m.role !== 'assistant') c.fail(`${p}.role`, 'must be user or assistant');
    checkContent(c, m.content, `${p}.content`);
    if (!isRecord(m.content)) return;
    for (const { obj, key } of templatedFields(m.content)) {
      for (const name of placeholders(obj[key] as string)) {
        if (!declared.has(name)) c.fail(`${p}.content`, `placeholder {{${name}}} names no declared argument`);
      }
    }
  });
  const deep = pathDeeperThan(input, MAX_RECORD_DEPTH);
  if (deep !== undefined)
    c.fail(
      deep,
      `nests deeper than ${MAX_RECORD_DEPTH} levels, the most a prompt may (so it fits every admin request)`,
    );
  if (c.count === found) {
    const json = JSON.stringify(input);
    const bytes = utf8Length(json);
    if (bytes > MAX_PROMPT_BYTES)
      c.fail('', `is ${bytes} bytes as JSON; a prompt is at most ${MAX_PROMPT_BYTES} bytes`);
    if (LONE_SURROGATE.test(json))
      c.fail('', 'holds text that is not valid Unicode (an unpaired surrogate, such as "\\ud800")');
  }
}

/** Validates a whole set: every record, plus unique names. Issue paths are prefixed with the prompt's position. */
export function validateSet(
  inputs: readonly unknown[],
  label: (i: number) => string = (i) => `prompts[${i}]`,
): Issue[] {
  const c = new Checker();
  const seen = new Map<string, number>();
  inputs.forEach((input, i) => {
    c.at = `${label(i)}: `;
    checkPrompt(c, input);
    const name = isRecord(input) && typeof input.name === 'string' ? input.name : undefined;
    if (name === undefined) return;
    const first = seen.get(name);
    if (first !== undefined) c.fail('name', `duplicate prompt name ${quote(name)} (also ${label(first)})`);
    else seen.set(name, i);
  });
  return c.issues;
}
