/**
 * Publishing a prompt directory to a running gateway through its admin API
 * (Node side). The same path serves `npm start`, tests and deployments.
 */
import type { PromptRecord } from '../catalog/types.js';
import { loadPromptDir } from './fs-source.js';

export class PushError extends Error {}

export interface PushResult {
  generation: number;
  prompts: number;
}

export async function pushRecords(baseUrl: string, token: string, prompts: PromptRecord[]): Promise<PushResult> {
  const res = await fetch(new URL('/admin/publish?prune=1', baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompts }),
  });
  const body = (await res.json().catch(() => null)) as { error?: { message: string; issues?: { path: string; message: string }[] } } | null;
  if (!res.ok) {
    const issues = body?.error?.issues?.map((i) => `\n  ${i.path}: ${i.message}`).join('') ?? '';
    throw new PushError(`publish failed (HTTP ${res.status}): ${body?.error?.message ?? res.statusText}${issues}`);
  }
  const r = body as unknown as { generation: number; diff: { added: string[]; changed: string[]; unchanged: string[] } };
  return { generation: r.generation, prompts: r.diff.added.length + r.diff.changed.length + r.diff.unchanged.length };
}

/** Loads, validates locally (file-level errors name the file), then publishes. */
export async function pushDir(baseUrl: string, token: string, dir: string): Promise<PushResult> {
  const { records, issues } = loadPromptDir(dir);
  if (issues.length) throw new PushError(`${issues.length} invalid prompt file problem(s), nothing published:${issues.map((i) => `\n  ${dir}/${i.path}: ${i.message}`).join('')}`);
  return pushRecords(baseUrl, token, records);
}
