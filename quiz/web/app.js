// quiz/web/app.js: the quiz page. The questions, demos, "try it" results, the guide and the plots'
// data come from the C++ API (api.cpp, compiled into quiz.js); this file only lays them out.
"use strict";
const UI = {
  en: {
    language: "Language", level: "Level", guide: "Guide", loading: "Loading…", skip: "Skip to the quiz",
    preview: "The questions", preview_note: "A preview of the questions; the answers come one at a time.",
    start: "Start the quiz", question_of: (n, t) => `Question ${n} of ${t}`, submit: "Answer", next: "Next question",
    results: "See the score", keys: "Keys: A-D choose, Enter answers and goes on.", right: "Right.", wrong: (a) => `Not quite: the answer is ${a}.`,
    guide_section: "Guide section", try_it: "Try it", run: "Compute", plot: "Plot", score: (s, t) => `Score: ${s}/${t}`,
    again: "Take it again", missed: "Missed:", scale: "loss scale", loss_scale: "Loss scale (2^k)",
    zero: "zero", subnormal: "subnormal", normal: "normal", overflow: "overflow", exact: "exact",
    histogram_label: "gradients by binary exponent, shaded by what g × S becomes", gradient_axis: "gradient g (log2 axis)",
    weights_title: "Weight after each update", weight: "weight", sums_title: "Running sum of n copies of x", sum: "sum",
    numberline_label: "Representable values near", stored: "stored", value: "Value", w0: "Initial weight", update: "Update",
    steps: "Steps", count: "n", x: "x", footer: "Every number on this page is computed by libfloat compiled to WebAssembly; no network is used.",
    chosen: "Chosen", level_medium: "1-8 (medium)", level_hard: "9-16 (hard)",
  },
  fr: {
    language: "Langue", level: "Niveau", guide: "Guide", loading: "Chargement…", skip: "Aller au quiz",
    preview: "Les questions", preview_note: "Un aperçu des questions ; les réponses viennent une à une.",
    start: "Commencer le quiz", question_of: (n, t) => `Question ${n} sur ${t}`, submit: "Répondre", next: "Question suivante",
    results: "Voir le score", keys: "Touches : A-D pour choisir, Entrée pour répondre et continuer.", right: "Juste.", wrong: (a) => `Pas tout à fait : la réponse est ${a}.`,
    guide_section: "Section du guide", try_it: "À vous", run: "Calculer", plot: "Tracer", score: (s, t) => `Score : ${s}/${t}`,
    again: "Recommencer", missed: "Manquées :", scale: "facteur d’échelle", loss_scale: "Facteur d’échelle (2^k)",
    zero: "zéro", subnormal: "sous-normal", normal: "normal", overflow: "dépassement", exact: "exact",
    histogram_label: "gradients par exposant binaire, zones selon ce que devient g × S", gradient_axis: "gradient g (axe log2)",
    weights_title: "Poids après chaque mise à jour", weight: "poids", sums_title: "Somme courante de n copies de x", sum: "somme",
    numberline_label: "Valeurs représentables près de", stored: "stocké", value: "Valeur", w0: "Poids initial", update: "Mise à jour",
    steps: "Pas", count: "n", x: "x", footer: "Chaque nombre de cette page est calculé par libfloat compilée en WebAssembly ; aucun accès réseau.",
    chosen: "Choisie", level_medium: "1-8 (moyen)", level_hard: "9-16 (difficile)",
  },
};
const LETTERS = ["A", "B", "C", "D"];
const state = { M: null, lang: "en", level: "medium", seed: 2018, data: null, view: "preview", i: 0, chosen: -1, answered: false, answers: [] };
const $ = (id) => document.getElementById(id);
const esc = (s) => Markdown.esc(String(s));
const para = (s) => esc(s).split(/\n/).map((l) => `<p>${l}</p>`).join("");

function call(name, types, args) { return state.M.ccall(name, "string", types, args); }
function json(name, types, args) { return JSON.parse(call(name, types, args)); }
function demoColumns() {
  const w = Math.min(document.documentElement.clientWidth, 1000);
  return w >= 760 ? 80 : 40;
}
function asked() { return state.level === "hard" ? [9, 10, 11, 12, 13, 14, 15, 16] : [1, 2, 3, 4, 5, 6, 7, 8]; }
function t() { return UI[state.lang]; }

function load() {
  state.data = json("mpq_questions", ["string"], [state.lang]);
  document.documentElement.lang = state.lang;
  document.title = state.data.title;
  $("title").textContent = state.data.title;
  $("lang-label").textContent = t().language;
  $("level-label").textContent = t().level;
  $("level").options[0].textContent = t().level_medium;
  $("level").options[1].textContent = t().level_hard;
  $("guide-link").textContent = t().guide;
  $("guide-heading").textContent = t().guide;
  document.querySelector(".skip").textContent = t().skip;
  $("footer").textContent = t().footer;
  $("guide-body").innerHTML = Markdown.toHtml(call("mpq_guide", ["string"], [state.lang]));
}

function render() {
  const app = $("app");
  const T = t();
  const qs = asked().map((n) => state.data.questions[n - 1]);
  if (state.view === "preview") {
    const intro = state.level === "hard" ? state.data.intro_hard : state.data.intro;
    app.innerHTML = `<h2>${esc(T.preview)}</h2>${para(intro)}<p class="muted">${esc(T.preview_note)}</p>
      <ol class="preview">${qs.map((q) => `<li value="${q.number}"><strong>${esc(q.topic)}</strong>: ${esc(q.text)}
        <ol class="opts">${q.options.map((o) => `<li>${esc(o)}</li>`).join("")}</ol></li>`).join("")}</ol>
      <p class="muted">${esc(T.keys)}</p><button class="primary" id="start">${esc(T.start)}</button>`;
    $("start").onclick = () => { state.view = "question"; state.i = 0; state.answers = []; state.chosen = -1; state.answered = false; render(); focusMain(); };
    return;
  }
  if (state.view === "summary") {
    const score = state.answers.filter((a, k) => a === qs[k].answer).length;
    const missed = qs.filter((q, k) => state.answers[k] !== q.answer);
    app.innerHTML = `<h2 id="score" class="score" data-score="${score}" data-total="${qs.length}">${esc(T.score(score, qs.length))}</h2>
      ${missed.length ? `<p>${esc(T.missed)}</p><ul>${missed.map((q) => `<li>${q.number}. ${esc(q.topic)} — <a href="#${esc(q.guide)}" data-guide="${esc(q.guide)}">${esc(T.guide_section)}</a></li>`).join("")}</ul>` : ""}
      <button class="primary" id="again">${esc(T.again)}</button>`;
    $("again").onclick = () => { state.view = "preview"; render(); focusMain(); };
    return;
  }
  const q = qs[state.i];
  const last = state.i === qs.length - 1;
  let h = `<h2 id="q-heading" data-question="${q.number}">${esc(T.question_of(state.i + 1, qs.length))} · ${esc(q.topic)}</h2>${para(q.text)}
    <ul class="options" role="group" aria-labelledby="q-heading">${q.options.map((o, k) => {
      let cls = "option";
      if (state.answered && k === q.answer) cls += " right";
      else if (state.answered && k === state.chosen) cls += " wrong";
      return `<li><button class="${cls}" data-letter="${LETTERS[k]}" aria-pressed="${k === state.chosen}" ${state.answered ? "aria-disabled=\"true\"" : ""}><span class="letter">${LETTERS[k]})</span><span>${esc(o)}</span></button></li>`;
    }).join("")}</ul>`;
  if (!state.answered) {
    h += `<p class="muted">${esc(T.keys)}</p><button class="primary" id="submit" ${state.chosen < 0 ? "disabled" : ""}>${esc(T.submit)}</button>`;
  } else {
    const ok = state.chosen === q.answer;
    h += `<p id="verdict" class="${ok ? "verdict-ok" : "verdict-bad"}" data-correct="${ok}">${esc(ok ? T.right : T.wrong(LETTERS[q.answer]))}</p>
      <div class="card">${para(q.explanation)}<p><strong>${esc(state.data.why_not)}</strong></p>
      <ul>${q.why.map((w, k) => (k === q.answer ? "" : `<li><strong>${LETTERS[k]})</strong> ${esc(w)}</li>`)).join("")}</ul>
      <p><a href="#${esc(q.guide)}" data-guide="${esc(q.guide)}">${esc(T.guide_section)}: ${esc(q.topic)}</a></p></div>
      <h3>${esc(state.data.demo_heading.replace(/[:：]\s*$/, ""))}</h3>
      <pre class="demo" id="demo" data-question="${q.number}" data-seed="${state.seed}" data-width="${demoColumns()}" tabindex="0"></pre>
      <div id="plot-area"></div>
      ${q.try ? `<form id="try-form" class="card"><label for="try-input"><strong>${esc(T.try_it)}</strong> <span class="muted">${esc(q.try_form)}</span></label>
        <div class="controls"><input type="text" id="try-input" autocomplete="off" spellcheck="false"><button id="try-run">${esc(T.run)}</button></div>
        <pre id="try-output" aria-live="polite"></pre></form>` : ""}
      <button class="primary" id="next">${esc(last ? T.results : T.next)}</button>`;
  }
  app.innerHTML = h;
  app.querySelectorAll(".option").forEach((b) => (b.onclick = () => choose(LETTERS.indexOf(b.dataset.letter))));
  if (!state.answered) { $("submit").onclick = submit; return; }
  $("demo").textContent = call("mpq_demo", ["number", "string", "number", "number"], [q.number, state.lang, state.seed, +$("demo").dataset.width]);
  plotFor(q.number, $("plot-area"));
  if (q.try) {
    $("try-form").onsubmit = (e) => {
      e.preventDefault();
      const r = call("mpq_try", ["number", "string", "string", "number"], [q.number, state.lang, $("try-input").value, demoColumns()]);
      $("try-output").textContent = r.startsWith("!") ? r.slice(1) : r;
      $("try-output").dataset.ok = String(!r.startsWith("!"));
    };
  }
  $("next").onclick = next;
}

function choose(k) {
  if (state.answered || k < 0) return;
  state.chosen = k;
  render();
  document.querySelector(`.option[data-letter="${LETTERS[k]}"]`).focus();
}
function submit() {
  if (state.answered || state.chosen < 0) return;
  state.answered = true;
  state.answers[state.i] = state.chosen;
  render();
  $("verdict").setAttribute("tabindex", "-1");
  $("verdict").focus();
}
function next() {
  if (state.i + 1 >= asked().length) state.view = "summary";
  else { state.i++; state.chosen = -1; state.answered = false; }
  render();
  focusMain();
}
function focusMain() { $("main").focus(); window.scrollTo(0, 0); }

function controls(area, html) {
  const d = document.createElement("div");
  d.className = "controls";
  d.innerHTML = html;
  area.appendChild(d);
  return d;
}
function plotFor(n, area) {
  const T = t();
  const out = document.createElement("div");
  out.id = "plot";
  if (n === 2 || n === 7) {
    controls(area, `<label for="scale-slider">${esc(T.loss_scale)}</label><input type="range" id="scale-slider" min="0" max="24" step="1" value="${n === 2 ? 10 : 0}"><output id="scale-value" for="scale-slider"></output>`);
    area.appendChild(out);
    const draw = () => {
      const k = +$("scale-slider").value;
      $("scale-value").textContent = `2^${k} = ${2 ** k}`;
      out.replaceChildren(Plots.histogram(json("mpq_plot_histogram", ["number", "number"], [state.seed, 2 ** k]), T));
    };
    $("scale-slider").oninput = draw;
    draw();
  } else if (n === 1) {
    controls(area, `<label>${esc(T.w0)} <input type="text" id="p-w0" value="1" size="8"></label><label>${esc(T.update)} <input type="text" id="p-u" value="1e-4" size="8"></label><label>${esc(T.steps)} <input type="text" id="p-steps" value="10000" size="8"></label><button id="p-run">${esc(T.plot)}</button>`);
    area.appendChild(out);
    const draw = () => out.replaceChildren(Plots.lines(json("mpq_plot_weights", ["number", "number", "number", "number"], [+$("p-w0").value || 1, +$("p-u").value || 1e-4, Math.round(+$("p-steps").value) || 10000, 200]), T, T.weights_title, T.weight));
    $("p-run").onclick = draw;
    draw();
  } else if (n === 4) {
    controls(area, `<label>${esc(T.count)} <input type="text" id="p-n" value="4096" size="8"></label><label>${esc(T.x)} <input type="text" id="p-x" value="1" size="8"></label><button id="p-run">${esc(T.plot)}</button>`);
    area.appendChild(out);
    const draw = () => out.replaceChildren(Plots.lines(json("mpq_plot_sums", ["number", "number", "number"], [Math.round(+$("p-n").value) || 4096, +$("p-x").value || 1, 200]), T, T.sums_title, T.sum));
    $("p-run").onclick = draw;
    draw();
  } else if (n === 3) {
    controls(area, `<label for="p-value">${esc(T.value)}</label><input type="text" id="p-value" value="70000" size="12"><button id="p-run">${esc(T.plot)}</button>`);
    area.appendChild(out);
    const draw = () => {
      const d = json("mpq_plot_numberline", ["string", "number"], [$("p-value").value, 3]);
      if (!d.error) out.replaceChildren(Plots.numberline(d, T));
    };
    $("p-run").onclick = draw;
    $("p-value").onkeydown = (e) => { if (e.key === "Enter") { e.preventDefault(); draw(); } };
    draw();
  }
}

document.addEventListener("keydown", (e) => {
  if (state.view !== "question" || e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = (e.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  const k = LETTERS.indexOf(e.key.toUpperCase());
  if (k >= 0 && !state.answered) { e.preventDefault(); choose(k); return; }
  if (e.key === "Enter") {
    if (tag === "button" && e.target.id !== "" && e.target.id !== "submit" && e.target.id !== "next") return;
    if (tag === "a") return;
    e.preventDefault();
    if (!state.answered) submit(); else next();
  }
});
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-guide]");
  if (!a) return;
  e.preventDefault();
  const target = document.getElementById(a.dataset.guide);
  $("guide-box").open = true;
  if (target) { target.scrollIntoView(); $("guide").focus({ preventScroll: true }); }
});

function start() {
  const params = new URLSearchParams(location.search);
  const nav = (navigator.language || "en").toLowerCase();
  state.lang = params.get("lang") || (nav.startsWith("fr") ? "fr" : "en");
  if (params.get("seed") && /^\d+$/.test(params.get("seed"))) state.seed = +params.get("seed");
  if (params.get("level") === "hard") state.level = "hard";
  $("lang").value = state.lang;
  $("level").value = state.level;
  $("guide-link").onclick = () => { $("guide-box").open = true; };
  $("lang").onchange = () => { state.lang = $("lang").value; load(); render(); };
  $("level").onchange = () => { state.level = $("level").value; state.view = "preview"; render(); };
  createQuizModule().then((M) => {
    state.M = M;
    load();
    $("loading").remove();
    render();
    document.body.dataset.ready = "true";
  });
}
start();
