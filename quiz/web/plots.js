// quiz/web/plots.js: the page's plots, drawn as inline SVG from data the C++ API computes
// (api.cpp: mpq_plot_histogram, mpq_plot_weights, mpq_plot_sums, mpq_plot_numberline). No library.
"use strict";
const Plots = (() => {
  const NS = "http://www.w3.org/2000/svg";
  function el(tag, attrs = {}, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(w, h, label) {
    const s = el("svg", { viewBox: `0 0 ${w} ${h}`, role: "img", "aria-label": label, class: "plot" });
    s.appendChild(el("title", {}, label));
    return s;
  }
  const fmtNum = (v) => (v === null ? "inf" : Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : String(+v.toPrecision(6)));

  /// Q2/Q7: one panel per format; x = log2 of the gradient, bars stacked by what g x S becomes.
  function histogram(data, t) {
    const wrap = document.createElement("div");
    const W = 640, H = 210, L = 44, R = 10, T = 18, B = 34;
    const x0 = -44, x1 = 4;
    const X = (e) => L + ((e - x0) / (x1 - x0)) * (W - L - R);
    const log2S = Math.log2(data.scale);
    for (const f of data.formats) {
      const s = svg(W, H, `${f.name}: ${t.histogram_label}`);
      const maxc = Math.max(...f.bins.map((b) => b.count), 1);
      const Y = (c) => T + (H - T - B) * (1 - c / maxc);
      // windows of g (log2): zero below log2(min_sub / 2 / S), subnormal up to min_normal / S, normal up to max / S
      const wz = Math.log2(f.min_subnormal / 2) - log2S, ws = Math.log2(f.min_normal) - log2S, wn = Math.log2(f.max) - log2S;
      const win = [["zero", x0, wz], ["subnormal", wz, ws], ["normal", ws, wn], ["overflow", wn, x1]];
      for (const [cls, a, b] of win) {
        const xa = X(Math.max(x0, Math.min(x1, a))), xb = X(Math.max(x0, Math.min(x1, b)));
        if (xb > xa) s.appendChild(el("rect", { x: xa, y: T, width: xb - xa, height: H - T - B, class: `win win-${cls}` }));
      }
      for (const b of f.bins) {
        let y = H - B;
        for (const cls of ["zero", "subnormal", "normal", "overflow"]) {
          if (!b[cls]) continue;
          const h = (H - T - B) * (b[cls] / maxc);
          y -= h;
          s.appendChild(el("rect", { x: X(b.e) + 1, y, width: Math.max(1, X(b.e + 1) - X(b.e) - 2), height: h, class: `bar bar-${cls}` }));
        }
      }
      s.appendChild(el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }));
      for (let e = -40; e <= 0; e += 8) {
        s.appendChild(el("line", { x1: X(e), y1: H - B, x2: X(e), y2: H - B + 4, class: "axis" }));
        s.appendChild(el("text", { x: X(e), y: H - B + 16, "text-anchor": "middle", class: "tick" }, `2^${e}`));
      }
      s.appendChild(el("text", { x: L, y: 13, class: "plot-title" }, `${f.name} · ${t.scale} ${data.scale}`));
      s.appendChild(el("text", { x: W - R, y: H - 4, "text-anchor": "end", class: "tick" }, t.gradient_axis));
      const p = document.createElement("p");
      p.className = "plot-summary";
      p.dataset.format = f.name;
      p.textContent = `${f.name}: ${t.zero} ${f.zero} · ${t.subnormal} ${f.subnormal} · ${t.normal} ${f.normal} · ${t.overflow} ${f.overflow} (${data.total})`;
      wrap.append(s, p);
    }
    const legend = document.createElement("p");
    legend.className = "legend";
    legend.innerHTML = ["zero", "subnormal", "normal", "overflow"].map((c) => `<span class="key key-${c}"></span>${t[c]}`).join(" ");
    wrap.appendChild(legend);
    return wrap;
  }

  /// Q1 and Q4: lines per format against the step.
  function lines(data, t, title, yLabel) {
    const W = 640, H = 240, L = 60, R = 70, T = 20, B = 30;
    const xs = data.series[0].points.map((p) => p[0]);
    const xmax = Math.max(...xs, 1);
    let ymin = Infinity, ymax = -Infinity;
    const exactEnd = data.exact;
    for (const se of data.series) for (const [, y] of se.points) if (y !== null) { ymin = Math.min(ymin, y); ymax = Math.max(ymax, y); }
    if (exactEnd !== null) { ymin = Math.min(ymin, exactEnd, data.series[0].points[0][1]); ymax = Math.max(ymax, exactEnd); }
    if (ymax === ymin) { ymax += 1; ymin -= 1; }
    const X = (x) => L + (x / xmax) * (W - L - R), Y = (y) => T + (H - T - B) * (1 - (y - ymin) / (ymax - ymin));
    const s = svg(W, H, title);
    s.appendChild(el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }));
    s.appendChild(el("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
    for (const v of [ymin, (ymin + ymax) / 2, ymax]) s.appendChild(el("text", { x: L - 4, y: Y(v) + 4, "text-anchor": "end", class: "tick" }, fmtNum(v)));
    for (const v of [0, xmax / 2, xmax]) s.appendChild(el("text", { x: X(v), y: H - B + 16, "text-anchor": "middle", class: "tick" }, String(Math.round(v))));
    if (exactEnd !== null) {
      const y0 = data.series[0].points[0][1];
      s.appendChild(el("line", { x1: X(0), y1: Y(y0), x2: X(xmax), y2: Y(exactEnd), class: "exact" }));
      s.appendChild(el("text", { x: W - R + 4, y: Y(exactEnd) + 4, class: "tick" }, t.exact));
    }
    data.series.forEach((se, k) => {
      const d = se.points.filter((p) => p[1] !== null).map((p, i) => `${i ? "L" : "M"}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join("");
      s.appendChild(el("path", { d, class: `series series-${k}` }));
      const last = se.points[se.points.length - 1];
      if (last[1] !== null) s.appendChild(el("text", { x: W - R + 4, y: Y(last[1]) + 4 + (k - 1) * 11, class: `tick label-${k}` }, se.name));
    });
    s.appendChild(el("text", { x: L, y: 13, class: "plot-title" }, `${title} (${yLabel})`));
    return s;
  }

  /// Q3: one row per format: its representable values around x, x itself and the stored value.
  function numberline(data, t) {
    const W = 640, rowH = 70, L = 60, R = 20;
    const s = svg(W, rowH * data.formats.length + 10, `${t.numberline_label} ${data.text}`);
    data.formats.forEach((f, k) => {
      const y = 30 + k * rowH;
      s.appendChild(el("text", { x: 4, y: y + 4, class: "plot-title" }, f.name));
      if (!f.around.length) {
        s.appendChild(el("text", { x: L, y: y + 4, class: "tick" }, `${t.stored} ${f.stored_text} (${t[f.class] || f.class})`));
        return;
      }
      const vals = f.around.map((a) => a[0]).concat([data.x]);
      const lo = Math.min(...vals), hi = Math.max(...vals);
      const X = (v) => (hi === lo ? (L + W - R) / 2 : L + ((v - lo) / (hi - lo)) * (W - L - R));
      s.appendChild(el("line", { x1: L, y1: y, x2: W - R, y2: y, class: "axis" }));
      const ends = [f.around[0], f.around[f.around.length - 1]];
      for (const [v, text, stored] of ends) if (!stored) s.appendChild(el("text", { x: X(v), y: y + 22, "text-anchor": v === ends[0][0] ? "start" : "end", class: "tick muted-tick" }, text));
      for (const [v, text, stored] of f.around) {
        s.appendChild(el("line", { x1: X(v), y1: y - 6, x2: X(v), y2: y + 6, class: stored ? "tick-stored" : "axis" }));
        if (stored) s.appendChild(el("text", { x: X(v), y: y + 22, "text-anchor": "middle", class: "tick" }, `${text} (${t[f.class] || f.class})`));
      }
      s.appendChild(el("circle", { cx: X(data.x), cy: y, r: 4, class: "x-mark" }));
      s.appendChild(el("text", { x: X(data.x), y: y - 10, "text-anchor": "middle", class: "tick" }, `x = ${data.text}`));
    });
    return s;
  }
  return { histogram, lines, numberline };
})();
