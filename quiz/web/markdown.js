// quiz/web/markdown.js: the small Markdown-to-HTML converter the page renders the guide (docs/guide/*.md)
// with: headings, paragraphs, fenced code, lists, tables, block quotes, inline code, bold, italics,
// links and the raw HTML lines the guide holds (<a id="..."></a> anchors, comments).
"use strict";
const Markdown = (() => {
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  function inline(s) {
    const codes = [];
    s = s.replace(/`([^`]+)`/g, (_, c) => { codes.push(c); return "\u0000" + (codes.length - 1) + "\u0000"; });
    s = esc(s);
    s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, t, href) => {
      const safe = /^(https?:|#|mailto:)/.test(href) ? href : "#";
      const ext = /^https?:/.test(href) ? ' rel="noopener noreferrer"' : "";
      return `<a href="${safe.replace(/"/g, "%22")}"${ext}>${t}</a>`;
    });
    s = s.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    s = s.replace(/(^|[^*\w])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
    s = s.replace(/(^|[^\w])_([^_\s][^_]*)_(?=[^\w]|$)/g, "$1<em>$2</em>");
    return s.replace(/\u0000(\d+)\u0000/g, (_, i) => `<code>${esc(codes[+i])}</code>`);
  }
  function slug(t) {
    return t.toLowerCase().replace(/<[^>]+>/g, "").replace(/[^\p{L}\p{N}\s-]/gu, "").trim().replace(/\s+/g, "-");
  }
  function toHtml(md, idPrefix = "") {
    const lines = md.replace(/\r/g, "").split("\n");
    const out = [];
    let para = [];
    const flush = () => { if (para.length) { out.push(`<p>${inline(para.join(" "))}</p>`); para = []; } };
    for (let i = 0; i < lines.length; ) {
      const line = lines[i];
      let m;
      if (/^```/.test(line)) {
        flush();
        const code = [];
        for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
        i++;
        out.push(`<pre class="code"><code>${esc(code.join("\n"))}</code></pre>`);
      } else if (/^\s*<!--/.test(line)) {
        flush();
        while (i < lines.length && !/-->/.test(lines[i])) i++;
        i++;
      } else if ((m = /^<a id="([^"]+)"><\/a>\s*$/.exec(line))) {
        flush();
        out.push(`<a id="${idPrefix}${esc(m[1])}" class="anchor"></a>`);
        i++;
      } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
        flush();
        const n = Math.min(m[1].length + 1, 6);
        out.push(`<h${n} id="${idPrefix}h-${slug(m[2])}">${inline(m[2])}</h${n}>`);
        i++;
      } else if (/^\s*\|/.test(line)) {
        flush();
        const rows = [];
        for (; i < lines.length && /^\s*\|/.test(lines[i]); i++) rows.push(lines[i]);
        const cells = (r) => r.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
        let h = "<div class=\"table-wrap\"><table>";
        rows.forEach((r, k) => {
          if (k === 1 && /^[\s|:-]+$/.test(r)) return;
          const tag = k === 0 && rows.length > 1 && /^[\s|:-]+$/.test(rows[1]) ? "th" : "td";
          h += "<tr>" + cells(r).map((c) => `<${tag}>${inline(c)}</${tag}>`).join("") + "</tr>";
        });
        out.push(h + "</table></div>");
      } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
        flush();
        const ordered = /^\s*\d+\./.test(line);
        const items = [];
        for (; i < lines.length && lines[i].trim() !== "" && !/^#/.test(lines[i]) && !/^```/.test(lines[i]); i++) {
          if (/^\s*([-*]|\d+\.)\s+/.test(lines[i])) items.push(lines[i].replace(/^\s*([-*]|\d+\.)\s+/, ""));
          else if (items.length) items[items.length - 1] += " " + lines[i].trim();
        }
        const t = ordered ? "ol" : "ul";
        out.push(`<${t}>` + items.map((x) => `<li>${inline(x)}</li>`).join("") + `</${t}>`);
      } else if (/^>\s?/.test(line)) {
        flush();
        const q = [];
        for (; i < lines.length && /^>\s?/.test(lines[i]); i++) q.push(lines[i].replace(/^>\s?/, ""));
        out.push(`<blockquote>${toHtml(q.join("\n"), idPrefix)}</blockquote>`);
      } else if (/^ {4}/.test(line) && para.length === 0) {
        const code = [];
        for (; i < lines.length && (/^ {4}/.test(lines[i]) || lines[i] === ""); i++) code.push(lines[i].slice(4));
        while (code.length && code[code.length - 1] === "") code.pop();
        out.push(`<pre class="code"><code>${esc(code.join("\n"))}</code></pre>`);
      } else if (line.trim() === "") {
        flush();
        i++;
      } else {
        para.push(line.trim());
        i++;
      }
    }
    flush();
    return out.join("\n");
  }
  return { toHtml, inline, esc };
})();
