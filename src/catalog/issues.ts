/**
 * Lists of problems as the admin API answers them: a body of a million bad elements must not make
 * a list of megabytes (past the 32 MiB of an RPC from the writer, or in an answer), so a list holds
 * the first MAX_ISSUES and one last issue counting the rest (the Checker in content-checks.ts makes
 * such lists; capIssues cuts any other). And the one safe way to quote a body's value in a message.
 */
import type { Issue } from './types.js';

/**
 * Issues listed for one check: a body of a million bad elements must not make a list of megabytes
 * (past the 32 MiB of an RPC from the writer, or in an answer). The rest are counted, in one last issue.
 */
export const MAX_ISSUES = 100;
export const more = (n: number): Issue => ({ path: '', message: `… and ${n} more problems` });
const MORE = /^… and (\d+) more problems$/;

/** How many problems `issues` reports: those it lists, plus those a capped list counts without listing. */
export function problemCount(issues: readonly Issue[]): number {
  let n = 0;
  for (const i of issues) n += i.path === '' ? Number(MORE.exec(i.message)?.[1] ?? 1) : 1;
  return n;
}

/** `issues` as an answer lists them: the first MAX_ISSUES, then how many more (a capped list is kept as it is). */
export function capIssues(issues: Issue[]): Issue[] {
  if (issues.length <= MAX_ISSUES + 1) return issues;
  const listed = issues.slice(0, MAX_ISSUES);
  return [...listed, more(problemCount(issues) - problemCount(listed))];
}

/**
 * A JSON value quoted in a message: as JSON, clipped. Never by its own toString, which a body
 * can make throw (`{"toString": 0}`).
 */
export function quote(v: unknown): string {
  const json = JSON.stringify(v) ?? String(v);
  return json.length > 60 ? `${json.slice(0, 60)}…` : json;
}
