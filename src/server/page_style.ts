// The status page's stylesheet: system fonts, a light and a dark scheme, nothing fetched.

export const pageStyle = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --fg: #1d2330; --muted: #667085; --card: #ffffff; --line: #e3e6eb;
  --ok: #137a3f; --ok-bg: #e5f5ec; --bad: #b42318; --bad-bg: #fdecea; --accent: #2257c7;
  --code-bg: #eef1f5;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #12151b; --fg: #e6e9ef; --muted: #98a2b3; --card: #1a1f27; --line: #2b323d;
    --ok: #5fd08f; --ok-bg: #15301f; --bad: #ff8a80; --bad-bg: #3a1717; --accent: #8ab4ff;
    --code-bg: #232a35;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0 auto; max-width: 1280px; padding: 24px 28px 40px;
  background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.95em; background: var(--code-bg); padding: 1px 5px; border-radius: 4px; }
h1 { margin: 0 0 4px; font-size: 22px; letter-spacing: -0.01em; }
.top p { margin: 0 0 10px; color: var(--muted); max-width: 900px; }
nav { display: flex; gap: 8px; flex-wrap: wrap; margin-bottom: 18px; }
nav a {
  color: var(--accent); text-decoration: none; border: 1px solid var(--line); background: var(--card);
  padding: 4px 12px; border-radius: 999px; font-weight: 500;
}
nav a:hover { border-color: var(--accent); }
.banner {
  display: flex; align-items: baseline; gap: 14px; padding: 14px 18px; border-radius: 10px;
  margin-bottom: 18px; border: 1px solid; font-size: 15px;
}
.banner strong { font-size: 20px; letter-spacing: 0.03em; white-space: nowrap; }
.banner.ready { background: var(--ok-bg); border-color: var(--ok); color: var(--ok); }
.banner.not-ready { background: var(--bad-bg); border-color: var(--bad); color: var(--bad); }
.banner span { color: var(--fg); }
.banner code { background: transparent; font-weight: 600; color: inherit; }
.connection { background: var(--bad-bg); color: var(--bad); padding: 8px 12px; border-radius: 8px; }
table.sources, table.manifests {
  width: 100%; border-collapse: separate; border-spacing: 0; background: var(--card);
  border: 1px solid var(--line); border-radius: 10px; overflow: hidden;
}
h2 { font-size: 15px; margin: 22px 0 8px; }
h2 small { font-weight: 400; color: var(--muted); }
.manifests th, .manifests td { padding: 8px 12px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); }
.manifests thead th { font-size: 12px; text-transform: uppercase; color: var(--muted); font-weight: 600; background: var(--bg); }
.manifests small { display: block; color: var(--muted); font-size: 12px; }
.manifests tr[data-verdict="refused"] > th:first-child, .manifests tr[data-verdict="duplicate"] > th:first-child { box-shadow: inset 4px 0 0 var(--bad); }
.pill.warn { background: var(--bad-bg); color: var(--fg); }
.pill.muted { background: var(--bg); color: var(--muted); }
.sources th, .sources td { padding: 10px 12px; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); }
.sources tbody tr:last-child > * { border-bottom: none; }
.sources thead th { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); font-weight: 600; background: var(--bg); }
.sources thead th small { text-transform: none; letter-spacing: 0; font-weight: 400; }
.sources tbody th code { font-size: 15px; font-weight: 600; }
.sources tr[data-ready="false"] > th:first-child { box-shadow: inset 4px 0 0 var(--bad); }
.sources tr[data-ready="true"] > th:first-child { box-shadow: inset 4px 0 0 var(--ok); }
.sources small { display: block; color: var(--muted); font-size: 12px; white-space: nowrap; }
.num { text-align: right !important; font-variant-numeric: tabular-nums; }
.yes { color: var(--ok); font-weight: 600; font-variant-numeric: tabular-nums; }
.no { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); }
.pill { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 12px; font-weight: 700; letter-spacing: 0.04em; }
.pill.ok { background: var(--ok-bg); color: var(--ok); }
.pill.bad { background: var(--bad-bg); color: var(--bad); }
td.error { max-width: 380px; }
.reason { font-weight: 600; color: var(--bad); }
.resolved .reason, .resolved .message { color: var(--muted); }
.count { color: var(--muted); font-size: 12px; }
.message { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; overflow-wrap: anywhere; margin: 2px 0; }
dl.summary {
  display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 10px; margin: 18px 0 0;
}
dl.summary div { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; }
dd { margin: 2px 0 0; font-size: 16px; font-weight: 600; font-variant-numeric: tabular-nums; }
dd small { display: block; font-size: 12px; font-weight: 400; color: var(--muted); }
footer { margin-top: 22px; color: var(--muted); font-size: 12px; }
`;
