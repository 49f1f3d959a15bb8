/**
 * The benchmark catalog: 20 realistic prompt records, shared by every target
 * (gateway, ceiling, SDK peer) so that all of them serve the same data.
 *
 * Deterministic: no randomness, no clock. Each record has 1–3 arguments and
 * one or two text messages with `{{argument}}` placeholders, in the gateway's
 * stored shape (src/catalog/types.ts). Sorted by name, the order the gateway
 * lists them in.
 */

/** [name, title, description, [[arg, description, required, values?]...], [user template, assistant template?], tags] */
const SPECS = [
  [
    'api_design_review',
    'API design review',
    'Review an HTTP API design for consistency, naming and error handling.',
    [
      ['spec', 'The OpenAPI document or endpoint list to review', true],
      ['style', 'House style guide to apply', false, ['google', 'zalando', 'microsoft']],
    ],
    [
      'Review this API design against the {{style}} API guidelines. Point out inconsistent naming, missing error responses and breaking-change risks.\n\n{{spec}}',
    ],
    ['api', 'review'],
  ],
  [
    'bug_report',
    'Bug report',
    'Turn a rough description of a problem into a structured bug report.',
    [
      ['symptom', 'What went wrong, in your own words', true],
      ['component', 'Affected component or service', false],
      ['severity', 'How bad it is', false, ['low', 'medium', 'high', 'critical']],
    ],
    [
      'Write a bug report for the {{component}} component (severity: {{severity}}). Include steps to reproduce, expected and actual behaviour, and environment details.\n\nWhat happened: {{symptom}}',
    ],
    ['engineering'],
  ],
  [
    'changelog_entry',
    'Changelog entry',
    'Draft a user-facing changelog entry from a list of merged changes.',
    [
      ['changes', 'Merged pull request titles, one per line', true],
      ['version', 'Version being released', true],
    ],
    [
      'Draft the changelog section for version {{version}}. Group the changes under Added, Changed, Fixed and Removed, and write for users, not developers.\n\n{{changes}}',
    ],
    ['release', 'writing'],
  ],
  [
    'code_review',
    'Code review',
    'Review a diff for correctness, readability and security issues.',
    [
      ['diff', 'The unified diff to review', true],
      ['language', 'Programming language of the change', false, ['typescript', 'python', 'go', 'rust', 'java']],
      ['focus', 'What to pay most attention to', false, ['security', 'performance', 'readability']],
    ],
    [
      'You are a careful senior reviewer. Review the following {{language}} change with a focus on {{focus}}. List blocking issues first, then suggestions, each with the line it refers to.\n\n```diff\n{{diff}}\n```',
    ],
    ['engineering', 'review'],
  ],
  [
    'commit_message',
    'Commit message',
    'Write a Conventional Commits message for a staged diff.',
    [['diff', 'The staged diff', true]],
    [
      'Write a commit message in the Conventional Commits format. Keep the subject under 72 characters and explain the why in the body.\n\n{{diff}}',
    ],
    ['git'],
  ],
  [
    'customer_reply',
    'Customer support reply',
    'Draft a reply to a customer support ticket in the company voice.',
    [
      ['ticket', 'The customer message', true],
      ['tone', 'Tone of the reply', false, ['friendly', 'formal', 'apologetic']],
    ],
    [
      'Draft a {{tone}} reply to this support ticket. Acknowledge the problem, give concrete next steps and do not promise dates.\n\n{{ticket}}',
      'Thanks for reaching out, and sorry for the trouble. Here is what we will do next:',
    ],
    ['support', 'writing'],
  ],
  [
    'data_query',
    'SQL from a question',
    'Translate a question about the data into a SQL query.',
    [
      ['question', 'The question in plain language', true],
      ['schema', 'CREATE TABLE statements of the relevant tables', true],
      ['dialect', 'SQL dialect', false, ['postgres', 'mysql', 'sqlite', 'bigquery']],
    ],
    [
      'Given this schema:\n\n{{schema}}\n\nwrite one {{dialect}} query that answers: {{question}}\nExplain any assumption you make about the data.',
    ],
    ['data', 'sql'],
  ],
  [
    'debug_session',
    'Debugging session',
    'Work through an error message and stack trace to a likely root cause.',
    [['error', 'The error message and stack trace', true]],
    [
      'Help me debug this error.\n\n{{error}}\n\nList the most likely causes in order, and for each one a quick way to confirm or rule it out.',
    ],
    ['engineering', 'debugging'],
  ],
  [
    'explain_code',
    'Explain code',
    'Explain what a piece of code does, at a chosen level of detail.',
    [
      ['code', 'The code to explain', true],
      ['audience', 'Who the explanation is for', false, ['beginner', 'intermediate', 'expert']],
    ],
    ['Explain the following code to a {{audience}} reader: what it does, how, and anything surprising.\n\n{{code}}'],
    ['learning'],
  ],
  [
    'incident_postmortem',
    'Incident postmortem',
    'Write a blameless postmortem from an incident timeline.',
    [
      ['timeline', 'Timestamped timeline of the incident', true],
      ['impact', 'Customer-facing impact', true],
      ['service', 'Service that failed', false],
    ],
    [
      'Write a blameless postmortem for the {{service}} incident. Sections: summary, impact, timeline, root cause, what went well, what went badly, action items with owners.\n\nImpact: {{impact}}\n\nTimeline:\n{{timeline}}',
    ],
    ['operations', 'writing'],
  ],
  [
    'interview_questions',
    'Interview questions',
    'Prepare structured interview questions for a role.',
    [['role', 'The role and seniority being hired for, e.g. "senior backend engineer"', true]],
    [
      'Prepare eight interview questions for a {{role}}. For each, say what a strong answer contains and one follow-up question.',
    ],
    ['hiring'],
  ],
  [
    'meeting_summary',
    'Meeting summary',
    'Summarise a meeting transcript into decisions and action items.',
    [
      ['transcript', 'The meeting transcript or notes', true],
      ['audience', 'Who will read the summary', false],
    ],
    [
      'Summarise this meeting for {{audience}}. Start with decisions, then action items as "owner: task (due date)", then open questions.\n\n{{transcript}}',
    ],
    ['writing', 'meetings'],
  ],
  [
    'migration_plan',
    'Migration plan',
    'Plan a staged migration between two systems with rollback points.',
    [
      ['from', 'The current system', true],
      ['to', 'The target system', true],
      ['constraints', 'Downtime, budget or compliance constraints', false],
    ],
    [
      'Plan a migration from {{from}} to {{to}}. Constraints: {{constraints}}. Give stages, the check that gates each stage, and how to roll back from each one.',
    ],
    ['architecture', 'operations'],
  ],
  [
    'pr_description',
    'Pull request description',
    'Write a pull request description a reviewer can act on.',
    [
      ['diff', 'The diff or list of commits', true],
      ['ticket', 'Issue or ticket reference', false],
    ],
    [
      'Write a pull request description for the change below (refs {{ticket}}): motivation, what changed, how it was tested, and what reviewers should look at first.\n\n{{diff}}',
    ],
    ['git', 'review'],
  ],
  [
    'refactor_plan',
    'Refactoring plan',
    'Propose a safe, incremental refactoring of a module.',
    [
      ['code', 'The module to refactor', true],
      ['goal', 'What the refactoring should achieve', true],
    ],
    [
      'Propose an incremental refactoring of this code so that {{goal}}. Every step must keep the tests green; say which tests to add first.\n\n{{code}}',
    ],
    ['engineering'],
  ],
  [
    'release_notes',
    'Release notes',
    'Turn a changelog into release notes for customers.',
    [
      ['changelog', 'The changelog section', true],
      ['product', 'Product name', true],
      ['audience', 'Who the notes are for', false, ['customers', 'admins', 'developers']],
    ],
    [
      'Turn this changelog into release notes for {{product}} aimed at {{audience}}. Lead with the most valuable change and keep each item to one sentence.\n\n{{changelog}}',
    ],
    ['release', 'writing'],
  ],
  [
    'security_review',
    'Security review',
    'Threat-model a feature and list concrete mitigations.',
    [
      ['feature', 'Description of the feature or design', true],
      ['assets', 'Data or systems worth protecting', false],
    ],
    [
      'Threat-model this feature using STRIDE. Assets at risk: {{assets}}. For each threat give likelihood, impact and a concrete mitigation.\n\n{{feature}}',
      'I will go through spoofing, tampering, repudiation, information disclosure, denial of service and elevation of privilege in turn.',
    ],
    ['security', 'review'],
  ],
  [
    'summarize',
    'Summarize',
    'Summarise a document at a chosen length.',
    [
      ['text', 'The text to summarise', true],
      ['length', 'How long the summary should be', false, ['one sentence', 'one paragraph', 'one page']],
    ],
    ['Summarise the following in {{length}}, keeping names, numbers and decisions exact.\n\n{{text}}'],
    ['writing'],
  ],
  [
    'test_cases',
    'Test cases',
    'Generate unit test cases for a function, including edge cases.',
    [
      ['code', 'The function under test', true],
      ['framework', 'Test framework', false, ['vitest', 'jest', 'pytest', 'go test']],
      ['coverage', 'Which kinds of case to emphasise', false, ['edge cases', 'happy path', 'error handling']],
    ],
    [
      'Write {{framework}} tests for the function below, emphasising {{coverage}}. Name each test after the behaviour it checks.\n\n{{code}}',
    ],
    ['engineering', 'testing'],
  ],
  [
    'translate',
    'Translate',
    'Translate text while keeping formatting, placeholders and terminology.',
    [
      ['text', 'The text to translate', true],
      ['target', 'Target language', true, ['German', 'French', 'Spanish', 'Japanese', 'Portuguese']],
    ],
    [
      'Translate the following into {{target}}. Keep Markdown formatting, code spans and product names unchanged.\n\n{{text}}',
    ],
    ['localisation'],
  ],
];

/** The 20 prompt records, in the gateway's stored shape, sorted by name. */
export const PROMPTS = SPECS.map(([name, title, description, args, texts, tags]) => ({
  name,
  title,
  description,
  arguments: args.map(([argName, argDescription, required, values]) => ({
    name: argName,
    title: argName[0].toUpperCase() + argName.slice(1),
    description: argDescription,
    required,
    ...(values ? { values } : {}),
  })),
  tags,
  messages: texts.map((text, i) => ({ role: i === 0 ? 'user' : 'assistant', content: { type: 'text', text } })),
})).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

if (PROMPTS.length !== 20) throw new Error(`expected 20 prompts, got ${PROMPTS.length}`);

/** The catalog snapshot seeded into KV (generation 1). */
export function snapshot() {
  return { generation: 1, updatedAt: '2026-01-01T00:00:00.000Z', prompts: PROMPTS };
}

/** `{{arg}}` substitution with the gateway's rules (missing optional arguments become ''). */
export function render(template, args) {
  return template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, name) => args?.[name] ?? '');
}

/**
 * The prompts/list result for protocol 2025-11-25 (titles on, no icons here),
 * field for field what the gateway's `describePrompt` produces. Used as the
 * ceiling's fixed body and to check the gateway's answer.
 */
export function listResult() {
  return {
    prompts: PROMPTS.map((p) => ({
      name: p.name,
      title: p.title,
      description: p.description,
      arguments: p.arguments.map((a) => ({
        name: a.name,
        title: a.title,
        description: a.description,
        required: a.required,
      })),
    })),
  };
}

/** The prompt every prompts/get scenario fetches, and the arguments it passes (all of them). */
export const GET_PROMPT = 'code_review';
export const GET_ARGS = {
  diff: '--- a/src/sum.ts\n+++ b/src/sum.ts\n@@ -1,3 +1,3 @@\n export function sum(xs: number[]) {\n-  return xs.reduce((a, b) => a + b);\n+  return xs.reduce((a, b) => a + b, 0);\n }',
  language: 'typescript',
  focus: 'readability',
};

/** The expected prompts/get result for GET_PROMPT with GET_ARGS. */
export function getResult() {
  const p = PROMPTS.find((x) => x.name === GET_PROMPT);
  return {
    description: p.description,
    messages: p.messages.map((m) => ({
      role: m.role,
      content: { type: 'text', text: render(m.content.text, GET_ARGS) },
    })),
  };
}
