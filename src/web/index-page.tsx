/** @jsxImportSource hono/jsx */
/**
 * The index (`/`): every prompt the viewer may see with its slash command and a week of use, the
 * search and filter form (works as a plain GET form; the script filters as you type), the
 * connect instructions with this gateway's real URL, and the health of the catalog and upstreams
 * (its rows are spliced in per request at HEALTH_SLOT: health is not part of the cached page).
 */
import { raw } from 'hono/html';
import {
  claudeCodeCommand,
  claudeDesktopConfig,
  cursorLink,
  inspectorCommand,
  SERVER_NAME,
  vscodeLink,
} from './connect.js';
import { matches } from './filter.js';
import { Layout, When } from './layout.js';
import { Spark } from './spark.js';
import type { HealthRow, IndexData, PromptCard } from './types.js';

export const HEALTH_SLOT = '<!--pg:health-->';

function Card({ p, hidden }: { p: PromptCard; hidden: boolean }) {
  return (
    <li class="prompt" data-name={p.name} data-source={p.source} data-tags={p.tags.join(' ')} hidden={hidden}>
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

/** A filter's select: every value, with "all" first (an empty value filters nothing). */
function Choice(p: { id: string; label: string; all: string; values: string[]; selected: string | undefined }) {
  return (
    <div>
      <label for={p.id}>{p.label}</label>
      <select id={p.id} name={p.id}>
        <option value="">{p.all}</option>
        {p.values.map((v) => (
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

/** The upstream rows of the health table, rendered per request; 'unknown' and 'restricted' as /status says them. */
export function HealthRows({ rows }: { rows: HealthRow[] | 'unknown' | 'restricted' }) {
  if (rows === 'restricted')
    return (
      <tr data-state="restricted">
        <td colspan={4}>Sign in to see the upstream servers' health.</td>
      </tr>
    );
  if (rows === 'unknown')
    return (
      <tr data-state="unknown">
        <td colspan={4}>Upstream health is unknown: the catalog writer did not answer. Try again shortly.</td>
      </tr>
    );
  if (!rows.length)
    return (
      <tr>
        <td colspan={4}>No upstream servers are configured.</td>
      </tr>
    );
  return (
    <>
      {rows.map((u) => (
        <tr data-upstream={u.id} data-state={u.state}>
          <th scope="row">{u.id}</th>
          <td>
            <span class={`state state-${u.state}`}>{u.state.replace('_', ' ')}</span>
            {u.fault ? ` (${u.fault})` : ''}
          </td>
          <td>{u.prompts}</td>
          <td>{u.lastSuccess ? <When iso={u.lastSuccess} /> : 'never'}</td>
        </tr>
      ))}
    </>
  );
}

function Health({ d }: { d: IndexData }) {
  return (
    <section id="health" data-generation={d.generation} aria-labelledby="health-h">
      <h2 id="health-h">Health</h2>
      <p>
        Catalog generation <code>{d.generation}</code>, published <When iso={d.updatedAt} id="published" />.
      </p>
      <table>
        <caption>Upstream servers</caption>
        <thead>
          <tr>
            <th scope="col">Upstream</th>
            <th scope="col">State</th>
            <th scope="col">Prompts</th>
            <th scope="col">Last listed</th>
          </tr>
        </thead>
        <tbody>{raw(HEALTH_SLOT)}</tbody>
      </table>
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
