// Shared by the annotation and judging pages (inlined into each page's nonce script by its server,
// before the server fills {{CSRF}}): the CSRF token, the URL's token, the page's state, el and texNodes.
const CSRF = "{{CSRF}}";
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const S = JSON.parse(document.getElementById("state").textContent);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
// maths: $...$ and $$...$$ spans rendered by KaTeX (vendored, served by the page's own server; text in,
// DOM nodes out, never HTML from the page), the TeX kept as the span's tooltip; as monospace TeX when
// KaTeX is missing or cannot parse the span
function texNodes(text) {
  const out = [];
  const re = /(\$\$[\s\S]+?\$\$|\$[^$\n]+?\$)/g;
  let last = 0, m;
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    out.push(texSpan(m[0]));
    last = m.index + m[0].length;
  }
  out.push(document.createTextNode(text.slice(last)));
  return out;
}
function texSpan(src) {
  const span = el("span", {class: "tex", text: src});
  if (typeof katex === "undefined") return span;
  const display = src.startsWith("$$");
  const body = display ? src.slice(2, -2) : src.slice(1, -1);
  const out = el("span", {class: "math" + (display ? " display" : ""), title: src});
  try {
    katex.render(body, out, {displayMode: display, throwOnError: true, strict: "ignore", trust: false,
                             maxExpand: 200, maxSize: 20});
  } catch (e) {
    return span;                                  // not TeX KaTeX knows: shown as it is
  }
  return out;
}
