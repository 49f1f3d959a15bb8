/** @jsxImportSource hono/jsx */
/**
 * The index (`/`): every prompt the viewer may see with its slash command and a week of use, the
 * search and filter form (works as a plain GET form; the script filters as you type), the
 * connect instructions with this gateway's real URL, and the health of the catalog and upstreams
 * (health-table.tsx).
 */
import {
  claudeCodeCommand,
  claudeDesktopConfig,
  cursorLink,
  inspectorCommand,
  SERVER_NAME,
  vscodeLink,
} from './connect.js';
import { matches } from './filter.js';
import { Health } from './health-table.js';
import { Layout } from './layout.js';
import { Spark } from './spark.js';
import type { IndexData, PromptCard } from './types.js';

// The tags as JSON: a tag may be any string (spaces too), which no separator could split back exactly.
function Card({ p, hidden }: { p: PromptCard; hidden: boolean }) {
  return (
    <li class="prompt" data-name={p.name} data-source={p.source} data-tags={JSON.stringify(p.tags)} hidden={hidden}>
      <h2 class="title">
        <a href={`/p/${encodeURIComponent(p.name)}`}>{p.title ?? p.name}</a>
      </h2>
      <code class="slash">/{p.name}</code>
      {p.description ? <p class="desc">{p.description}</p> : null}
      <div class="meta">
        {p.tags.length ? (
          <ul class="tags" aria-label="Tags">
            {p.tags.map((t) => (
              <li>{t}</li>
            ))}
          </ul>
        ) : null}
        <span class="source">{p.source === 'local' ? 'local' : `upstream: ${p.source}`}</span>
        <Spark use={p.use} />
      </div>
    </li>
  );
}

/**
 * A filter's select: every value, with "all" first (an empty value filters nothing). A value asked
 * for that no prompt has (an old link, a tag since removed) is offered too, selected: the page
 * shows the filter it applied, and the script, which reads the select, keeps applying it.
 */
function Choice(p: { id: string; label: string; all: string; values: string[]; selected: string | undefined }) {
  const values = p.selected && !p.values.includes(p.selected) ? [...p.values, p.selected] : p.values;
  return (
    <div>
      <label for={p.id}>{p.label}</label>
      <select id={p.id} name={p.id}>
        <option value="">{p.all}</option>
        {values.map((v) => (
          <option value={v} selected={v === p.selected}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
}

function Filters({ d }: { d: IndexData }) {
  const tags = [...new Set(d.prompts.flatMap((p) => p.tags))].sort();
  const sources = [...new Set(d.prompts.map((p) => p.source))].sort((a, b) =>
    a === 'local' ? -1 : b === 'local' ? 1 : a < b ? -1 : 1,
  );
  const f = d.filters;
  return (
    <form id="filters" method="get" action="/" role="search" class="filters">
      <div>
        <label for="search">Search</label>
        <input type="search" id="search" name="q" value={f.q} placeholder="name, title, description, tag" />
      </div>
      <Choice id="tag" label="Tag" all="All tags" values={tags} selected={f.tag} />
      <Choice id="source" label="Source" all="All sources" values={sources} selected={f.source} />
      <button type="submit">Filter</button>
    </form>
  );
}

function Connect({ url }: { url: string }) {
  return (
    <section id="connect" aria-labelledby="connect-h">
      <h2 id="connect-h">Connect</h2>
      <p>
        MCP endpoint: <code>{url}</code>
      </p>
      <ul class="install">
        <li>
          <a id="install-vscode" class="button" href={vscodeLink(url)}>
            Install in VS Code
          </a>
        </li>
        <li>
          <a id="install-cursor" class="button" href={cursorLink(url)}>
            Install in Cursor
          </a>
        </li>
      </ul>
      <h3>Claude Code</h3>
      <pre>
        <code id="cmd-claude-code">{claudeCodeCommand(url)}</code>
      </pre>
      <h3>Claude Desktop</h3>
      <p>
        Add a custom connector with the URL above (Settings, Connectors), or bridge it in{' '}
        <code>claude_desktop_config.json</code>:
      </p>
      <pre id="config-claude-desktop">{claudeDesktopConfig(url)}</pre>
      <h3>MCP Inspector</h3>
      <pre>
        <code id="cmd-inspector">{inspectorCommand(url)}</code>
      </pre>
      <p class="hint">The server is named {SERVER_NAME} in each.</p>
    </section>
  );
}

export function IndexPage({ d }: { d: IndexData }) {
  const shown = d.prompts.filter((p) => matches(p, d.filters));
  const visible = new Set(shown);
  return (
    <Layout title="Prompt catalog · promptgate" generation={d.generation} needsKey={d.needsKey}>
      <h1>Prompt catalog</h1>
      <Filters d={d} />
      <p id="count" aria-live="polite">
        {shown.length === d.prompts.length
          ? `${d.prompts.length} prompt${d.prompts.length === 1 ? '' : 's'}`
          : `${shown.length} of ${d.prompts.length} prompts`}
      </p>
      <ul id="prompts">
        {d.prompts.map((p) => (
          <Card p={p} hidden={!visible.has(p)} />
        ))}
      </ul>
      <div class="side">
        <Connect url={d.mcpUrl} />
        <Health d={d} />
      </div>
    </Layout>
  );
}
