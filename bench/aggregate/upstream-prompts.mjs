/** The prompts upstream `u` (1-based) serves: shared by the upstream process and the harness's checks. */
import { UPSTREAM_PROMPTS } from './settings.mjs';

const TOPICS = [
  'lint',
  'triage',
  'deploy',
  'search',
  'docs',
  'billing',
  'oncall',
  'schema',
  'metrics',
  'access',
  'cache',
  'queue',
];

export function upstreamPrompts(u) {
  return Array.from({ length: UPSTREAM_PROMPTS }, (_, j) => ({
    name: `${TOPICS[j % TOPICS.length]}_${u}_${j}`,
    title: `Upstream ${u} ${TOPICS[j % TOPICS.length]} ${j}`,
    description: `Prompt ${j} served by upstream ${u}: helps with ${TOPICS[j % TOPICS.length]} work.`,
    arguments: [
      { name: 'subject', description: 'What the prompt is about', required: true },
      ...(j % 2 ? [{ name: 'detail', description: 'How much detail to give', required: false }] : []),
    ],
  }));
}
