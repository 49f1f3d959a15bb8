/**
 * The catalog's one stylesheet (served from /assets/<hash>.css). Light and dark themes from the
 * system, overridable by the toggle (html[data-theme]); colours chosen for WCAG AA contrast in
 * both; visible focus; one column on a phone, list and side panel side by side on wider screens.
 */
export const CSS = `
:root{--bg:#fff;--fg:#1a1a1a;--muted:#555;--link:#0b5cad;--line:#c9ccd1;--code:#f1f3f5;--card:#fafbfc;
--focus:#0b5cad;--ok:#17663a;--bad:#b42318;--warn:#7a4f00;--badge:#fde68a;--badge-fg:#1a1a1a;color-scheme:light}
:root[data-theme=dark]{--bg:#121417;--fg:#e8e8e8;--muted:#a9aeb4;--link:#8cc2ff;--line:#3a3f45;--code:#1e2227;
--card:#171a1e;--focus:#8cc2ff;--ok:#6fdc9a;--bad:#ff8a80;--warn:#f5c26b;--badge:#5c4a00;--badge-fg:#fff;color-scheme:dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#121417;--fg:#e8e8e8;--muted:#a9aeb4;
--link:#8cc2ff;--line:#3a3f45;--code:#1e2227;--card:#171a1e;--focus:#8cc2ff;--ok:#6fdc9a;--bad:#ff8a80;
--warn:#f5c26b;--badge:#5c4a00;--badge-fg:#fff;color-scheme:dark}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0}
a{color:var(--link)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
[hidden]{display:none!important}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code);padding:.05em .3em;border-radius:3px}
pre{background:var(--code);padding:.6em .8em;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
pre code{background:none;padding:0}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5em 1em;z-index:9}
.skip:focus{left:.5em}
.top{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:center;padding:.6em 1em;border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none;color:var(--fg);margin-right:auto}
.badge{background:var(--badge);color:var(--badge-fg);padding:.2em .6em;border-radius:1em}
.badge a{color:inherit}
.viewer{margin:0;color:var(--muted)}
button,.button,input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);
border-radius:4px;padding:.35em .7em;min-height:2.2em}
button,.button{cursor:pointer;text-decoration:none;display:inline-block}
button:hover,.button:hover{border-color:var(--fg)}
main{max-width:72em;margin:0 auto;padding:1em;display:grid;gap:1em;grid-template-columns:minmax(0,1fr)}
main>h1,main>nav,main>p,main>dl,main>form,main>table,main>section{grid-column:1/-1}
h1{margin:.2em 0;font-size:1.6em}
h2{font-size:1.15em;margin:.2em 0}
h3{font-size:1em;margin:.8em 0 .2em}
.filters{display:flex;flex-wrap:wrap;gap:.6em;align-items:end}
.filters div{display:flex;flex-direction:column}
.filters input{min-width:16em}
#count{margin:0;color:var(--muted)}
#prompts{list-style:none;margin:0;padding:0;display:grid;gap:.6em}
.prompt{border:1px solid var(--line);background:var(--card);border-radius:6px;padding:.6em .8em}
.prompt .title{display:inline;margin-right:.5em}
.desc{margin:.3em 0}
.meta{display:flex;flex-wrap:wrap;gap:.4em .8em;align-items:center;color:var(--muted);font-size:.9em}
.tags{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.3em}
.tags li{border:1px solid var(--line);border-radius:1em;padding:0 .5em}
.spark{color:var(--link);vertical-align:middle}
.install{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5em}
table{border-collapse:collapse;width:100%}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{text-align:left;border-bottom:1px solid var(--line);padding:.3em .5em;vertical-align:top}
.sub{display:block;font-weight:400;color:var(--muted)}
.state-healthy{color:var(--ok)}.state-failing{color:var(--bad)}.state-stale,.state-never_listed{color:var(--warn)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.args{display:flex;flex-wrap:wrap;gap:.6em;align-items:end}
.field{display:flex;flex-direction:column;min-width:14em;flex:1}
.bar{display:flex;align-items:center;justify-content:space-between}
.message{border-left:3px solid var(--line);padding:.2em .8em;margin:.5em 0}
.message[data-role=assistant]{border-color:var(--link)}
.role{margin:0;font-size:.8em;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.image{max-width:100%;height:auto;border:1px solid var(--line)}
.error{color:var(--bad)}
.hint,.note{color:var(--muted)}
.key{max-width:72em;margin:1em auto;padding:1em;border:1px solid var(--line);border-radius:6px}
.key input{min-width:18em}
@media (min-width:60em){main{grid-template-columns:minmax(0,1.6fr) minmax(0,1fr)}
#prompts{grid-column:1}.side{grid-column:2;grid-row:span 2}}
`;
