"""The Single query lesson as one HTML page: θ moves in the browser, with no server round trip.

The page's θ grid is small (about 60 points), so everything that depends on θ — the chart's
marker and readout, the four numbers, the explanations, and the two demonstrations under them
(one person with a huge value; repeated noisy answers next to the true answer) — is computed once
on the server and sent as arrays; a θ step in the browser only picks another index. The same
page is drawn inside the app (plotly.js from this server, cached by the browser) and offered as
"Download this lesson" (plotly.js inline: one file that works from disk, offline, mailed or put
on a course page). Both use plotly.js's basic bundle (scatter, bar, shapes, annotations: all
the lesson draws), 1.2 MB instead of 4.8: Streamlit gzips each component file anew for every
browser that asks, so the full bundle cost the server 0.14 s of CPU per student
(dpsum_ui/assets/plotly_basic/README.md).
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
from streamlit.components.v1 import declare_component

from dpsum_core.plots.export import PLOTLY_CONFIG

PLOTLY_JS = Path(__file__).resolve().parent / "assets" / "plotly_basic" / "plotly-basic.min.js"
MAX_LESSON_BYTES = 5_000_000  # a downloaded lesson, plotly.js (about 1.2 MB) included
# plotly.js for the lesson frame in the app, served by this server from dpsum_ui/assets
# (a component's folder), cached by the browser: a θ step asks nothing of the server.
_PLOTLY = declare_component("plotly_basic_js", path=str(PLOTLY_JS.parent))


def plotly_url() -> str:
    """The address of plotly.js on this server (under its base URL path, if any)."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{'/' + base if base else ''}/component/{_PLOTLY.name}/{PLOTLY_JS.name}"


def markdown_html(text: str) -> str:
    """The explanations' markdown (``**bold**``, ``*italic*``) as escaped HTML."""
    out = html.escape(text, quote=False)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    return re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", out)


@cache
def plotly_source() -> str:
    """plotly.js's basic bundle, minified (about 1.2 MB), read once."""
    return PLOTLY_JS.read_text(encoding="utf-8")


def _json(value: object) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


_STYLE = """
:root { font-family: "Source Sans Pro", "Source Sans 3", system-ui, sans-serif; color: #1A1A1A; }
body { margin: 0; font-size: 16px; line-height: 1.35; }
body.standalone { margin: 16px 24px; }
.lesson { display: grid; grid-template-columns: minmax(220px, 1fr) minmax(0, 3fr);
          gap: 8px 16px; }
.side { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.theta label { font-size: 16px; display: block; }
.theta output { font-size: 22px; font-weight: 600; margin-left: 6px; }
.theta input { width: 100%; height: 28px; accent-color: #0072B2; margin: 2px 0 0 0; }
.hint { font-size: 16px; color: #555; }
#unnoised { margin: 0; }
#numbers { display: grid; grid-template-columns: 1fr; gap: 4px; }
.metric { min-width: 0; }
.metric .label { font-size: 16px; color: #333; line-height: 1.2; }
.metric .value { font-size: 22px; font-weight: 600; line-height: 1.2; }
.metric .note { font-size: 16px; color: #555; }
#chart { min-width: 0; }
#cards { grid-column: 1 / -1; display: grid; gap: 10px;
         grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); }
.card { background: #F3F6F9; border-radius: 6px; padding: 6px 10px; min-width: 0; }
.card h2 { font-size: 16px; margin: 0 0 2px 0; }
.card p { margin: 0; font-size: 16px; }
.card summary { font-size: 16px; cursor: pointer; list-style: none; }
.card summary::-webkit-details-marker { display: none; }
.card .more { color: #0072B2; white-space: nowrap; }
.card details[open] .more { display: none; }
.card details p { margin-top: 4px; }
#demos { grid-column: 1 / -1; display: grid; gap: 10px;
         grid-template-columns: repeat(auto-fit, minmax(min(320px, 100%), 1fr)); }
.panel { border: 1px solid #D0D7DE; border-radius: 6px; padding: 6px 10px; min-width: 0; }
.panel h2 { font-size: 16px; margin: 0 0 4px 0; }
.panel p { margin: 2px 0; font-size: 16px; }
.bar { height: 14px; background: #E8ECF0; border-radius: 3px; margin: 2px 0 6px 0; }
.bar div { height: 100%; border-radius: 3px; }
#bar_untruncated { width: 100%; background: #555; }
#bar_truncated { background: #0072B2; }
.strip { position: relative; height: 34px; margin: 6px 8px; border-bottom: 2px solid #999; }
.strip span { position: absolute; bottom: -7px; transform: translateX(-50%); }
.strip .dot { width: 12px; height: 12px; border-radius: 50%; background: #0072B2;
              opacity: 0.8; }
.strip .tick { width: 3px; height: 30px; bottom: -2px; }
#strip_truth { background: #000; }
#strip_centre { background: repeating-linear-gradient(#D55E00 0 4px, transparent 4px 7px); }
.key { font-size: 16px; color: #555; }
#tools { grid-column: 1 / -1; display: flex; flex-wrap: wrap; gap: 4px 12px;
         align-items: center; font-size: 16px; }
#tools button { font: inherit; color: #0072B2; background: none; border: 1px solid #D0D7DE;
                border-radius: 6px; padding: 2px 10px; cursor: pointer; }
#tools button:hover { background: #F3F6F9; }
.extra { grid-column: 1 / -1; }
/* A phone (below 600 px): the chart under θ and the numbers, at full width (beside them it
   was squeezed to 70 px at 390×844). */
@media (max-width: 600px) { .lesson { grid-template-columns: minmax(0, 1fr); } }
.extra h2 { font-size: 20px; }
.settings { font-size: 16px; }
"""

# Everything θ moves, by index into the arrays of the payload; no network, no server.
_SCRIPT = """
const L = JSON.parse(document.getElementById('lesson-data').textContent);
const CONFIG = Object.assign({responsive: true}, PLOTLY_CONFIG);
const slider = document.getElementById('theta');
const out = document.getElementById('theta_value');
const pick = (v, i) => (typeof v === 'string' ? v : v[i]);
const chart = document.getElementById('chart');
const fig = L.figure;
function room() {
  // In the app: the height from the frame's top to the window's bottom (null in a file).
  const frame = window.frameElement;
  if (!frame || !L.fit) return null;
  const top = frame.getBoundingClientRect().top + window.parent.scrollY;
  return window.parent.innerHeight - top;
}
function fit() {
  // In the app: as tall as the window leaves above the explanations, up to 640 px; arrange()
  // then grows it if its error plot would be shorter than MIN_PLOT_PX (the page scrolls).
  const r = room(), rest = document.getElementById('cards').offsetHeight + 28;
  return r === null ? L.chart_height : Math.max(320, Math.min(640, r - rest));
}
// The error plot (the upper row) never shorter than MIN_PLOT_PX: on a small window the chart
// grows and the page scrolls, rather than squeezing the curves (the review saw 70–100 px at
// 1366×768 and 1280×800). The SVT / Recursive row keeps RUG_PX, whatever the height.
const MIN_PLOT_PX = 220, RUG_PX = 64, RUG_GAP_PX = 14;
// The error axis is labelled at powers of ten; in a short plot every one of them is crammed:
// keep every k-th, at least MIN_TICK_PX apart.
const MIN_TICK_PX = 44;
const yTicks = {vals: fig.layout.yaxis.tickvals, text: fig.layout.yaxis.ticktext};
function thinned(ya, px) {
  if (!yTicks.vals || !ya.range) return {};
  const perDecade = px / Math.max(ya.range[1] - ya.range[0], 0.1);
  const step = Math.max(1, Math.ceil(MIN_TICK_PX / perDecade));
  return {'yaxis.tickvals': yTicks.vals.filter((_, k) => k % step === 0),
          'yaxis.ticktext': yTicks.text.filter((_, k) => k % step === 0)};
}
// A narrow chart (a phone): the readout's lines wrapped at spaces to the chart's width, θ's
// axis title to the room either side of the plot's centre (twice the narrower side: the
// chart's width less AXIS_PX, the y axis's labels less the right margin), 16 px text at most
// CHAR_PX a character (they ran off both sides at 390 px); no mode bar (the downloads are
// buttons under the chart): it covered the title. Drawn anew when the window turns narrow
// or wide (a phone turned).
const CHAR_PX = 9.5, NARROW_PX = 600, AXIS_PX = 100;
const narrow = () => chart.clientWidth < NARROW_PX;
const xAxis = fig.layout.xaxis2 ? fig.layout.xaxis2 : fig.layout.xaxis;  // θ's, at the bottom
const axisTitle = xAxis.title ? xAxis.title.text : null;
let drawnNarrow = null;
function wrapped(text, px) {
  const most = Math.max(12, Math.floor(px / CHAR_PX));
  return text.split('<br>').map((line) => {
    const bold = /^<b>(.*)<\\/b>$/.exec(line), rows = [];
    for (const word of (bold ? bold[1] : line).split(' ')) {
      const last = rows.length - 1;
      if (last >= 0 && (rows[last] + ' ' + word).length <= most) rows[last] += ' ' + word;
      else rows.push(word);
    }
    return rows.map((r) => (bold ? '<b>' + r + '</b>' : r)).join('<br>');
  }).join('<br>');
}
const fitted = (text, px = chart.clientWidth - 16) => (narrow() ? wrapped(text, px) : text);
function arrange() {
  // After the first drawing (its margins are then known: legend rows, tick labels): the rows'
  // (window.lessonArranged counts the arrangements: tests wait for one after a resize)
  window.lessonArranged = (window.lessonArranged || 0) + 1;
  // heights in pixels, the chart's height, the error axis's labels; the readout under the
  // title where they would meet (a narrow chart; 40 px spare, as the readout follows θ).
  const update = {}, title = chart.querySelector('.gtitle');
  const readout = chart.querySelector('.annotation');
  let push = 0;
  if (title && readout) {
    const t = title.getBoundingClientRect(), r = readout.getBoundingClientRect();
    if (t.right + 40 > r.left && r.top < t.bottom) push = Math.ceil(t.bottom - r.top) + 4;
  }
  if (push) update['margin.t'] = fig.layout.margin.t + push;
  const area = chart._fullLayout._size.h - push, rows = fig.layout.yaxis2 ? 1 : 0;
  const rug = rows * (RUG_PX + RUG_GAP_PX);
  // the drawn height (the layout's own is unset while the chart is sized by its div: NaN
  // domains then collapsed both rows onto the whole chart at 1280×800)
  const height = chart._fullLayout.height;
  let grow = L.fit ? Math.max(0, MIN_PLOT_PX - (area - rug)) : 0;
  if (grow > 0) {  // the explanations go below the fold anyway: the chart fills the window
    grow = Math.max(grow, Math.min(640, (room() ?? height) - 8) - height);
  }
  const total = area + grow;
  Object.assign(update, thinned(fig.layout.yaxis, total - rug));
  if (rows) {
    update['yaxis2.domain'] = [0, RUG_PX / total];
    update['yaxis.domain'] = [rug / total, 1];
  }
  for (const [k, v] of Object.entries(update)) {  // kept for a later redraw
    const [a, b] = k.split('.');
    fig.layout[a][b] = v;
  }
  if (grow > 0) {  // sized by its div (a relayout of the height would fix the width too)
    fig.layout.height = height + grow;
    chart.style.height = fig.layout.height + 'px';
    update.autosize = true;
  }
  return Plotly.relayout(chart, update);
}
function show(i) {
  slider.value = i;
  out.textContent = L.theta_text[i];
  // a screen reader announces θ, not the slider's index into the grid
  slider.setAttribute('aria-valuetext', 'θ = ' + L.theta_text[i]);
  for (const [k, v] of Object.entries(L.numbers)) {
    document.getElementById('num_' + k).textContent = pick(v, i);
  }
  for (const [k, v] of Object.entries(L.notes)) {
    document.getElementById('note_' + k).textContent = pick(v, i);
  }
  for (const [k, v] of Object.entries(L.cards)) {
    document.getElementById('short_' + k).innerHTML = pick(v.short, i);
    document.getElementById('long_' + k).innerHTML = pick(v.long, i);
  }
  if (L.demo) {
    document.getElementById('demo_truncated').textContent = L.demo.truncated[i];
    document.getElementById('bar_truncated').style.width = (100 * L.demo.bar[i]) + '%';
  }
  if (L.draws && L.draws.answers) drawAnswers(i);
  const hist = document.getElementById('histogram');
  if (L.histogram && window.Plotly && hist && hist.data) {  // its θ line (shapes[0]) too
    const x = L.thetas[i];
    Plotly.relayout(hist, {'shapes[0].x0': x, 'shapes[0].x1': x, 'annotations[0].x': x});
  }
  // The chart's marker and readout (a relayout: tens of ms) follow in the next frame, after
  // the numbers; steps faster than that draw only the latest θ.
  if (window.Plotly && chart.data) {
    if (pending === null) requestAnimationFrame(moveMarker);
    pending = i;
  }
  remember(i);
}
function drawAnswers(i) {
  // The answers, the true answer and where they centre, on one line scaled to this θ.
  const D = L.draws, xs = D.answers[i];
  const all = xs.concat([D.truth, D.centre[i]]);
  let lo = Math.min(...all), hi = Math.max(...all);
  const pad = 0.08 * (hi - lo || Math.abs(hi) || 1);
  lo -= pad; hi += pad;
  const at = (v) => (100 * (v - lo) / (hi - lo)) + '%';
  document.getElementById('strip_truth').style.left = at(D.truth);
  document.getElementById('strip_centre').style.left = at(D.centre[i]);
  document.querySelectorAll('#strip .dot').forEach((e, k) => { e.style.left = at(xs[k]); });
  document.getElementById('draws_answers').textContent = D.answers_text[i];
  document.getElementById('draws_centre').textContent = D.centre_text[i];
}
let pending = null;
function moveMarker() {
  const x = L.thetas[pending];
  const text = fitted(L.readout[pending]);
  pending = null;
  Plotly.relayout(chart, {'shapes[0].x0': x, 'shapes[0].x1': x, 'annotations[0].text': text});
}
function remember(i) {
  // In the app: keep this tab's θ across reruns and in the address bar (same origin).
  try {
    const p = window.parent;
    if (p === window) return;
    p.__dpsumTheta = {server: L.start, index: i, theta: String(L.thetas[i])};
    p.dispatchEvent(new CustomEvent('dpsum-theta', {detail: p.__dpsumTheta}));
    const url = new URL(p.location.href);
    if (url.searchParams.has('theta')) {
      url.searchParams.set('theta', String(L.thetas[i]));
      p.history.replaceState(p.history.state, '', url);
    }
  } catch (e) { /* opened from disk: nothing to keep */ }
}
function draw(i) {
  const x = L.thetas[i];
  fig.layout.shapes[0].x0 = x; fig.layout.shapes[0].x1 = x;
  fig.layout.annotations[0].text = fitted(L.readout[i]);
  if (axisTitle) xAxis.title.text = fitted(axisTitle, chart.clientWidth - AXIS_PX);
  drawnNarrow = narrow();
  fig.layout.height = fit();
  // The div is as tall as the figure: with responsive, plotly sizes its svg to 100% of the
  // div, and a grid cell left to its content is as tall as the θ column, not the figure (the
  // figure then overflowed onto the explanations under it).
  chart.style.height = fig.layout.height + 'px';
  // window.lessonDrawn: resolved once the chart is drawn and arranged (tests wait for it)
  // said both ways: a chart drawn again keeps its context's last value otherwise
  const config = Object.assign({}, CONFIG, {displayModeBar: narrow() ? false : 'hover'});
  window.lessonDrawn = Plotly.newPlot(chart, fig.data, fig.layout, config).then(arrange);
  if (L.histogram) {  // its θ line (shapes[0], labelled by annotations[0]) at θ too
    const hl = L.histogram.layout;
    if (hl.shapes && hl.shapes.length) { hl.shapes[0].x0 = x; hl.shapes[0].x1 = x; }
    if (hl.annotations && hl.annotations.length) hl.annotations[0].x = x;
    Plotly.newPlot('histogram', L.histogram.data, L.histogram.layout,
                   CONFIG);
  }
}
// In the app: the downloads are made here, from the θ on screen (the server drew the page at
// the θ it started from; a θ step tells it nothing).
function save(name, text, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], {type}));
  a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
}
const safe = (value) => JSON.stringify(value).replace(/<\\//g, '<\\\\/');
function exported(i) {
  // The chart as the files show it: the whole figure (title, axis title), θ's marker and
  // readout at i, without the annotations that speak of the interactive chart.
  const E = L.export, f = JSON.parse(JSON.stringify(E.figure)), x = L.thetas[i];
  f.layout.shapes[0].x0 = x; f.layout.shapes[0].x1 = x;
  f.layout.annotations[0].text = L.readout[i];
  f.layout.annotations = f.layout.annotations.filter((a) => a.name !== E.interactive_only);
  return f;
}
async function plotlyInline() {
  const src = await (await fetch(document.getElementById('plotly-js').src)).text();
  return '<script id="plotly-js">' + src + '<\\/script>';
}
async function download(kind) {
  const E = L.export, i = Number(slider.value), f = exported(i);
  if (kind === 'png' || kind === 'svg') {
    const url = await Plotly.toImage(f, {format: kind, width: E.width, height: E.height,
                                         scale: kind === 'png' ? 2 : 1});
    save(E.stem + '.' + kind, await (await fetch(url)).blob());
  } else if (kind === 'html') {
    const js = await plotlyInline();
    save(E.stem + '.html', '<!DOCTYPE html><html><head><meta charset="utf-8">' + js +
         '</head><body><div id="dpsum-figure" style="height:' + E.height + 'px"></div><script>' +
         'Plotly.newPlot("dpsum-figure", ' + safe(f.data) + ', ' + safe(f.layout) +
         ', ' + safe(CONFIG) + ');<\\/script></body></html>', 'text/html');
  } else {  // the lesson: this page on its own, opening at θ, plotly.js inline
    const payload = Object.assign({}, L, E.lesson.payload, {start: i});
    delete payload.export;
    const js = await plotlyInline();
    const page = E.lesson.shell.split(E.lesson.plotly_mark).join(js)
      .split(E.lesson.data_mark).join(safe(payload));
    save(E.lesson.name, page, 'text/html');
  }
}
if (L.export) {
  document.querySelectorAll('#tools button').forEach((b) => {
    b.addEventListener('click', () => download(b.dataset.kind));
  });
}
let start = L.start;
try {
  const kept = window.parent !== window && window.parent.__dpsumTheta;
  if (kept && kept.server === L.start) start = kept.index;
} catch (e) { /* opened from disk */ }
slider.addEventListener('input', () => show(Number(slider.value)));
// A narrower window (the sidebar opened) can add legend rows: the rows are arranged again
// once plotly has resized the chart (window.lessonDrawn: resolved when done); a chart turned
// narrow or wide is drawn anew (its wrapped texts and mode bar).
let resized = null;
window.addEventListener('resize', () => {
  clearTimeout(resized);
  resized = setTimeout(() => {
    if (!chart._fullLayout) return;
    if (narrow() !== drawnNarrow) draw(Number(slider.value));
    else window.lessonDrawn = Promise.resolve(window.lessonDrawn).then(arrange);
  }, 300);
});
show(start);
if (window.Plotly) draw(start);
else document.getElementById('plotly-js').addEventListener('load', () => draw(Number(slider.value)));
"""


def lesson_html(payload: dict, *, plotly_src: str | None = None, data: str | None = None) -> str:
    """The lesson page. ``plotly_src``: a URL of plotly.js (the app), or None to put plotly.js
    inline (the downloaded file: works from disk with no network); ``data``: text put where
    the payload's JSON goes (a mark the page in the app replaces, :func:`lesson_shell`).

    With ``payload["export"]`` (:func:`export_payload`) the page offers the downloads at the
    θ on screen, made in the browser."""
    p = payload
    if plotly_src is None:
        script = f'<script id="plotly-js">{plotly_source()}</script>'
    else:
        script = f'<script id="plotly-js" src="{html.escape(plotly_src)}"></script>'
    numbers = "".join(
        f'<div class="metric"><div class="label">{html.escape(label)}</div>'
        f'<div class="value" id="num_{key}"></div>'
        + (f'<div class="note" id="note_{key}"></div>' if key in p["notes"] else "")
        + "</div>"
        for key, label in p["number_labels"].items()
    )
    cards = "".join(
        f'<div class="card"><h2>{html.escape(title)}</h2><details><summary>'
        f'<span id="short_{key}"></span> <span class="more">More…</span></summary>'
        f'<p id="long_{key}"></p></details></div>'
        for key, title in p["card_titles"].items()
    )
    demos = _demos(p)
    # what the lesson file discloses (data other than a sample), as the button's help
    helps = (p.get("export") or {}).get("lesson", {}).get("help")
    tools = (
        '<div id="tools"><button type="button" data-kind="lesson"'
        + (f' title="{html.escape(helps)}"' if helps else "")
        + '>Download this lesson</button> (one offline HTML file) · the chart: '
        + "".join(f'<button type="button" data-kind="{k}">{k.upper()}</button>'
                  for k in ("png", "svg", "html"))
        + " (all at the θ on screen)</div>"
        if p.get("export") else ""
    )
    extra = ""
    if p.get("histogram") is not None:
        settings = "".join(
            f"<li>{html.escape(k)}: {html.escape(v)}</li>" for k, v in p["settings"].items()
        )
        extra = (
            '<div class="extra"><h2>The data</h2><div id="histogram"></div>'
            f'<h2>Settings</h2><ul class="settings">{settings}</ul>'
            f'<p class="hint">{html.escape(p["footer"])}</p></div>'
        )
    heading = (
        f"<h1 style='font-size:24px;margin:0 0 8px 0'>{html.escape(p['title'])}</h1>"
        + (f'<p class="hint" id="notice">{html.escape(p["notice"])}</p>'
           if p.get("notice") else "")
        if p.get("histogram") is not None
        else ""
    )
    body_class = ' class="standalone"' if heading else ""
    slider = html.escape(p.get("slider_label", "Truncation threshold θ"))
    # the numbers are exact (true answer, counts): said beside them, on a projector too
    unnoised = f'<p class="hint" id="unnoised">{html.escape(p["unnoised"])}</p>'
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(p['title'])}</title><style>{_STYLE}</style>{script}</head>"
        f"<body{body_class}>"
        f'{heading}<div class="lesson"><div class="side"><div class="theta">'
        f'<label for="theta">{slider}</label><output id="theta_value"></output>'
        f'<input type="range" id="theta" min="0" max="{len(p["thetas"]) - 1}" step="1" '
        f'aria-label="{slider}"></div>'
        f'<div id="numbers">{numbers}</div>{unnoised}</div><div id="chart"></div>'
        f'<div id="cards">{cards}</div>{tools}{demos}{extra}</div>'
        f'<script type="application/json" id="lesson-data">'
        f"{_json(p) if data is None else data}</script>"
        f"<script>const PLOTLY_CONFIG = {_json(PLOTLY_CONFIG)};{_SCRIPT}</script></body></html>"
    )


def _demos(p: dict) -> str:
    """The two demonstrations under the cards: one person with a huge value, and the repeated
    noisy answers next to the true answer (filled and moved by the script, with θ)."""
    demo, draws = p.get("demo"), p.get("draws")
    if demo is None or draws is None:
        return ""
    esc = html.escape
    huge = (
        f'<section class="panel" id="demo"><h2>{esc(demo["title"])}</h2>'
        f'<p>{esc(demo["intro"])}</p><p id="demo_untruncated">{esc(demo["untruncated"])}</p>'
        '<div class="bar"><div id="bar_untruncated"></div></div>'
        '<p id="demo_truncated"></p><div class="bar"><div id="bar_truncated"></div></div>'
        f'<p class="key">{esc(demo["outro"])}</p></section>'
    )
    if "answers" in draws:
        dots = "".join('<span class="dot"></span>' for _ in draws["answers"][0])
        body = (
            f'<div class="strip" id="strip" role="img" aria-label="{esc(draws["title"])}">'
            f'<span class="tick" id="strip_truth"></span>'
            f'<span class="tick" id="strip_centre"></span>{dots}</div>'
            '<p class="key">black: the true answer · orange dashes: their expected centre · '
            'dots: the noisy answers</p>'
            f'<p>{esc(draws["truth_text"])}; answers: <span id="draws_answers"></span></p>'
            '<p id="draws_centre"></p>'
        )
    else:
        body = ""
    spread = (
        f'<section class="panel" id="draws"><h2>{esc(draws["title"])}</h2>{body}'
        f'<p class="key">{esc(draws["note"])}</p></section>'
    )
    return f'<div id="demos">{huge}{spread}</div>'


def figure_json(fig: go.Figure) -> dict:
    """A figure as plain JSON data (numpy arrays as lists, plotly.js's own format)."""
    return json.loads(pio.to_json(fig, validate=False, engine="json"))


# Marks in a lesson shell (:func:`lesson_shell`), replaced in the browser by plotly.js and by
# the payload at the θ on screen.
_PLOTLY_MARK = "dpsum-plotly-inline"
_DATA_MARK = "dpsum-lesson-data"


def lesson_shell(payload: dict) -> dict:
    """The downloadable lesson with two holes, for the page in the app to fill at the θ on
    screen: ``shell`` (the page's HTML, made by :func:`lesson_html`), ``plotly_mark`` (the tag
    that becomes plotly.js inline), ``data_mark`` (where the payload's JSON goes)."""
    shell = lesson_html(payload, plotly_src=_PLOTLY_MARK, data=_DATA_MARK)
    return {
        "shell": shell,
        "plotly_mark": f'<script id="plotly-js" src="{_PLOTLY_MARK}"></script>',
        "data_mark": _DATA_MARK,
    }


THETA_MARK = "DPSUM_THETA"  # where θ goes in a link given to :func:`share_html`


def share_html(link: str, theta: str) -> str:
    """The Share popover's link on Single query, with the θ on screen: ``link`` has
    :data:`THETA_MARK` where θ's value goes; ``theta``: the value the server drew the page at,
    shown until the lesson frame (same page, same origin) says where θ is now."""
    before, _, after = link.partition(THETA_MARK)
    parts = _json({"before": before, "after": after, "theta": theta})
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><style>'
        "body { margin: 0; font-family: 'Source Code Pro', monospace; font-size: 14px; }"
        "code { display: block; white-space: pre-wrap; word-break: break-all; padding: 8px;"
        " background: #F0F2F6; border-radius: 6px; }"
        "button { margin-top: 4px; font: 14px 'Source Sans Pro', sans-serif; }"
        '</style></head><body><code id="link"></code>'
        '<button type="button" id="copy">Copy the link</button><script>'
        f"const S = {parts};"
        """
const code = document.getElementById('link');
function show() {
  let theta = S.theta;
  try { const kept = window.parent.__dpsumTheta; if (kept && kept.theta) theta = kept.theta; }
  catch (e) { /* not inside the app */ }
  code.textContent = S.before + theta + S.after;
}
show();
try {
  window.parent.addEventListener('dpsum-theta', show);
  window.addEventListener('pagehide', () => window.parent.removeEventListener('dpsum-theta', show));
} catch (e) { /* not inside the app */ }
document.getElementById('copy').addEventListener('click', () => {
  navigator.clipboard.writeText(code.textContent);
});
</script></body></html>"""
    )
