"""The HTML of an exported explorer: plotly.js and the frames embedded, a labelled range input switching them.

The page needs no network and no Python.  plotly.js is the bundle of the installed plotly package (the very
version the live explorer draws with), gzipped and base64-encoded (4.8 MB -> 1.96 MB); the frames likewise
(:mod:`dpviz.export.packing`).  The browser inflates both with its ``DecompressionStream`` (Chrome/Edge 80+,
Firefox 113+, Safari 16.4+).  Each grid value gets its own plot, drawn once with ``Plotly.newPlot``: the
starting value's first, then the two one step away, and only then is the control enabled; the others are drawn
while the page is idle, always the one nearest the value shown.  Moving the range input shows that plot (the others are
``display: none``, out of the render tree) and swaps the side panels' HTML, and its ``aria-valuetext`` says the
value (``ε = 0.1``): a key press swaps drawn plots, much cheaper than a redraw with ``Plotly.react``; a jump to
a value not drawn yet costs a ``Plotly.newPlot`` (benchmarks/bench_exports.py measures both).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from dpviz.export.frames import Snapshot
from dpviz.export.packing import gzip_base64, pack

__all__ = ["page_html", "plotly_bundle"]


def plotly_bundle() -> bytes:
    """The full plotly.js bundle shipped with the installed plotly package (``plotly/package_data``).

    Returns
    -------
    bytes
        The minified bundle.
    """
    import plotly

    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()


_SCRIPT = r"""
(async function () {
  const b64 = id => Uint8Array.from(atob(document.getElementById(id).textContent.trim()), c => c.charCodeAt(0));
  const inflate = async id => new Uint8Array(await new Response(
    new Blob([b64(id)]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  const status = document.getElementById("dpviz-status");
  try {
    const lib = document.createElement("script");
    lib.textContent = new TextDecoder().decode(await inflate("dpviz-plotly"));
    document.head.appendChild(lib);
    const meta = JSON.parse(document.getElementById("dpviz-meta").textContent);
    const packed = JSON.parse(new TextDecoder().decode(await inflate("dpviz-frames")));
    const blob = await inflate("dpviz-arrays");
    const WIDTH = {i1: 1, u1: 1, i2: 2, u2: 2, i4: 4, u4: 4, f4: 4, f8: 8};
    const arrays = packed.arrays.map(([dtype, offset, length]) => {
      const w = WIDTH[dtype], n = length / w, src = blob.subarray(offset, offset + length);
      const out = new Uint8Array(length);
      for (let p = 0; p < w; p++) for (let j = 0; j < n; j++) out[j * w + p] = src[p * n + j];
      return [dtype, out.buffer];
    });
    const revive = (key, value) => {
      if (value && typeof value === "object" && "$a" in value) {
        const [dtype, buffer] = arrays[value["$a"]];
        const spec = Object.assign({}, value, {dtype: dtype, bdata: buffer});
        delete spec["$a"];
        return spec;
      }
      return value;
    };
    const piece = i => JSON.parse(packed.pieces[i], revive);
    const box = document.getElementById("dpviz-figure");
    const input = document.getElementById("dpviz-control");
    const shown = document.getElementById("dpviz-value");
    const panels = document.getElementById("dpviz-panels");
    // one plot per grid value, drawn once (the first shown at once, the others while the page is idle):
    // moving the control then only swaps which plot is visible
    const plots = packed.frames.map(() => null);
    async function draw(k) {
      if (!plots[k]) {
        const div = document.createElement("div");
        div.className = "dpviz-frame dpviz-drawing";
        div.dataset.frame = String(k);
        div.dataset.epoch = String(epoch);   // laid out at the window size of this epoch
        box.appendChild(div);
        const frame = packed.frames[k];
        const layout = {};
        for (const [key, i] of Object.entries(frame.layout)) layout[key] = piece(i);
        // no mode bar: one per drawn value made 21 bars of 10 hidden buttons each; drag to zoom, double-click
        // to reset still work
        plots[k] = Plotly.newPlot(div, frame.data.map(piece), layout, {displayModeBar: false}).then(() => {
          if (div !== current) place(div, placement(k));
          return div;
        });
      }
      return plots[k];
    }
    let current = null;
    // the frame's state is one of four classes; plotly's own classes on the div (js-plotly-plot, which its
    // stylesheet keys on) must stay, so classList, never className
    const STATES = ["dpviz-drawing", "dpviz-near", "dpviz-hidden", "dpviz-shown"];
    const place = (div, state) => { div.classList.remove(...STATES); div.classList.add(state); };
    // the plots one step from the one shown stay laid out (invisible, over it): showing one is a swap of
    // visibility, not the layout of a thousand SVG elements; the others are out of the render tree
    const placement = k =>
      (current && Math.abs(k - Number(current.dataset.frame)) === 1 ? "dpviz-near" : "dpviz-hidden");
    // a window resize lays out the plot shown; the others are laid out again when next shown
    let epoch = 0;
    window.addEventListener("resize", () => { epoch += 1; if (current) { Plotly.Plots.resize(current);
      current.dataset.epoch = String(epoch); } });
    async function show(k) {
      const div = await draw(k);
      current = div;
      place(div, "dpviz-shown");
      if ((div.dataset.epoch || "0") !== String(epoch)) {
        div.dataset.epoch = String(epoch);
        Plotly.Plots.resize(div);
      }
      plots.forEach((p, j) => { if (p && j !== k) p.then(d => { if (d !== current) place(d, placement(j)); }); });
      const text = meta.label + " = " + meta.labels[k];
      input.setAttribute("aria-valuetext", text);
      shown.textContent = meta.labels[k];
      panels.innerHTML = packed.frames[k].panels.filter(p => p).join("");
      document.body.dataset.shown = String(k);
    }
    let queue = Promise.resolve();
    // one failed draw must not stop the later moves: the error goes to the console, the queue goes on
    const enqueue = k => (queue = queue.then(() => show(k)).catch(err => console.error(err)));
    input.addEventListener("input", () => enqueue(Number(input.value)));
    window.dpvizShow = k => { input.value = String(k); return enqueue(k); };
    window.dpvizDrawAll = () => Promise.all(packed.frames.map((_, k) => draw(k)));
    const start = Number(input.value);
    await show(start);
    // the values one step away are drawn before the control is live: a first key press only swaps plots
    for (const j of [start + 1, start - 1]) if (j >= 0 && j < plots.length) await draw(j);
    status.textContent = "";
    input.disabled = false;
    document.body.dataset.ready = "true";
    // the others while the page is idle, always the one nearest the value shown first
    const idle = window.requestIdleCallback || (f => setTimeout(f, 50));
    const next = () => {
      const at = Number(document.body.dataset.shown);
      let k = -1;
      plots.forEach((p, j) => { if (!p && (k < 0 || Math.abs(j - at) < Math.abs(k - at))) k = j; });
      if (k >= 0) draw(k).catch(err => console.error(err)).then(() => idle(next));
    };
    idle(next);
  } catch (err) {
    status.textContent = "This page needs a browser with DecompressionStream (Chrome 80+, Firefox 113+, " +
      "Safari 16.4+): " + err;
    console.error(err);
  }
})();
"""

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1em; color: #222; }
h1 { font-size: 1.15em; }
.dpviz-controls { display: flex; align-items: center; gap: 0.8em; flex-wrap: wrap; }
#dpviz-control { width: 420px; max-width: 90vw; }
#dpviz-value { font-variant-numeric: tabular-nums; min-width: 5em; font-weight: bold; }
.dpviz-fixed, .dpviz-note { color: #555; font-size: 0.9em; }
#dpviz-figure { width: 100%; min-height: 450px; position: relative; }
.dpviz-frame.dpviz-drawing, .dpviz-frame.dpviz-near { position: absolute; top: 0; left: 0; width: 100%;
  visibility: hidden; pointer-events: none; }
/* plotly sets visibility: visible on some of its layers, which would show through a hidden frame */
.dpviz-frame.dpviz-drawing *, .dpviz-frame.dpviz-near * { visibility: hidden !important; }
.dpviz-frame.dpviz-hidden { display: none; }
"""


def page_html(snap: Snapshot) -> str:
    """The self-contained HTML page of ``snap``.

    Parameters
    ----------
    snap : Snapshot
        The explorer's frames (:func:`dpviz.export.frames.snapshot`).

    Returns
    -------
    str
        The page.
    """
    pieces, arrays, blob = pack(snap.pieces)
    frames = json.dumps({"pieces": pieces, "arrays": arrays, "frames": snap.frames},
                        separators=(",", ":")).encode()
    meta: dict[str, Any] = {"name": snap.name, "control": snap.control, "label": snap.label,
                            "labels": snap.labels, "values": snap.values, "start": snap.start}
    meta_json = json.dumps(meta).replace("</", "<\\/")
    fixed = ", ".join(f"{html.escape(k)} = {html.escape(v)}" for k, v in snap.fixed.items())
    label = html.escape(snap.label)
    last = len(snap.values) - 1
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(snap.name)}: {html.escape(snap.title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<h1>{html.escape(snap.title)}</h1>
<div class="dpviz-controls">
<label for="dpviz-control">{label}</label>
<input type="range" id="dpviz-control" min="0" max="{last}" step="1" value="{snap.start}" disabled
 aria-valuetext="{label} = {html.escape(snap.labels[snap.start])}">
<output id="dpviz-value" for="dpviz-control">{html.escape(snap.labels[snap.start])}</output>
</div>
<p class="dpviz-fixed">Precomputed at {len(snap.values)} values of {label}, spread over the live slider's range
(each one a value the live slider can take); the other controls fixed: {fixed}.</p>
<p id="dpviz-status" class="dpviz-note">Loading the figure…</p>
<div id="dpviz-figure"></div>
<div id="dpviz-panels"></div>
<p class="dpviz-note">A kernel-free export of <code>dpviz.widgets.{html.escape(snap.name)}</code>: every figure and
number is what the live explorer shows at these settings. Move every control, and any value, in the live explorer
(<code>make lab</code> or <code>make app</code>).</p>
<script type="application/json" id="dpviz-meta">{meta_json}</script>
<script type="application/octet-stream" id="dpviz-plotly">{gzip_base64(plotly_bundle())}</script>
<script type="application/octet-stream" id="dpviz-frames">{gzip_base64(frames)}</script>
<script type="application/octet-stream" id="dpviz-arrays">{gzip_base64(blob)}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""
