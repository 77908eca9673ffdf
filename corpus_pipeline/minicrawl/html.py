"""HTML rendering of generated documents with site boilerplate and maths markup (pure)."""
from __future__ import annotations

import hashlib
from html import escape

from .formulas import tex_plain, tex_to_mathml

MATHJAX_HEAD = ('<script>window.MathJax = {tex: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]]}};</script>\n'
                '<script async src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>')
KATEX_HEAD = '<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.css">'


def render_math(tex: str, display: bool, markup: str, delim: str = "dollar") -> str:
    if markup == "mathjax":
        t = escape(tex, quote=False)
        if delim == "dollar":
            return f"$${t}$$" if display else f"${t}$"
        return f"\\[{t}\\]" if display else f"\\({t}\\)"
    if markup == "katex":
        mml = tex_to_mathml(tex, display)
        inner = mml.replace("<mrow>", "<semantics><mrow>", 1)
        inner = inner[: inner.rindex("</math>")] + \
            f'<annotation encoding="application/x-tex">{escape(tex, quote=False)}</annotation></semantics></math>'
        html_part = "".join(f'<span class="mord">{escape(c)}</span>' for c in tex_plain(tex))
        k = (f'<span class="katex"><span class="katex-mathml">{inner}</span>'
             f'<span class="katex-html" aria-hidden="true"><span class="base">{html_part}</span></span></span>')
        return f'<span class="katex-display">{k}</span>' if display else k
    if markup == "mathml":
        return tex_to_mathml(tex, display)
    if markup == "img":
        h = hashlib.sha1(tex.encode("utf-8")).hexdigest()[:12]
        cls = "tex-display" if display else "tex"
        return f'<img class="{cls}" src="/latex/{h}.png" alt="{escape(tex)}" title="{escape(tex_plain(tex))}">'
    raise ValueError(markup)


def render_blocks(blocks, markup: str, delim: str) -> str:
    out = []
    for b in blocks:
        kind = b[0]
        if kind == "h2":
            out.append(f"<h2>{escape(b[1])}</h2>")
        elif kind == "p":
            parts: list[str] = []
            for seg in b[1]:
                if isinstance(seg, tuple) and seg[0] == "c":      # inline code (code sites' pages)
                    parts.append(f"<code>{escape(seg[1], quote=False)}</code>")
                elif isinstance(seg, tuple):
                    rendered = render_math(seg[1], seg[2], markup, delim)
                    if seg[2] and markup != "mathjax":
                        if parts:
                            out.append(f"<p>{''.join(parts)}</p>")
                            parts = []
                        out.append(f'<div class="math-display">{rendered}</div>')
                    else:
                        parts.append(rendered)
                else:
                    parts.append(escape(seg, quote=False))
            if parts:
                out.append(f"<p>{''.join(parts)}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{escape(x)}</li>" for x in b[1]) + "</ul>")
        elif kind == "table":
            head = "".join(f"<th>{escape(h)}</th>" for h in b[1])
            rows = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in b[2])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif kind == "pre" and len(b) > 2:              # ("pre", code, language)
            out.append(f'<pre><code class="language-{b[2]}">{escape(b[1])}</code></pre>')
        elif kind == "pre":
            out.append(f"<pre><code>{escape(b[1])}</code></pre>")
    return "\n".join(out)


COOKIE = ["We use cookies to improve your experience. By continuing you agree to our cookie policy.",
          "This site uses cookies for analytics and personalised content.",
          "Cookies help us deliver our services. Manage your preferences in settings."]


def render_page(*, site, doc, url_path: str, skin: int, markup: str | None, related: list[str],
                date: str, author: str, views: int, lang: str = "en", charset: str = "utf-8") -> str:
    """A full HTML page: head, header/nav, main article (+answers), sidebar, footer."""
    title = doc["title"]
    heads = [f'<meta charset="{charset}">', '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{escape(title)} - {escape(site.name)}</title>",
             f'<meta name="description" content="{escape(title)}">',
             f'<link rel="canonical" href="https://{site.host}{escape(url_path)}">',
             f'<link rel="stylesheet" href="/static/{site.host.split(".")[0]}-{skin}.css">']
    uses_math = doc.get("math_segments", 0) > 0
    if uses_math and markup == "mathjax":
        heads.append(MATHJAX_HEAD)
    if uses_math and markup == "katex":
        heads.append(KATEX_HEAD)
    nav = "".join(f'<li><a href="{escape(p)}">{escape(lbl)}</a></li>' for p, lbl in site.nav)
    header = (f'<header class="site-header s{skin}"><a class="logo" href="/">{escape(site.name)}</a>'
              f'<nav class="main-nav"><ul>{nav}</ul></nav>'
              f'<form class="search" action="/search"><input name="q" placeholder="Search"><button>Go</button></form></header>')
    delim = site.delim
    body = render_blocks(doc["blocks"], markup or "mathjax", delim)
    meta = f'<div class="post-meta">{escape(author)} · {escape(date)} · {views:,} views</div>'
    answers_html = ""
    answers = doc.get("answers") or []
    if answers:
        parts = [f'<section class="answers"><h2>{len(answers)} Answer{"s" if len(answers) > 1 else ""}</h2>']
        for k, a in enumerate(answers):
            parts.append(f'<div class="answer" id="a{k}"><div class="votes">{(views * (k + 3)) % 97 - 3}</div>'
                         f'<div class="post-text">{render_blocks(a, markup or "mathjax", delim)}</div>'
                         f'<div class="user-info">answered {escape(date)}</div></div>')
        parts.append("</section>")
        answers_html = "".join(parts)
    rel = "".join(f'<li><a href="/r/{k}">{escape(t)}</a></li>' for k, t in enumerate(related))
    sidebar = (f'<aside class="sidebar"><h3>{escape(site.sidebar_title)}</h3><ul>{rel}</ul>'
               f'<div class="ad">Advertisement</div></aside>')
    foot_links = "".join(f'<li><a href="{p}">{lbl}</a></li>' for p, lbl in
                         [("/about", "About"), ("/contact", "Contact"), ("/privacy", "Privacy"), ("/terms", "Terms")])
    footer = (f'<footer class="site-footer"><ul>{foot_links}</ul><p>© {date[:4]} {escape(site.name)}. '
              f'All rights reserved.</p><div class="cookie-banner">{COOKIE[skin % len(COOKIE)]}</div></footer>')
    if skin % 2 == 0:
        main = (f'<main id="content"><article class="post"><h1>{escape(title)}</h1>{meta}'
                f'<div class="post-body">{body}</div>{answers_html}</article></main>')
        layout = f"{header}\n<div class=\"wrap\">{main}\n{sidebar}</div>\n{footer}"
    else:
        main = (f'<div id="main" role="main"><div class="question"><h1 class="title">{escape(title)}</h1>'
                f'<div class="content">{body}</div>{meta}</div>{answers_html}</div>')
        layout = f"{header}\n<div class=\"container\"><div class=\"left\">{sidebar}</div>{main}</div>\n{footer}"
    return (f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n' + "\n".join(heads) +
            f"\n</head>\n<body>\n{layout}\n</body>\n</html>\n")
