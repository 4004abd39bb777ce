// tests/web/test.mjs: the quiz's web page (quiz/web, built into build/wasm/web/) in headless Chromium.
//   node tests/web/test.mjs --page build/wasm/web/index.html --quiz build/web-native/quiz/mixed-precision-quiz [--out DIR]
// Loads the page from file://; in English and in French answers the 8 questions right (score 8/8, at 1280 px)
// and all wrong (0/8, at 360 px), with the keyboard only (A-D, Enter); compares every demo on the page with
// the native terminal quiz's for the same seed, language and width; moves the loss-scale slider (Q2, Q7) and
// checks the histogram's counts follow; types into a "try it" input (Q1, Q3, Q4) and a plot input (Q3);
// takes the hard level (9-16) in English; checks the language taken from navigator.language; writes a screenshot per question and width into --out.
// Fails on any console error, page error, or request to anything but file:// (and data:).
// Exit 0 pass, 1 fail, 77 skipped (no Chromium, no page, no native quiz).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const args = Object.fromEntries(process.argv.slice(2).reduce((a, v, i, all) => (v.startsWith("--") ? [...a, [v.slice(2), all[i + 1]]] : a), []));
const page = path.resolve(args.page || "build/wasm/web/index.html");
const quiz = path.resolve(args.quiz || "build/web-native/quiz/mixed-precision-quiz");
const out = path.resolve(args.out || path.join(path.dirname(page), "..", "web-screenshots"));
const chromium = args.chromium || process.env.CHROMIUM || "/usr/bin/chromium";
const seed = 2018;
for (const [what, f] of [["page", page], ["native quiz", quiz], ["chromium", chromium]])
  if (!existsSync(f)) { console.log(`SKIP: no ${what} at ${f}`); process.exit(77); }
let puppeteer;
try { puppeteer = (await import("puppeteer-core")).default; }
catch { console.log("SKIP: puppeteer-core is not installed (cd tests/web && npm ci)"); process.exit(77); }
mkdirSync(out, { recursive: true });

let failures = 0, checks = 0;
function check(ok, what) { checks++; if (!ok) { failures++; console.log(`FAIL: ${what}`); } }

// The terminal quiz: answers (JSON) and demo text (--reveal at a width).
const reveal = {};
function terminal(lang, level = "medium") {
  const key = `${lang}/${level}`;
  if (!reveal[key]) reveal[key] = JSON.parse(execFileSync(quiz, ["--reveal", "--json", "--no-demo", "--lang", lang, "--level", level, "--seed", String(seed)], { encoding: "utf8" }));
  return reveal[key];
}
const demoCache = {};
function terminalDemo(n, lang, width) {
  const key = `${n}/${lang}/${width}`;
  if (!(key in demoCache))
    demoCache[key] = execFileSync(quiz, ["--reveal", "--question", String(n), "--lang", lang, "--seed", String(seed), "--width", String(width), "--color", "never"], { encoding: "utf8" });
  return demoCache[key];
}
/// The page's demo is in the terminal's --reveal output. Q5: the page leaves out the live measurement (its
/// last paragraph says where to find it); everything before it is the terminal's.
function sameDemo(n, lang, width, text) {
  const term = terminalDemo(n, lang, width);
  if (n !== 5) return text.length > 100 && term.includes(text);
  const before = text.slice(0, text.indexOf("\n\n") + 1);
  return before.length > 200 && term.includes(before);
}

const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"] });
const url = pathToFileURL(page).href;
const t0 = Date.now();

async function open(width, query = "", navLang = null) {
  const p = await browser.newPage();
  p.on("console", (m) => { if (m.type() === "error") check(false, `console error: ${m.text()}`); });
  p.on("pageerror", (e) => check(false, `page error: ${e.message}`));
  p.on("request", (r) => { const u = r.url(); check(u.startsWith("file:") || u.startsWith("data:"), `network request ${u}`); });
  await p.setViewport({ width, height: 900 });
  if (navLang) await p.evaluateOnNewDocument((l) => { Object.defineProperty(navigator, "language", { get: () => l }); }, navLang);
  await p.goto(url + query);
  await p.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  return p;
}
const text = (p, sel) => p.$eval(sel, (e) => e.textContent);

async function takeQuiz(lang, width, right, level = "medium") {
  const p = await open(width, `?lang=${lang}` + (level === "hard" ? "&level=hard" : ""));
  const term = terminal(lang, level);
  check((await p.$$("ol.preview > li")).length === 8, `${lang}: the preview lists 8 questions`);
  check((await text(p, "#title")) === term.title, `${lang}: the title is the terminal quiz's`);
  await p.focus("#start");
  await p.keyboard.press("Enter");
  for (let i = 0; i < 8; i++) {
    const q = term.questions[i];
    await p.waitForSelector("#q-heading");
    check(+(await p.$eval("#q-heading", (e) => e.dataset.question)) === q.number, `${lang}: question ${q.number} in order`);
    const k = "ABCD".indexOf(q.answer);
    const letter = right ? q.answer : "ABCD"[(k + 1) % 4];
    await p.keyboard.press(letter.toLowerCase());
    await p.keyboard.press("Enter");
    await p.waitForSelector("#verdict");
    check((await p.$eval("#verdict", (e) => e.dataset.correct)) === String(right), `${lang} Q${q.number}: verdict for ${letter}`);
    const why = await text(p, ".card");
    for (const [l, w] of Object.entries(q.why_not)) check(why.includes(w.slice(0, 40)), `${lang} Q${q.number}: why ${l} is wrong is shown`);
    const anchor = q.guide.slice(q.guide.indexOf("#") + 1);
    check(await p.evaluate((a) => document.querySelector(`a[data-guide="${a}"]`) !== null && document.querySelector(`#guide-body a[id="${a}"]`) !== null, anchor),
          `${lang} Q${q.number}: links to the guide's section ${anchor}, which the page renders`);
    const demo = await p.$eval("#demo", (e) => ({ text: e.textContent, width: +e.dataset.width }));
    check(demo.width === (width >= 760 ? 80 : 40), `${lang} Q${q.number}: demo width ${demo.width}`);
    check(sameDemo(q.number, lang, demo.width, demo.text), `${lang} Q${q.number}: the demo at ${demo.width} columns equals the terminal quiz's`);
    if (right && (q.number === 2 || q.number === 7)) {
      const before = await text(p, ".plot-summary");
      await p.focus("#scale-slider");
      for (let s = 0; s < 6; s++) await p.keyboard.press("ArrowRight");
      const after = await text(p, ".plot-summary");
      const value = await text(p, "#scale-value");
      check(before !== after && /2\^(16|6)/.test(value), `${lang} Q${q.number}: the slider changes the histogram (${value})`);
      const n = after.match(/\d+/g).map(Number);
      await p.focus("#next");
      check(n[n.length - 1] === 10000 && n.slice(-5, -1).reduce((a, b) => a + b, 0) === 10000, `${lang} Q${q.number}: the histogram's counts add up to 10000 (${after})`);
    }
    if (right && q.number === 3) {
      await p.$eval("#p-value", (e) => { e.value = ""; });
      await p.type("#p-value", "1e-10");
      await p.keyboard.press("Enter");
      check((await p.$$("svg circle.x-mark")).length >= 1, `${lang} Q3: the number line is drawn for 1e-10`);
    }
    if (right && [1, 3, 4].includes(q.number)) {
      const input = { 1: "0.5 1e-4", 3: "70000", 4: "4096 1" }[q.number];
      await p.type("#try-input", input);
      await p.keyboard.press("Enter");
      await p.waitForFunction(() => document.getElementById("try-output").textContent.length > 0);
      const ok = await p.$eval("#try-output", (e) => e.dataset.ok);
      check(ok === "true", `${lang} Q${q.number}: try it accepts "${input}"`);
      if (q.number === 3) check((await text(p, "#try-output")).match(/70\s?000/u) !== null, `${lang} Q3: try it shows 70000 in fp16/bf16`);
      await p.focus("#next");
    }
    await p.screenshot({ path: path.join(out, `${lang}-${right ? "right" : "wrong"}-q${String(q.number).padStart(2, "0")}-${width}.png`), fullPage: true });
    await p.keyboard.press("Enter");
  }
  await p.waitForSelector("#score");
  const score = await p.$eval("#score", (e) => [+e.dataset.score, +e.dataset.total]);
  check(score[0] === (right ? 8 : 0) && score[1] === 8, `${lang}: score ${score[0]}/${score[1]} (${right ? "all right" : "all wrong"})`);
  await p.screenshot({ path: path.join(out, `${lang}-${level === "hard" ? "hard-" : ""}${right ? "right" : "wrong"}-score-${width}.png`) });
  // The layout reflows: nothing but the demo blocks scrolls sideways.
  check(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${lang}: no horizontal scroll at ${width} px`);
  await p.close();
}

for (const lang of ["en", "fr"]) {
  await takeQuiz(lang, 1280, true);
  await takeQuiz(lang, 360, false);
}
// The hard level (questions 9-16): demos and answers, in English.
await takeQuiz("en", 1280, true, "hard");
// The language comes from navigator.language; the switch changes it.
{
  const p = await open(1280, "", "fr-FR");
  check((await p.evaluate(() => document.documentElement.lang)) === "fr", "navigator.language fr-FR gives the French page");
  await p.select("#lang", "en");
  check((await text(p, "#title")) === terminal("en").title, "the language switch gives the English page");
  check((await p.$$("#guide-body h3, #guide-body h2")).length > 10, "the guide is rendered");
  await p.close();
}
// WCAG AA: every text element's colour against its background, at least 4.5:1, light and dark; the page
// reflows at 320 px (no sideways scroll of the page; the demo boxes scroll inside).
for (const scheme of ["light", "dark"]) {
  const p = await open(320, "?lang=en");
  await p.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
  check(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${scheme}: preview reflows at 320 px`);
  await p.focus("#start");
  await p.keyboard.press("Enter");
  await p.keyboard.press("b");
  await p.keyboard.press("Enter");
  await p.waitForSelector("#demo");
  check(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${scheme}: a revealed question reflows at 320 px`);
  const low = await p.evaluate(() => {
    const rgb = (c) => { const m = c.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
    const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const bg = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.a > 0.5) return c; } return { r: 255, g: 255, b: 255 }; };
    const bad = [];
    let n = 0;
    for (const e of document.querySelectorAll("h1, h2, h3, p, li, label, button, a, pre, summary, option, span, strong, output")) {
      if (!e.offsetParent && e.tagName !== "OPTION") continue;
      if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      n++;
      const a = lum(rgb(getComputedStyle(e).color)), b = lum(bg(e));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) bad.push(`${e.tagName}.${e.className} ${ratio.toFixed(2)}`);
    }
    return { bad, n };
  });
  check(low.n > 20 && low.bad.length === 0, `${scheme}: text contrast at least 4.5:1 on ${low.n} elements (${low.bad.slice(0, 5).join(", ")})`);
  await p.screenshot({ path: path.join(out, `en-${scheme}-q1-320.png`), fullPage: true });
  await p.close();
}
await browser.close();
console.log(`${checks - failures}/${checks} checks passed in ${((Date.now() - t0) / 1000).toFixed(1)} s; screenshots in ${out}`);
process.exit(failures ? 1 : 0);
