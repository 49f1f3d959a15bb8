/** @jsxImportSource hono/jsx */
/**
 * A prompt's page (`/p/<name>`): what it is, its arguments (required, description, allowed values
 * from completion/complete), a form with one field per argument (named `arg:<name>`, web/arg-query.ts)
 * that renders the preview through prompts/get (on the server when submitted, live with the script),
 * its newest versions for admins, and when it last changed.
 */
import { argField } from './arg-query.js';
import { ColumnHeads, Layout, When } from './layout.js';
import { Messages } from './preview.js';
import type { ArgumentRow, HistoryData, PromptPageData } from './types.js';

function ArgumentsTable({ args }: { args: ArgumentRow[] }) {
  return (
    <table id="arguments">
      <caption>Arguments</caption>
      <ColumnHeads names={['Name', 'Required', 'Description', 'Allowed values']} />
      <tbody>
        {args.length ? (
          args.map((a) => (
            <tr data-argument={a.name}>
              <th scope="row">
                <code>{a.name}</code>
                {a.title ? <span class="sub">{a.title}</span> : null}
              </th>
              <td>{a.required ? 'yes' : 'no'}</td>
              <td>{a.description ?? ''}</td>
              <td>{a.values.length ? a.values.join(', ') : 'any'}</td>
            </tr>
          ))
        ) : (
          <tr>
            <td colspan={4}>This prompt takes no arguments.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

/**
 * An argument's element ids: its name as a URI component, so an upstream's argument named with a
 * space (`my arg`) still makes a valid id (HTML allows none with whitespace) for its label and
 * datalist, two names never make one id, and a plain name is itself.
 */
const idOf = (name: string) => encodeURIComponent(name);

function ArgsForm({ d }: { d: PromptPageData }) {
  return (
    <form id="args" method="get" action={`/p/${encodeURIComponent(d.card.name)}`} class="args">
      <input type="hidden" name="render" value="1" />
      {d.arguments.map((a) => (
        <div class="field">
          <label for={`arg-${idOf(a.name)}`}>
            {a.title ?? a.name}
            {a.required ? ' (required)' : ''}
          </label>
          <input
            id={`arg-${idOf(a.name)}`}
            name={argField(a.name)}
            data-argument={a.name}
            list={`values-${idOf(a.name)}`}
            value={Object.hasOwn(d.given, a.name) ? d.given[a.name] : ''}
            required={a.required}
            autocomplete="off"
          />
          <datalist id={`values-${idOf(a.name)}`}>
            {a.values.map((v) => (
              <option value={v} />
            ))}
          </datalist>
        </div>
      ))}
      <button type="submit" id="render">
        Render preview
      </button>
    </form>
  );
}

/** Where the versions the page leaves out are: the admin API's paged history, from just before the oldest shown. */
function Older({ h }: { h: HistoryData }) {
  if (!h.older || !h.rows.length) return null;
  const name = h.recordName;
  const url = `/admin/prompts/${encodeURIComponent(name)}/history?before=${h.rows[0]!.version}`;
  return (
    <p id="history-older">
      {h.older} older {h.older === 1 ? 'version is' : 'versions are'} not shown: <code>GET {url}</code> (or{' '}
      <code>promptgate history {name}</code>) pages through them.
    </p>
  );
}

function History({ d }: { d: PromptPageData }) {
  const h = d.history;
  if (!h) return null;
  return (
    <section id="history" aria-labelledby="history-h">
      <h2 id="history-h">Version history</h2>
      {h === 'unknown' ? (
        <p id="history-unknown">The version history could not be read just now: reload the page to try again.</p>
      ) : (
        <>
          <table>
            <ColumnHeads names={['Version', 'Written', 'By', 'Change']} />
            <tbody>
              {[...h.rows].reverse().map((v) => (
                <tr>
                  <td>{v.version}</td>
                  <td>
                    <When iso={v.createdAt} />
                  </td>
                  <td>{v.by ?? 'unknown'}</td>
                  <td>{v.deleted ? 'removed' : 'published'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Older h={h} />
        </>
      )}
    </section>
  );
}

export function PromptPage({ d }: { d: PromptPageData }) {
  const p = d.card;
  return (
    <Layout title={`${p.title ?? p.name} · promptgate`} generation={d.generation} needsKey={d.needsKey}>
      <nav aria-label="Breadcrumb">
        <a href="/">All prompts</a>
      </nav>
      <h1>{p.title ?? p.name}</h1>
      <p>
        <code class="slash">/{p.name}</code>
      </p>
      {p.description ? <p class="desc">{p.description}</p> : null}
      <dl class="facts">
        <dt>Source</dt>
        <dd>{p.source === 'local' ? 'local' : `upstream: ${p.source}`}</dd>
        {p.tags.length ? (
          <>
            <dt>Tags</dt>
            <dd>{p.tags.join(', ')}</dd>
          </>
        ) : null}
        <dt>{p.source === 'local' ? 'Last changed' : 'Last listed'}</dt>
        <dd>{d.changed ? <When iso={d.changed} id="changed" /> : 'unknown'}</dd>
      </dl>
      <ArgumentsTable args={d.arguments} />
      <ArgsForm d={d} />
      <section id="preview" aria-labelledby="preview-h" data-name={p.name}>
        <div class="bar">
          <h2 id="preview-h">Preview</h2>
          <button id="copy" type="button">
            Copy
          </button>
        </div>
        <div id="messages" aria-live="polite">
          <Messages preview={d.preview} />
        </div>
      </section>
      <History d={d} />
    </Layout>
  );
}

/** A name the viewer may not see gets exactly the page of a name that does not exist. */
export function NotFoundPage({ name, generation, needsKey }: { name: string; generation: number; needsKey: boolean }) {
  return (
    <Layout title="Not found · promptgate" generation={generation} needsKey={needsKey}>
      <h1>Prompt not found</h1>
      <p>
        No prompt named <code>{name.slice(0, 100)}</code>. <a href="/">All prompts</a>
      </p>
    </Layout>
  );
}
