"""MathML -> TeX (pure, lxml elements in; a TeX string out).

Used by the maths-preserving extractor for MathML that carries no TeX
annotation of its own.  The conversion aims at a faithful, readable TeX that a
language model sees as ordinary LaTeX: presentation MathML elements map to
their usual TeX constructs (``mfrac`` -> ``\\frac``, ``msup`` -> ``^{}``,
``munderover`` on a big operator -> ``\\sum_{..}^{..}``, ``mtable`` ->
``\\begin{array}``, ...), and common Unicode maths characters map to their TeX
commands (``α`` -> ``\\alpha``, ``≤`` -> ``\\le``).  Unknown elements fall back
to the conversion of their children, unknown characters are kept as they are.

Tags may come from an HTML parser (no namespace, possibly a ``m:`` prefix) or
from an XML parser (``{http://www.w3.org/1998/Math/MathML}mi``): both work.
"""
from __future__ import annotations

import re

_ENDS_WITH_CMD = re.compile(r"\\[A-Za-z]+$")

TEX_ENCODINGS = ("application/x-tex", "application/x-latex", "tex", "latex", "text/x-tex")

GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ϵ": "epsilon", "ε": "varepsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "vartheta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ϖ": "varpi", "ρ": "rho",
    "ϱ": "varrho", "σ": "sigma", "ς": "varsigma", "τ": "tau", "υ": "upsilon", "ϕ": "phi",
    "φ": "varphi", "χ": "chi", "ψ": "psi", "ω": "omega",
    "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi",
    "Σ": "Sigma", "Υ": "Upsilon", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}

SYMBOLS = {
    "∑": r"\sum", "∏": r"\prod", "∐": r"\coprod", "∫": r"\int", "∬": r"\iint", "∭": r"\iiint",
    "∮": r"\oint", "⋃": r"\bigcup", "⋂": r"\bigcap", "⨁": r"\bigoplus", "⨂": r"\bigotimes",
    "⋁": r"\bigvee", "⋀": r"\bigwedge",
    "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "≦": r"\leqq", "≧": r"\geqq", "≪": r"\ll", "≫": r"\gg",
    "±": r"\pm", "∓": r"\mp", "×": r"\times", "÷": r"\div", "⋅": r"\cdot", "·": r"\cdot",
    "∗": r"\ast", "⋆": r"\star", "∘": r"\circ", "∙": r"\bullet", "•": r"\bullet",
    "⋯": r"\cdots", "…": r"\dots", "⋮": r"\vdots", "⋱": r"\ddots",
    "∞": r"\infty", "∂": r"\partial", "∇": r"\nabla", "∅": r"\emptyset", "ℏ": r"\hbar",
    "ℓ": r"\ell", "ℜ": r"\Re", "ℑ": r"\Im", "ℵ": r"\aleph", "℘": r"\wp",
    "→": r"\to", "←": r"\leftarrow", "↔": r"\leftrightarrow", "⇒": r"\Rightarrow",
    "⇐": r"\Leftarrow", "⇔": r"\Leftrightarrow", "↦": r"\mapsto", "⟶": r"\longrightarrow",
    "⟹": r"\Longrightarrow", "⟺": r"\Longleftrightarrow", "↑": r"\uparrow", "↓": r"\downarrow",
    "∈": r"\in", "∉": r"\notin", "∋": r"\ni", "⊂": r"\subset", "⊃": r"\supset",
    "⊆": r"\subseteq", "⊇": r"\supseteq", "⊊": r"\subsetneq", "∪": r"\cup", "∩": r"\cap",
    "∖": r"\setminus", "∀": r"\forall", "∃": r"\exists", "∄": r"\nexists", "¬": r"\neg",
    "∧": r"\wedge", "∨": r"\vee", "⊕": r"\oplus", "⊗": r"\otimes", "⊖": r"\ominus",
    "⊥": r"\perp", "∥": r"\parallel", "∠": r"\angle", "△": r"\triangle",
    "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim", "≃": r"\simeq", "≅": r"\cong", "∝": r"\propto",
    "≺": r"\prec", "≻": r"\succ", "⪯": r"\preceq", "⪰": r"\succeq", "⊢": r"\vdash", "⊨": r"\models",
    "⊤": r"\top", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle", "〉": r"\rangle",
    "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil", "‖": r"\|",
    "√": r"\surd", "†": r"\dagger", "‡": r"\ddagger", "°": r"^\circ", "′": "'", "″": "''",
    "‴": "'''", "−": "-", "∣": "|", "⁡": "", "⁢": "", "⁣": ",", "⁤": "+", "\u00a0": " ",
    "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}", "ℝ": r"\mathbb{R}", "ℂ": r"\mathbb{C}",
    "{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&", "$": r"\$",
}
for _k, _v in GREEK.items():
    SYMBOLS[_k] = "\\" + _v

FUNCTIONS = {
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "coth", "log", "ln", "lg", "exp", "lim", "liminf", "limsup", "max", "min", "sup", "inf", "det",
    "dim", "ker", "deg", "gcd", "arg", "Pr", "hom",
}
BIG_OPS = {r"\sum", r"\prod", r"\coprod", r"\int", r"\iint", r"\iiint", r"\oint", r"\bigcup",
           r"\bigcap", r"\bigoplus", r"\bigotimes", r"\bigvee", r"\bigwedge", r"\lim", r"\max",
           r"\min", r"\sup", r"\inf", r"\liminf", r"\limsup", r"\det", r"\gcd", r"\Pr"}
FENCES = {"(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}", "|": "|", "‖": r"\|",
          "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle", "〉": r"\rangle",
          "⌊": r"\lfloor", "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil"}
OPENERS = {"(", "[", "{", "⟨", "〈", "⌊", "⌈"}
CLOSERS = {")", "]", "}", "⟩", "〉", "⌋", "⌉"}
ACCENTS_OVER = {"^": r"\hat", "ˆ": r"\hat", "̂": r"\hat", "~": r"\tilde", "˜": r"\tilde",
                "̃": r"\tilde", "¯": r"\bar", "‾": r"\overline", "̄": r"\bar", "→": r"\vec",
                "⃗": r"\vec", "˙": r"\dot", "̇": r"\dot", "¨": r"\ddot", "̈": r"\ddot",
                "⏞": r"\overbrace", "︷": r"\overbrace", "ˇ": r"\check", "˘": r"\breve"}
ACCENTS_UNDER = {"_": r"\underline", "¯": r"\underline", "‾": r"\underline", "⏟": r"\underbrace",
                 "︸": r"\underbrace"}
VARIANTS = {"bold": r"\mathbf", "double-struck": r"\mathbb", "fraktur": r"\mathfrak",
            "script": r"\mathcal", "bold-script": r"\mathcal", "sans-serif": r"\mathsf",
            "monospace": r"\mathtt", "italic": "", "bold-italic": r"\boldsymbol", "normal": r"\mathrm"}


def local_name(el) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    if "}" in tag:
        tag = tag.rsplit("}", 1)[1]
    if ":" in tag:
        tag = tag.rsplit(":", 1)[1]
    return tag.lower()


_NOT_MATH = {"script", "style", "noscript", "template", "iframe", "object"}


def _children(el):
    return [c for c in el if isinstance(c.tag, str)]


def _chars(s: str) -> str:
    out = []
    for ch in s:
        t = SYMBOLS.get(ch)
        if t is None:
            out.append(ch)
        else:
            out.append(t)
            if t[:1] == "\\" and t[-1:].isalpha():
                out.append(" ")
    return "".join(out)


def _group(s: str) -> str:
    s = s.strip()
    if len(s) == 1 or (s.startswith("\\") and s[1:].isalpha()):
        return s
    return "{" + s + "}"


def tex_annotation(math_el) -> str | None:
    """The TeX a MathML element carries itself (annotation or alttext), or None."""
    for el in math_el.iter():
        if local_name(el) == "annotation":
            enc = (el.get("encoding") or "").strip().lower()
            if enc in TEX_ENCODINGS and el.text and el.text.strip():
                return el.text.strip()
    alt = math_el.get("alttext")
    if alt and alt.strip():
        return alt.strip()
    return None


def mathml_to_tex(math_el) -> str:
    """Convert a <math> element (or any presentation MathML element) to TeX."""
    return " ".join(_conv(math_el).split())


def _token_text(el) -> str:
    return "".join(el.itertext())


def _fence_mo(el):
    """The <mo> of a fence: the element itself, or the only child of an <mrow> (MathJax writes
    ``\\bigl(`` as an OPEN mrow holding one sized <mo>)."""
    if local_name(el) == "mo":
        return el
    if local_name(el) == "mrow" and not (el.text or "").strip():
        kids = _children(el)
        if len(kids) == 1 and local_name(kids[0]) == "mo" and not (kids[0].tail or "").strip():
            return kids[0]
    return None


def _conv_list(els) -> str:
    parts = [_conv(c) for c in els]
    # \left ... \right around an mrow-like sequence that starts and ends with fences (an <mo>
    # each, or an <mrow> holding just one) that may stretch
    first, last = (_fence_mo(els[0]), _fence_mo(els[-1])) if len(els) >= 2 else (None, None)
    if first is not None and last is not None:
        o, c = _token_text(first).strip(), _token_text(last).strip()
        if (o in OPENERS or o == "|" or o == "‖") and (c in CLOSERS or c in ("|", "‖")) \
                and first.get("stretchy") != "false" and last.get("stretchy") != "false":
            parts[0] = r"\left" + FENCES.get(o, o)
            parts[-1] = r"\right" + FENCES.get(c, c)
    out = ""
    for p in parts:
        if p and out and p[0].isalpha() and _ENDS_WITH_CMD.search(out):
            out += " "
        out += p
    return out


def _conv(el) -> str:  # noqa: C901 (a dispatch table)
    name = local_name(el)
    kids = _children(el)
    if name in ("mi", "mn", "mo", "mtext", "ms"):
        raw = _token_text(el)
        text = raw.strip()
        if name == "mtext":
            return r"\text{" + raw.replace("{", r"\{").replace("}", r"\}") + "}" if text else " "
        if name == "mi" and text in FUNCTIONS:
            return "\\" + text + " "
        if name == "mo" and text in FUNCTIONS:
            return "\\" + text + " "
        if name == "mi" and len(text) > 1 and text.isalpha() and text.isascii():
            return r"\mathrm{" + text + "}"
        conv = _chars(text)
        variant = el.get("mathvariant")
        if variant and text:
            cmd = VARIANTS.get(variant, "")
            if cmd == r"\mathrm" and name == "mi" and len(text) > 1:
                cmd = ""
            if cmd:
                return cmd + "{" + conv.strip() + "}"
        return conv
    if name == "mspace":
        return " "
    if name in ("annotation", "annotation-xml", "none", "mprescripts", "mglyph", "maligngroup",
                "malignmark"):
        return ""
    if name == "semantics":
        return _conv(kids[0]) if kids else ""
    if name == "mphantom":
        return ""
    if name == "mfrac":
        if len(kids) != 2:
            return _conv_list(kids)
        a, b = _conv(kids[0]), _conv(kids[1])
        lt = (el.get("linethickness") or "").strip()
        if lt in ("0", "0px", "0pt", "0em", "0ex"):
            return r"\genfrac{}{}{0}{}{" + a + "}{" + b + "}"
        if el.get("bevelled") == "true":
            return _group(a) + "/" + _group(b)
        return r"\frac{" + a + "}{" + b + "}"
    if name == "msqrt":
        return r"\sqrt{" + _conv_list(kids) + "}"
    if name == "mroot":
        if len(kids) == 2:
            return r"\sqrt[" + _conv(kids[1]) + "]{" + _conv(kids[0]) + "}"
        return r"\sqrt{" + _conv_list(kids) + "}"
    if name in ("msup", "msub", "msubsup"):
        if not kids:
            return ""
        base = _conv(kids[0])
        out = _group(base) if base.strip() else "{}"
        if name == "msub" and len(kids) > 1:
            out += "_" + _group(_conv(kids[1]) or "{}")
        elif name == "msup" and len(kids) > 1:
            out += "^" + _group(_conv(kids[1]) or "{}")
        elif name == "msubsup" and len(kids) > 2:
            out += "_" + _group(_conv(kids[1]) or "{}") + "^" + _group(_conv(kids[2]) or "{}")
        return out
    if name in ("munder", "mover", "munderover"):
        if not kids:
            return ""
        base = _conv(kids[0]).strip()
        if name == "mover" and len(kids) == 2 and local_name(kids[1]) == "mo":
            acc = _token_text(kids[1]).strip()
            if acc in ACCENTS_OVER:
                return ACCENTS_OVER[acc] + "{" + base + "}"
        if name == "munder" and len(kids) == 2 and local_name(kids[1]) == "mo":
            acc = _token_text(kids[1]).strip()
            if acc in ACCENTS_UNDER:
                return ACCENTS_UNDER[acc] + "{" + base + "}"
        under = _conv(kids[1]) if name in ("munder", "munderover") and len(kids) > 1 else None
        over = (_conv(kids[2]) if name == "munderover" and len(kids) > 2
                else _conv(kids[1]) if name == "mover" and len(kids) > 1 else None)
        if base in BIG_OPS or base.rstrip() in BIG_OPS:
            out = base.rstrip()
            if under is not None:
                out += "_" + _group(under or "{}")
            if over is not None:
                out += "^" + _group(over or "{}")
            return out + " "
        out = base
        if under is not None:
            out = r"\underset{" + under + "}{" + out + "}"
        if over is not None:
            out = r"\overset{" + over + "}{" + out + "}"
        return out
    if name == "mfenced":
        o = el.get("open", "(")
        c = el.get("close", ")")
        seps = (el.get("separators", ",") or "").split() or [""]
        sep = (el.get("separators", ",") or "").strip()[:1] if " " not in (el.get("separators") or "") else seps[0]
        inner = (sep + " ").join(_conv(k) for k in kids) if sep else " ".join(_conv(k) for k in kids)
        return r"\left" + (FENCES.get(o, o) or ".") + inner + r"\right" + (FENCES.get(c, c) or ".")
    if name == "mtable":
        rows = []
        ncols = 1
        for tr in kids:
            rn = local_name(tr)
            if rn not in ("mtr", "mlabeledtr"):
                rows.append(_conv(tr))
                continue
            cells = [_conv_list(_children(td)) for td in _children(tr)
                     if local_name(td) == "mtd"]
            if rn == "mlabeledtr" and cells:
                cells = cells[1:]
            ncols = max(ncols, len(cells))
            rows.append(" & ".join(cells))
        align = (el.get("columnalign") or "").split()
        spec = "".join((a[:1] if a[:1] in "lcr" else "c") for a in align[:ncols])
        spec += "c" * (ncols - len(spec))
        return r"\begin{array}{" + spec + "}" + r" \\ ".join(rows) + r"\end{array}"
    if name == "menclose":
        inner = _conv_list(kids)
        notation = el.get("notation", "longdiv")
        if "box" in notation or "roundedbox" in notation:
            return r"\boxed{" + inner + "}"
        if "updiagonalstrike" in notation or "downdiagonalstrike" in notation:
            return r"\cancel{" + inner + "}"
        return inner
    if name == "mmultiscripts":
        if not kids:
            return ""
        out = _group(_conv(kids[0]) or "{}")
        post, pre, seen = [], [], False
        for k in kids[1:]:
            if local_name(k) == "mprescripts":
                seen = True
                continue
            (pre if seen else post).append(k)
        for i in range(0, len(post) - 1, 2):
            out += "_" + _group(_conv(post[i]) or "{}") + "^" + _group(_conv(post[i + 1]) or "{}")
        prefix = ""
        for i in range(0, len(pre) - 1, 2):
            prefix += "{}_" + _group(_conv(pre[i]) or "{}") + "^" + _group(_conv(pre[i + 1]) or "{}")
        return prefix + out
    if name == "mstyle" or name == "mrow" or name == "math" or name == "mpadded" or name == "merror":
        inner = _conv_list(kids)
        variant = el.get("mathvariant")
        if variant and VARIANTS.get(variant):
            return VARIANTS[variant] + "{" + inner + "}"
        return inner
    if name in _NOT_MATH:   # script/style text is never maths (a broken page's <math> may hold them)
        return ""
    # unknown element (including HTML inside <math>): its children, else its text
    if kids:
        return _conv_list(kids)
    return _chars((el.text or "").strip())
