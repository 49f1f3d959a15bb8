/** @jsxImportSource hono/jsx */
/**
 * The frame of every catalog page: landmarks, skip link, theme toggle, the list-changed badge, the
 * API-key form when no credential was accepted, and the one stylesheet and script (content-hashed,
 * no inline code: the CSP allows none). Per-viewer text is never rendered here: the route splices
 * it in at VIEWER_SLOT after the shared page is cached.
 */
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { webAssets } from './assets.js';

/** Where the route puts the viewer's name (personal: never inside a cached page). */
export const VIEWER_SLOT = '<!--pg:viewer-->';

function KeyForm() {
  return (
    <form id="key-form" class="key" aria-labelledby="key-h">
      <h2 id="key-h">Sign in with an API key</h2>
      <p>
        This gateway needs a credential. Paste an API key (<code>promptgate keys create</code>): it stays in this tab
        only (session storage) and is sent as <code>Authorization: Bearer</code>. Needs JavaScript.
      </p>
      <label for="api-key">API key</label>
      <input type="password" id="api-key" autocomplete="off" spellcheck={false} />
      <button type="submit">Use key</button>
      <p id="key-error" class="error" role="alert" hidden></p>
    </form>
  );
}

export function Layout(props: { title: string; generation: number; needsKey: boolean; children: Child }) {
  const { css, js } = webAssets();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{props.title}</title>
        <link rel="stylesheet" href={`/assets/${css.name}`} />
        <script src={`/assets/${js.name}`} defer></script>
      </head>
      <body data-generation={props.generation}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/">
            promptgate
          </a>
          <span id="changed-badge" class="badge" role="status" hidden>
            The catalog changed. <a href="">Reload</a>
          </span>
          {raw(VIEWER_SLOT)}
          <button id="theme" type="button" aria-label="Switch between light and dark theme">
            Theme
          </button>
        </header>
        {props.needsKey ? <KeyForm /> : null}
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** The viewer line spliced into VIEWER_SLOT (escaped by JSX like any text). */
export function Viewer({ name }: { name: string }) {
  return (
    <p id="viewer" class="viewer">
      Signed in as {name}
    </p>
  );
}

/** An ISO time as a <time>, shown in UTC (the script rewrites it as an age). */
export function When({ iso, id }: { iso: string; id?: string }) {
  const shown = iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  return (
    <time id={id} datetime={iso}>
      {shown}
    </time>
  );
}

/** A table's header row: one column header per name (each table's body says what its rows hold). */
export function ColumnHeads({ names }: { names: string[] }) {
  return (
    <thead>
      <tr>
        {names.map((n) => (
          <th scope="col">{n}</th>
        ))}
      </tr>
    </thead>
  );
}
