/**
 * `npm run check:bench`: the bench's part of the repository check. Every bench module must
 * parse, keep the shape the bench was split into (a harness entry point <= 250 lines, no
 * function over 80 lines), and every harness must load: its imports resolve (src/ modules
 * included) and its knobs parse (BENCH_LOAD_CHECK=1 makes it exit before running anything).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { BENCH_DIR, ROOT } from './lib/paths.mjs';

const HARNESSES = [
  { file: 'run.mjs', tsx: true },
  { file: 'fanout.mjs', tsx: false },
  { file: 'aggregate.mjs', tsx: false },
  { file: 'instructions.mjs', tsx: true },
  { file: 'auth.mjs', tsx: true },
  { file: 'usage.mjs', tsx: true },
  { file: 'observe.mjs', tsx: true },
  { file: 'tools.mjs', tsx: true },
  { file: 'model.mjs', tsx: false },
  { file: 'profile.mjs', tsx: true },
  { file: 'memory.mjs', tsx: true },
];
const MAX_HARNESS_LINES = 250;
const MAX_FUNCTION_LINES = 80;

const modules = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === 'out'
        ? []
        : modules(join(dir, e.name))
      : e.name.endsWith('.mjs')
        ? [join(dir, e.name)]
        : [],
  );

/** Syntax errors and functions over the limit, as messages. */
function shapeProblems(path) {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const problems = sf.parseDiagnostics.map(
    (d) => `${ts.flattenDiagnosticMessageText(d.messageText, '\n')} (at ${d.start})`,
  );
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const lines = line(node.end) - line(node.getStart(sf)) + 1;
      if (lines > MAX_FUNCTION_LINES)
        problems.push(`function at line ${line(node.getStart(sf))} has ${lines} lines (max ${MAX_FUNCTION_LINES})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (HARNESSES.some((x) => join(BENCH_DIR, x.file) === path)) {
    const n = text.split('\n').length - 1;
    if (n > MAX_HARNESS_LINES) problems.push(`${n} lines (a harness has at most ${MAX_HARNESS_LINES})`);
  }
  return problems;
}

let failed = 0;
for (const path of modules(BENCH_DIR)) {
  for (const p of shapeProblems(path)) {
    console.error(`${relative(ROOT, path)}: ${p}`);
    failed++;
  }
}
// In parallel: each is a Node start-up (with tsx for the ones that import src/).
const loads = await Promise.all(
  HARNESSES.map(
    ({ file, tsx }) =>
      new Promise((resolveLoad) => {
        const args = [...(tsx ? ['--import', 'tsx'] : []), join(BENCH_DIR, file)];
        const child = spawn(process.execPath, args, {
          cwd: ROOT,
          env: { ...process.env, BENCH_LOAD_CHECK: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolveLoad({ file, code, stderr });
        });
      }),
  ),
);
for (const { file, code, stderr } of loads) {
  if (code !== 0) {
    console.error(`bench/${file} does not load (exit ${code}):\n${stderr}`);
    failed++;
  }
}
if (failed) process.exit(1);
console.log(
  `bench: ${modules(BENCH_DIR).length} modules parse and keep their shape; ${HARNESSES.length} harnesses load`,
);
