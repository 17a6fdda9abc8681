"""The report page's stylesheet, inlined into the page (it loads nothing from elsewhere)."""

CSS = """
:root { --ink:#0f172a; --muted:#64748b; --line:#e2e8f0; --bg:#f8fafc; --card:#fff;
  --ok:#059669; --warn:#b45309; --bad:#dc2626; --accent:#4f46e5; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
main { max-width:1160px; margin:0 auto; padding:24px 28px 60px; }
header.run { display:flex; justify-content:space-between; align-items:flex-end; gap:16px;
  border-bottom:1px solid var(--line); padding-bottom:14px; margin-bottom:18px; }
h1 { font-size:26px; margin:0; letter-spacing:-.01em; }
h1 small { color:var(--muted); font-weight:400; font-size:15px; margin-left:8px; }
h2 { font-size:18px; margin:30px 0 10px; }
h3 { font-size:13px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted);
  margin:16px 0 6px; }
h3 code, h3 .muted { text-transform:none; letter-spacing:0; }
.caption { color:var(--muted); font-size:12px; margin:4px 0 0; }
.meta { color:var(--muted); font-size:12.5px; }
.meta code { font-size:12px; }
code, pre { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; }
code { background:#f1f5f9; padding:0 4px; border-radius:4px; font-size:12.5px; }
.cards { display:grid; grid-template-columns:repeat(4,1fr); gap:14px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px;
  padding:14px 16px; }
.card .label { color:var(--muted); font-size:12px; text-transform:uppercase;
  letter-spacing:.05em; }
.card .big { font-size:28px; font-weight:650; line-height:1.2; margin:4px 0; }
.card .big span { font-size:14px; font-weight:400; color:var(--muted); }
.card.time { grid-column:span 2; }
.legend { display:flex; flex-wrap:wrap; gap:4px 14px; font-size:12px; color:var(--muted);
  margin:6px 0; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px;
  margin-right:5px; vertical-align:-1px; }
.panel { background:var(--card); border:1px solid var(--line); border-radius:10px;
  padding:14px 16px; overflow-x:auto; }
svg.timeline { max-width:100%; height:auto; display:block; }
svg.timeline text { font-size:12px; fill:var(--ink); }
svg.timeline text.tick { fill:var(--muted); font-size:11px; text-anchor:middle; }
svg.timeline text.total { fill:var(--muted); text-anchor:end; }
svg.timeline text.none { fill:var(--muted); font-style:italic; }
svg.timeline line.tick { stroke:#eef2f7; }
svg.timeline line.wait { stroke:#94a3b8; stroke-width:2; stroke-dasharray:3 3; }
svg.timeline a text:hover { fill:var(--accent); text-decoration:underline; }
svg.split { display:block; border-radius:4px; margin:8px 0 2px; max-width:100%; }
.gaps { border-left:4px solid #f59e0b; background:#fffbeb; }
.gaps li { margin:2px 0; }
.good { border-left:4px solid var(--ok); background:#ecfdf5; }
section.session { background:var(--card); border:1px solid var(--line); border-radius:10px;
  padding:16px 18px; margin:16px 0;
  /* a session off screen is not laid out until it is scrolled to: 200 open at once */
  content-visibility:auto; contain-intrinsic-size:auto 1200px; }
section.session > header { display:flex; align-items:baseline; gap:10px; flex-wrap:wrap;
  border-bottom:1px solid var(--line); padding-bottom:8px; }
section.session h2 { margin:0; font-size:17px; }
.badge { display:inline-block; padding:1px 8px; border-radius:999px; font-size:12px;
  font-weight:600; background:#e2e8f0; color:#334155; }
.badge.completed { background:#d1fae5; color:#065f46; }
.badge.blocked { background:#fee2e2; color:#991b1b; }
.badge.awaiting_approval, .badge.parked, .badge.in_progress, .badge.red_phase, .badge.green_phase,
.badge.refactor_phase { background:#e0e7ff; color:#3730a3; }
.badge.warn { background:#fef3c7; color:#92400e; }
.grid { display:grid; grid-template-columns:1fr 1fr; gap:4px 28px; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th { text-align:left; color:var(--muted); font-weight:500; font-size:12px;
  border-bottom:1px solid var(--line); padding:4px 8px 4px 0; }
td { border-bottom:1px solid #f1f5f9; padding:4px 8px 4px 0; vertical-align:top; }
td.num { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
td.nowrap { white-space:nowrap; }
ul.plain { margin:4px 0; padding-left:18px; }
pre { background:#0f172a; color:#e2e8f0; padding:10px 12px; border-radius:8px;
  overflow-x:auto; font-size:12px; line-height:1.45; margin:6px 0; }
pre.msg { background:#f8fafc; color:var(--ink); border:1px solid var(--line); }
pre .add { color:#86efac; } pre .del { color:#fca5a5; } pre .hunk { color:#93c5fd; }
pre .file { color:#fde68a; font-weight:600; }
details { margin:6px 0; }
summary { cursor:pointer; color:var(--accent); }
.survivor { font-family:ui-monospace,Menlo,Consolas,monospace; font-size:12px; }
.muted { color:var(--muted); }
footer { color:var(--muted); font-size:12px; margin-top:30px; }
@media (max-width: 900px) {
  .cards { grid-template-columns:1fr 1fr; } .grid { grid-template-columns:1fr; } }
"""
