// The browser side of dpviz.widgets.figure_widget.ExplorerFigure: an anywidget module that starts plotly's own
// model and views once the page's plotly bundle (sent once per kernel by PlotlyLoader) is compiled.
//
// Why it is not plotly's module itself: anywidget (0.9-0.11) gives a model two seconds
// (AbortSignal.timeout(2000)) for its module and `initialize` to be ready; past that, its `_handle_comm_msg`
// awaits a rejected promise and every update the kernel sends this figure afterwards is dropped
// ("[anywidget] Failed to initialize model."), while the controls beside it keep moving.  plotly's bundle takes
// 1.3-2.1 s to compile on an idle machine and 27 s on a CPU slowed 6x, so this module returns at once and starts
// plotly's model when the bundle is ready; a view shows "Loading the figure..." until then.
//
// Even this small module can miss the two seconds when the page's main thread is held longer than that (the
// bundle's compile is one long task on a slow or busy machine): measured with Chromium slowed 6x on a server at
// load 35, 3 of 110 fresh Voila visits froze that way.  So `initialize` also takes the figure's comm messages
// from anywidget's gate (a module that runs is a module that is ready: the gate has nothing left to wait for)
// and asks the kernel whether the page missed an update; if it did, the kernel sends the figure whole and every
// view is drawn again from it.
//
// If the kernel changed the figure after the page had it but before plotly's model listened, the page asks for
// the figure as it is now (ExplorerFigure._on_page_message sends only what differs) and draws no view before the
// answer is in: plotly's model ignores a new `_widget_data`, a view reads it once, when it first draws.  A view
// never waits for the other question (`check`): in JupyterLab the kernel answers only between cells, so waiting
// would hold every figure of a "Run all".
const slot = (globalThis[Symbol.for("__DPVIZ_SLOT__")] ??= {});
slot.url ??= new Promise((resolve) => { slot.resolve = resolve; });

const names = ["_widget_data", "_widget_layout", "_py2js_addTraces", "_py2js_deleteTraces",
  "_py2js_moveTraces", "_py2js_restyle", "_py2js_relayout", "_py2js_update", "_py2js_animate",
  "_py2js_removeLayoutProps", "_py2js_removeTraceProps"];
const plotly = () => (slot.widget ??= slot.url.then((url) => import(url)).then((m) => m.default));

// Route the model's comm messages straight to ipywidgets' handler, past anywidget's wait for its (possibly
// rejected) start.  anywidget hands `initialize` a proxy of the model; a change event hands its listener the
// model itself.  Returns whether the route was changed: false (and a console warning) if this anywidget or
// ipywidgets is not shaped as checked (anywidget 0.9-0.11, ipywidgets 8).
function ungate(model) {
  let self = null;
  const grab = (m) => { self = m; };
  model.on("change:_dpviz_self", grab);
  model.set("_dpviz_self", Date.now());   // a page-only attribute: the kernel ignores it if it is ever sent
  model.off("change:_dpviz_self", grab);
  const gate = self && Object.getPrototypeOf(self);   // anywidget's AnyModel
  const base = gate && Object.getPrototypeOf(gate);   // ipywidgets' DOMWidgetModel
  if (!(base && Object.hasOwn(gate, "_handle_comm_msg") && typeof base._handle_comm_msg === "function" &&
        self.comm && typeof self.comm.on_msg === "function")) {
    console.warn("dpviz: this anywidget/ipywidgets is not the one checked; a figure that starts late may freeze");
    return false;
  }
  self.comm.on_msg((msg) => base._handle_comm_msg.call(self, msg));
  return true;
}

// Ask the kernel `question` ("resync" or "check"); resolves with whether it sent the figure anew.
function ask(model, question, signal) {
  return new Promise((resolve, reject) => {
    const done = (msg) => {
      if (msg && (msg.dpviz === "resynced" || msg.dpviz === "current")) {
        model.off("msg:custom", done);
        resolve(msg.dpviz === "resynced");
      }
    };
    model.on("msg:custom", done);
    signal?.addEventListener("abort", () => { model.off("msg:custom", done); reject(signal.reason); });
    model.send({ dpviz: question, layout_edit_id: model.get("_last_layout_edit_id"),
                 trace_edit_id: model.get("_last_trace_edit_id") });
  });
}

// A text alternative: the figure's title (every explorer states its parameters and result there) in a visually
// hidden live region, so a screen reader hears each redraw.
function announce(ctx) {
  const said = document.createElement("p");
  said.className = "dpviz-figure-text";
  said.setAttribute("aria-live", "polite");
  said.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);" +
                       "white-space:nowrap;margin:0";
  let gd = null;
  const say = () => {
    if (said.parentNode !== gd) gd.appendChild(said);   // (again, if a full redraw emptied the plot)
    const t = gd.layout && gd.layout.title;
    const raw = (t && (typeof t === "string" ? t : t.text)) || "no title";
    // a title's <br> and <b> are markup, not words: line breaks become "; ", tags and entities are read
    const plain = new DOMParser().parseFromString(raw.replace(/<br\s*\/?>/gi, "; "), "text/html");
    const text = "Figure: " + (plain.documentElement.textContent || "").trim();
    if (said.textContent !== text) said.textContent = text;
  };
  let frames = 0;
  const attach = () => {   // plotly draws the plot div asynchronously (give up after ~10 s of frames)
    if (ctx.signal?.aborted || ++frames > 600) return;
    // plotly's view draws into its own element
    gd = ctx.el.classList.contains("js-plotly-plot") ? ctx.el : ctx.el.querySelector(".js-plotly-plot");
    if (gd && gd.on) { gd.on("plotly_afterplot", say); say(); } else requestAnimationFrame(attach);
  };
  attach();
}

export default () => {
  let real = null;
  let started = false;   // plotly's model runs and holds the kernel's figure as it is now: views may draw
  let ready = null;
  const views = new Set();   // each drawn view: {ctx, cleanup, turn}

  const draw = async (view) => {
    const turn = ++view.turn;
    const cleanup = await real.render(view.ctx);
    if (turn !== view.turn) {   // drawn again (or closed) while plotly drew this one: it is not shown
      await cleanup?.();
      return;
    }
    view.cleanup = cleanup;
    announce(view.ctx);
  };
  const redraw = async () => {   // the kernel sent the figure anew: plotly's views read it only when they draw
    for (const view of views) {
      const cleanup = view.cleanup;
      view.cleanup = null;
      await cleanup?.();
      view.ctx.el.replaceChildren();
      await draw(view);
    }
  };

  return {
    initialize(ctx) {
      const model = ctx.model;
      const ungated = ungate(model);
      let missed = false;   // the kernel changed the figure before plotly's model listened
      const note = () => { missed = true; };
      for (const name of names) model.on("change:" + name, note);
      ready = plotly().then((make) => {
        real = make();
        real.initialize(ctx);
        for (const name of names) model.off("change:" + name, note);
        if (missed) return ask(model, "resync", ctx.signal);
        if (ungated) {   // updates anywidget dropped before this ran are not seen here: the kernel knows
          ask(model, "check", ctx.signal).then((sent) => sent && started && redraw())
            .catch((error) => { if (!ctx.signal?.aborted) console.error("dpviz: figure check failed", error); });
        }
      }).then(() => { started = true; });
      ready.catch((error) => {
        if (!ctx.signal?.aborted) console.error("dpviz: the plotly figure could not start", error);
      });
    },
    async render(ctx) {
      if (!started) {
        const note = document.createElement("div");
        note.className = "dpviz-figure-loading";
        note.setAttribute("role", "status");
        note.textContent = "Loading the figure\u2026";
        ctx.el.appendChild(note);
        try {
          await ready;
        } catch (error) {
          if (!ctx.signal?.aborted) note.textContent = "The figure could not start (" + error + "); reload the page.";
          return;
        }
        note.remove();
      }
      const view = { ctx, cleanup: null, turn: 0 };
      views.add(view);
      await draw(view);
      return () => {
        views.delete(view);
        view.turn += 1;
        return view.cleanup?.();
      };
    },
  };
};
