/**
 * The one stylesheet of every page, served at `/assets/site.css` (a file of its own: the CSP
 * forbids inline styles). Light and dark by the reader's setting; focus always visible.
 */
export const SITE_CSS = `
:root {
  color-scheme: light dark;
  --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --panel: #f6f8fa; --line: #d0d7de;
  --link: #0550ae; --accent: #0a6b3d; --warn-bg: #fff8c5; --warn-line: #bf8700; --focus: #0969da;
  --s1: #0550ae; --s2: #b35900; --s3: #0a6b3d; --s4: #8250df;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --panel: #161b22; --line: #30363d;
    --link: #6cb6ff; --accent: #3fb950; --warn-bg: #3b2e00; --warn-line: #d29922; --focus: #58a6ff;
    --s1: #6cb6ff; --s2: #f0883e; --s3: #3fb950; --s4: #d2a8ff;
  }
}
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
body { margin: 0; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible,
.table-scroll:focus-visible, th a:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: 0.5rem; }
.skip:focus { left: 0.5rem; }
header.site { border-bottom: 1px solid var(--line); background: var(--panel); }
header.site nav { max-width: 72rem; margin: 0 auto; padding: 0.6rem 1rem; display: flex; flex-wrap: wrap; gap: 0.4rem 1.5rem; align-items: center; }
header.site ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.3rem 1.1rem; margin: 0; padding: 0; }
header.site a { text-decoration: none; }
header.site a[aria-current="page"] { font-weight: 600; text-decoration: underline; text-underline-offset: 0.3em; }
.brand { font-weight: 700; color: var(--fg); }
main p, main li, main dd { overflow-wrap: anywhere; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1rem 2rem; }
footer.site { max-width: 72rem; margin: 0 auto; padding: 1rem; color: var(--muted); border-top: 1px solid var(--line); font-size: 0.9rem; }
h1 { font-size: 1.7rem; margin: 0.6rem 0 0.4rem; line-height: 1.25; }
h2 { font-size: 1.25rem; margin: 1.8rem 0 0.5rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.4rem; }
.provenance, .muted { color: var(--muted); font-size: 0.92rem; }
.lead { font-size: 1.1rem; max-width: 48rem; }
.banner { background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 6px; padding: 0.6rem 0.8rem; }
.empty { border: 1px dashed var(--line); border-radius: 6px; padding: 0.8rem 1rem; background: var(--panel); }
.problems { padding-left: 1.2rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: 0.8rem; padding: 0; margin: 1rem 0; }
.figures div { min-width: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.7rem 0.9rem; }
.figures dt { color: var(--muted); font-size: 0.85rem; overflow-wrap: anywhere; }
.figures dd { margin: 0; font-size: 1.5rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.table-scroll { overflow-x: auto; max-width: 100%; margin: 0.5rem 0 1rem; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.92rem; }
caption { text-align: left; padding: 0.5rem 0.6rem; color: var(--muted); font-size: 0.88rem; }
th, td { padding: 0.4rem 0.6rem; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; vertical-align: top; }
thead th { background: var(--panel); font-weight: 600; }
td.num, th.num { text-align: right; }
td.wrap, th.wrap { white-space: normal; min-width: 16rem; }
tr.baseline td { background: var(--panel); font-style: italic; }
body.wide header.site nav, body.wide main, body.wide footer.site { max-width: 90rem; }
table.board th, table.board td { padding: 0.35rem 0.45rem; }
table.board tr.baseline th { white-space: normal; min-width: 8.5rem; }
table.pairs th, table.pairs td { white-space: normal; }
table.board .ci { display: block; font-size: 0.78rem; color: var(--muted); }
th a { color: inherit; }
th abbr { text-decoration: underline dotted; cursor: help; }
dl.defs dt { font-weight: 600; margin-top: 0.6rem; }
dl.defs dd { margin: 0.1rem 0 0 1rem; color: var(--fg); }
form.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 0.6rem 1rem; align-items: end; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.8rem; }
form.filters label { display: flex; flex-direction: column; font-size: 0.88rem; color: var(--muted); gap: 0.2rem; }
input, select, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.3rem 0.45rem; }
button { background: var(--link); color: var(--bg); border-color: var(--link); cursor: pointer; font-weight: 600; }
.pager { display: flex; gap: 1rem; margin: 0.8rem 0; }
figure.chart { margin: 1rem 0; }
figure.chart svg { width: 100%; max-width: 40rem; height: auto; display: block; }
figure.chart figcaption { color: var(--muted); font-size: 0.9rem; }
details.data summary { cursor: pointer; color: var(--link); margin: 0.3rem 0; }
svg .axis { stroke: var(--muted); }
svg .grid { stroke: var(--line); }
svg text { fill: var(--muted); font-size: 15px; font-family: system-ui, sans-serif; }
svg .s1 { stroke: var(--s1); fill: var(--s1); }
svg .s2 { stroke: var(--s2); fill: var(--s2); }
svg .s3 { stroke: var(--s3); fill: var(--s3); }
svg .s4 { stroke: var(--s4); fill: var(--s4); }
svg path.line { fill: none; }
svg .diagonal { stroke: var(--muted); fill: none; }
svg rect.bar { fill: var(--panel); stroke: var(--muted); }
svg text.label { fill: var(--fg); }
code.hotkey { overflow-wrap: anywhere; }
svg text { stroke: none; }
.description { white-space: pre-line; max-width: 48rem; }
.notice { border-left: 4px solid var(--link); background: var(--panel); padding: 0.6rem 0.8rem; max-width: 48rem; }
ul.outcomes { list-style: none; margin: 0; padding: 0; }
.form-actions { display: flex; gap: 1rem; align-items: center; }
section.scored-event { border-top: 1px solid var(--line); margin-top: 1.2rem; }
.field-error { font-weight: 600; border-left: 4px solid var(--warn-line); padding-left: 0.5rem; margin: 0.2rem 0; }
code#new-api-key, code#invitation-link { overflow-wrap: anywhere; font-size: 1rem; }
pre.sign-text { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); padding: 0.5rem 0.7rem; max-width: 48rem; }
input.hotkey-field { display: block; width: 100%; max-width: 34rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
textarea.signature { display: block; width: 100%; max-width: 48rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
/* The dashboard's forms (their actions are under /dashboard): a field's label above it, a key's actions side by side. */
form[action^="/dashboard"] p > label:first-child { display: block; margin-bottom: 0.2rem; }
form[action^="/dashboard"] fieldset { border: 1px solid var(--line); border-radius: 6px; max-width: 32rem; }
form[action^="/dashboard"] fieldset p { margin: 0.3rem 0; }
form[action^="/dashboard"] input[type="checkbox"] { margin: 0 0.4rem 0 0; vertical-align: middle; }
td form[action^="/dashboard"] { display: inline-block; margin: 0 0.3rem 0.2rem 0; }
td:has(> form[action^="/dashboard"]) { white-space: nowrap; }
#key-pinnedMinerHotkey { width: 100%; max-width: 34rem; }
form.usage-form { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 0 1rem; align-items: end; max-width: 64rem; }
form.usage-form p { margin: 0.4rem 0; }
nav.dashboard-nav ul { display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; list-style: none; margin: 0 0 1rem; padding: 0 0 0.6rem; border-bottom: 1px solid var(--line); align-items: center; }
nav.dashboard-nav form { display: inline; margin: 0; }
nav.dashboard-nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
button.link-button { background: none; border: none; padding: 0; color: inherit; font: inherit; text-decoration: underline; cursor: pointer; }
.tag { display: inline-block; padding: 0 0.4rem; border: 1px solid var(--line); border-radius: 999px; font-size: 0.8rem; color: var(--muted); }
@media (min-width: 42rem) {
  figure.chart svg text { font-size: 11.5px; }
}
@media (max-width: 40rem) {
  table.board thead th:nth-child(3), table.board tbody th[scope="row"] { position: sticky; left: 0; z-index: 1; box-shadow: 1px 0 0 var(--line); }
  table.board tbody th[scope="row"] { background: var(--bg); }
  table.board tr.baseline th { background: var(--panel); min-width: 7.5rem; }
  h1 { font-size: 1.4rem; }
  main { padding: 0.6rem 0.7rem 1.5rem; }
}
`;

/** The site's icon (also served at `/favicon.ico`, which browsers ask for by themselves). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">` +
  `<rect width="32" height="32" rx="6" fill="#0550ae"/>` +
  `<path d="M6 24 L13 15 L18 19 L26 8" fill="none" stroke="#ffffff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>` +
  `</svg>`;
