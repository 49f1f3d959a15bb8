/**
 * The catalog's one script (served from /assets/<hash>.js; plain ES2020, no framework). Everything
 * works without it; with it: instant search and filters, the theme toggle, live preview and
 * completions on a prompt's page, copy, relative ages, the API key (sessionStorage only, sent as
 * Authorization: Bearer; the page is refetched with it and swapped in), and the list-changed badge,
 * which revalidates GET /prompts every 30 s (a 304 while nothing changed) and compares the
 * generation its ETag names with the page's.
 */
export const JS = `(() => {
'use strict';
const KEY = 'promptgate-key', THEME = 'promptgate-theme';
const $ = (s, r) => (r || document).querySelector(s);
const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
const key = () => { try { return sessionStorage.getItem(KEY) || ''; } catch { return ''; } };
const headers = (extra) => { const h = Object.assign({}, extra); const k = key(); if (k) h.authorization = 'Bearer ' + k; return h; };
const root = document.documentElement;
try { const t = localStorage.getItem(THEME); if (t) root.dataset.theme = t; } catch {}

function theme() {
  const b = $('#theme'); if (!b) return;
  const dark = () => root.dataset.theme ? root.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  const label = () => b.setAttribute('aria-pressed', String(dark()));
  label();
  b.addEventListener('click', () => {
    root.dataset.theme = dark() ? 'light' : 'dark';
    try { localStorage.setItem(THEME, root.dataset.theme); } catch {}
    label();
  });
}

function ages() {
  const now = Date.now();
  for (const t of $$('time[datetime]')) {
    const ms = now - Date.parse(t.getAttribute('datetime'));
    if (!(ms >= 0)) continue;
    const s = ms / 1000, txt = s < 90 ? Math.round(s) + ' s ago' : s < 5400 ? Math.round(s / 60) + ' min ago'
      : s < 129600 ? Math.round(s / 3600) + ' h ago' : Math.round(s / 86400) + ' days ago';
    t.title = t.textContent; t.textContent = txt;
  }
}

function search() {
  const form = $('#filters'); if (!form) return;
  const items = $$('#prompts > li.prompt'), count = $('#count');
  const tags = new Map(items.map((li) => [li, JSON.parse(li.dataset.tags || '[]')]));
  const text = (li) => [li.dataset.name, tags.get(li).join(' '), ($('.title', li) || {}).textContent, ($('.desc', li) || {}).textContent].join(' ').toLowerCase();
  const texts = new Map(items.map((li) => [li, text(li)]));
  // Read as the server reads ?tag= and ?source= (web/filter.ts filtersOf), so both show the same prompts for any value.
  const chosen = (id) => $(id).value.slice(0, 200);
  const apply = () => {
    const words = $('#search').value.toLowerCase().split(/\\s+/).filter(Boolean);
    const tag = chosen('#tag'), source = chosen('#source');
    let n = 0;
    for (const li of items) {
      const ok = (!tag || tags.get(li).includes(tag)) && (!source || li.dataset.source === source)
        && words.every((w) => texts.get(li).includes(w));
      li.hidden = !ok; if (ok) n++;
    }
    count.textContent = n === items.length ? n + ' prompt' + (n === 1 ? '' : 's') : n + ' of ' + items.length + ' prompts';
    const q = new URLSearchParams(new FormData(form));
    for (const [k, v] of Array.from(q)) if (!v) q.delete(k);
    history.replaceState(null, '', q.toString() ? '?' + q : location.pathname);
  };
  form.addEventListener('input', apply);
  form.addEventListener('submit', (e) => { e.preventDefault(); apply(); });
  const list = $('#prompts');
  list.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const links = $$('li.prompt:not([hidden]) .title a', list), i = links.indexOf(document.activeElement);
    if (i < 0) return;
    e.preventDefault();
    const next = links[i + (e.key === 'ArrowDown' ? 1 : -1)]; if (next) next.focus();
  });
}

function preview() {
  const form = $('#args'), box = $('#messages'), section = $('#preview'); if (!form || !section) return;
  const base = '/p/' + encodeURIComponent(section.dataset.name);
  let timer = 0, seq = 0;
  const args = () => { const q = new URLSearchParams(new FormData(form)); q.delete('render'); return q; };
  // Only the gateway's own fragment is markup; any other answer (a 401, a 429, an error body) is told as text.
  const render = async () => {
    const mine = ++seq;
    const r = await fetch(base + '/preview?' + args(), { headers: headers() });
    const html = r.ok ? await r.text() : '';
    if (mine !== seq) return;
    if (r.ok) { box.innerHTML = html; return; }
    const why = r.status === 401 ? 'Sign in first.' : unavailable(r);
    box.replaceChildren(Object.assign(document.createElement('p'), { className: 'error', textContent: why }));
  };
  // Completions per field: one request once typing pauses (each is a call against the client's rate
  // budget, and an upstream call for an upstream prompt), and an edit aborts the one in flight, so a
  // late answer for an earlier value never replaces the values offered for the text now in the field.
  const asking = new Map();
  form.addEventListener('input', (e) => {
    clearTimeout(timer); timer = setTimeout(() => render().catch(() => {}), 250);
    const input = e.target; if (input.dataset.argument === undefined) return;
    const was = asking.get(input); if (was) { clearTimeout(was.timer); was.ctl.abort(); }
    const ctl = new AbortController();
    asking.set(input, { ctl, timer: setTimeout(() => complete(input, ctl.signal).catch(() => {}), 250) });
  });
  form.addEventListener('submit', (e) => { e.preventDefault(); clearTimeout(timer); render().catch(() => {}); });
  const complete = async (input, signal) => {
    const q = args(); q.delete(input.name);
    const r = await fetch(base + '/complete?argument=' + encodeURIComponent(input.dataset.argument) + '&value=' + encodeURIComponent(input.value) + '&' + q, { headers: headers(), signal });
    if (!r.ok) return;
    const { values } = await r.json();
    const list = input.list; if (!list || signal.aborted) return;
    list.replaceChildren(...values.map((v) => Object.assign(document.createElement('option'), { value: v })));
  };
  $('#copy').addEventListener('click', async () => {
    const b = $('#copy'); const text = $$('.message', box).map((m) => m.dataset.role + ':\\n' + $$('.text,.uri', m).map((t) => t.textContent).join('\\n')).join('\\n\\n');
    try { await navigator.clipboard.writeText(text); b.textContent = 'Copied'; } catch { b.textContent = 'Copy failed'; }
    setTimeout(() => { b.textContent = 'Copy'; }, 1500);
  });
}

let polling = false;
function badge() {
  if (polling || !$('#changed-badge')) return;
  polling = true;
  const g = Number(document.body.dataset.generation);
  const poll = async () => {
    const r = await fetch('/prompts', { headers: headers(), cache: 'no-cache' });
    const m = /"g(\\d+)-/.exec(r.headers.get('etag') || '');
    if (m && Number(m[1]) > g) { $('#changed-badge').hidden = false; return; }
    setTimeout(() => poll().catch(() => {}), 30000);
  };
  setTimeout(() => poll().catch(() => {}), 30000);
}

// Why an answer to a key says nothing about the key (a limit, an outage, a fault): when to try again.
function unavailable(r) {
  const after = r.headers.get('retry-after') || '';
  const s = /^\\d+$/.test(after) ? Number(after) : Math.ceil((Date.parse(after) - Date.now()) / 1000);
  return 'The gateway answered ' + r.status + (r.ok ? ' without a page' : '') + '; try again ' + (s > 0 ? 'in ' + s + ' s.' : 'shortly.');
}

// The page asked with key k: true once swapped in, false when the key was refused, else why it could not tell.
async function swap(k) {
  const r = await fetch(location.href, { headers: { accept: 'text/html', authorization: 'Bearer ' + k } });
  if (r.status === 401 || r.status === 403) return false;
  // Only the gateway's page answers the key (a 404 is its page for a name this viewer may not see).
  if (!(r.ok || r.status === 404) || !(r.headers.get('content-type') || '').toLowerCase().startsWith('text/html')) return unavailable(r);
  const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
  // A refused key is answered with the page that asks for one, not an error status: not accepted.
  if (doc.querySelector('#key-form')) return false;
  document.title = doc.title;
  document.body.replaceWith(document.adoptNode(doc.body));
  init();
  return true;
}

function keyForm() {
  const form = $('#key-form'); if (!form) return;
  const fail = (msg) => { const e = $('#key-error'); e.textContent = msg; e.hidden = false; };
  // A refused key is forgotten; one the gateway could not judge just now is kept for the next try.
  const use = (k, refused) => swap(k).catch(() => 'The gateway could not be reached; try again shortly.').then((res) => {
    if (res === true) return;
    if (res === false) { try { sessionStorage.removeItem(KEY); } catch {} if (refused) fail(refused); } else fail(res);
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const k = $('#api-key').value.trim(); if (!k) return fail('Paste a key first.');
    try { sessionStorage.setItem(KEY, k); } catch {}
    await use(k, 'That key was not accepted.');
  });
  const k = key();
  if (k) use(k, '').catch(() => {});
}

function init() { theme(); ages(); search(); preview(); badge(); keyForm(); }
init();
})();
`;
