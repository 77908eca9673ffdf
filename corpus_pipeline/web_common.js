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
// maths stays as TeX: $...$ and $$...$$ spans shown in a monospace style (text only, never HTML)
function texNodes(text) {
  const out = [];
  const re = /(\$\$[\s\S]+?\$\$|\$[^$\n]+?\$)/g;
  let last = 0, m;
  while ((m = re.exec(text)) !== null) {
    if (m.index > last) out.push(document.createTextNode(text.slice(last, m.index)));
    out.push(el("span", {class: "tex", text: m[0]}));
    last = m.index + m[0].length;
  }
  out.push(document.createTextNode(text.slice(last)));
  return out;
}
