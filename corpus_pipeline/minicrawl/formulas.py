"""Random formulas by topic, as TeX, and a small TeX -> MathML converter (pure).

The generator writes formulas as TeX strings from templates; MathML pages and
KaTeX spans need presentation MathML, which :func:`tex_to_mathml` produces for
the restricted TeX subset the templates use.
"""
from __future__ import annotations

import re
from html import escape

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "theta": "θ", "lambda": "λ", "mu": "μ", "sigma": "σ", "pi": "π", "phi": "φ", "omega": "ω",
    "rho": "ρ", "nu": "ν", "hbar": "ℏ", "tau": "τ", "chi": "χ", "xi": "ξ", "zeta": "ζ", "eta": "η", "Delta": "Δ",
    "Gamma": "Γ", "Omega": "Ω", "Sigma": "Σ", "Phi": "Φ", "Lambda": "Λ",
}
OPS = {
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "cdot": "⋅", "times": "×", "int": "∫", "iint": "∬",
    "oint": "∮", "sum": "∑", "prod": "∏", "to": "→", "in": "∈", "notin": "∉", "subseteq": "⊆",
    "subset": "⊂", "neq": "≠", "ne": "≠", "equiv": "≡", "pm": "±", "ldots": "…", "cdots": "⋯",
    "partial": "∂", "nabla": "∇", "mid": "∣", "forall": "∀", "exists": "∃", "Rightarrow": "⇒",
    "iff": "⟺", "implies": "⟹", "approx": "≈", "sim": "∼", "cup": "∪", "cap": "∩", "circ": "∘",
    "otimes": "⊗", "oplus": "⊕", "mapsto": "↦", "langle": "⟨", "rangle": "⟩", "lfloor": "⌊",
    "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "|": "‖", "{": "{", "}": "}", "setminus": "∖",
    "emptyset": "∅", "perp": "⊥", "angle": "∠", "triangle": "△", "parallel": "∥", "cong": "≅",
    "infty": "∞", "dots": "…", "vert": "|", "ast": "∗", "star": "⋆", "prime": "′",
}
FUNCS = {"sin", "cos", "tan", "log", "ln", "exp", "lim", "max", "min", "gcd", "det", "dim",
         "ker", "sup", "inf", "deg", "arg", "Pr", "lcm", "rank", "tr", "sec", "arctan", "Var", "E"}
SPACES = {",", ";", "quad", "qquad", "!", " ", ":"}
_TOKEN = re.compile(r"\\[a-zA-Z]+|\\.|[a-zA-Z]|\d+(?:\.\d+)?|\S")


def _tokens(tex: str) -> list[str]:
    return _TOKEN.findall(tex)


class _Parser:
    def __init__(self, tex: str):
        self.toks = _tokens(tex)
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self):
        t = self.peek()
        self.i += 1
        return t

    def arg(self) -> str:
        t = self.take()
        if t is None:
            return "<mrow/>"
        if t == "{":
            return "<mrow>" + "".join(self.seq("}")) + "</mrow>"
        return self.atom(t)

    def atom(self, t: str) -> str:
        if t.startswith("\\"):
            name = t[1:]
            if name == "frac" or name == "dfrac" or name == "tfrac":
                a = self.arg()
                b = self.arg()
                return f"<mfrac>{a}{b}</mfrac>"
            if name == "binom":
                a = self.arg()
                b = self.arg()
                return f'<mrow><mo>(</mo><mfrac linethickness="0">{a}{b}</mfrac><mo>)</mo></mrow>'
            if name == "sqrt":
                if self.peek() == "[":
                    self.take()
                    idx = "".join(self.seq("]"))
                    return f"<mroot>{self.arg()}<mrow>{idx}</mrow></mroot>"
                return f"<msqrt>{self.arg()}</msqrt>"
            if name in ("mathbb", "mathcal", "mathrm", "text", "operatorname", "mathbf"):
                variant = {"mathbb": "double-struck", "mathcal": "script", "mathbf": "bold"}.get(name, "normal")
                inner = self._raw_group()
                tag = "mtext" if name == "text" else "mi"
                return f'<{tag} mathvariant="{variant}">{escape(inner)}</{tag}>'
            if name == "begin":
                self._raw_group()
                rows, cells, cur = [], [], []
                while self.peek() is not None and self.peek() != "\\end":
                    tok = self.take()
                    if tok == "&":
                        cells.append(cur)
                        cur = []
                    elif tok == "\\\\":
                        cells.append(cur)
                        rows.append(cells)
                        cells, cur = [], []
                    else:
                        cur.append(self.atom(tok))
                cells.append(cur)
                rows.append(cells)
                self.take()
                self._raw_group()
                body = "".join("<mtr>" + "".join(f"<mtd>{''.join(c)}</mtd>" for c in row) + "</mtr>" for row in rows)
                return f"<mrow><mo>(</mo><mtable>{body}</mtable><mo>)</mo></mrow>"
            if name in ("left", "right", "big", "Big", "bigl", "bigr"):
                d = self.take() or ""
                if d.startswith("\\"):
                    d = OPS.get(d[1:], d[1:])
                if d == ".":
                    return ""
                return f'<mo stretchy="true">{escape(d)}</mo>'
            if name in SPACES:
                return '<mspace width="0.2em"/>'
            if name == "pmod":
                return f"<mrow><mo>(</mo><mi>mod</mi>{self.arg()}<mo>)</mo></mrow>"
            if name in ("bar", "overline", "hat", "vec", "tilde", "dot"):
                accent = {"bar": "¯", "overline": "¯", "hat": "^", "vec": "→", "tilde": "~", "dot": "˙"}[name]
                return f'<mover accent="true">{self.arg()}<mo>{accent}</mo></mover>'
            if name in GREEK:
                return f"<mi>{GREEK[name]}</mi>"
            if name in FUNCS:
                return f"<mi>{name}</mi>"
            if name in OPS:
                tag = "mi" if name in ("infty", "emptyset", "partial", "nabla") else "mo"
                return f"<{tag}>{escape(OPS[name])}</{tag}>"
            return f"<mi>{escape(name)}</mi>"
        if t.isdigit() or re.fullmatch(r"\d+\.\d+", t):
            return f"<mn>{t}</mn>"
        if t.isalpha():
            return f"<mi>{t}</mi>"
        if t == "'":
            return "<mo>′</mo>"
        return f"<mo>{escape(t)}</mo>"

    def _raw_group(self) -> str:
        if self.peek() != "{":
            return self.take() or ""
        self.take()
        depth, out = 1, []
        while self.peek() is not None:
            t = self.take()
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    break
            out.append(t)
        return " ".join(out) if any(len(x) > 1 for x in out) else "".join(out)

    def seq(self, end: str | None) -> list[str]:
        out: list[str] = []
        while True:
            t = self.peek()
            if t is None:
                return out
            if t == end:
                self.take()
                return out
            self.take()
            if t in ("^", "_"):
                base = out.pop() if out else "<mrow/>"
                first = self.arg()
                other = "_" if t == "^" else "^"
                if self.peek() == other:
                    self.take()
                    second = self.arg()
                    sub, sup = (second, first) if t == "^" else (first, second)
                    out.append(f"<msubsup>{base}{sub}{sup}</msubsup>")
                else:
                    out.append(f"<msup>{base}{first}</msup>" if t == "^" else f"<msub>{base}{first}</msub>")
                continue
            if t == "{":
                out.append("<mrow>" + "".join(self.seq("}")) + "</mrow>")
                continue
            out.append(self.atom(t))


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """Presentation MathML for the TeX subset the templates use."""
    body = "".join(_Parser(tex).seq(None))
    disp = ' display="block"' if display else ""
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"{disp}><mrow>{body}</mrow></math>'


def tex_plain(tex: str) -> str:
    """A rough plain-text rendering (what a screen shows), for KaTeX's HTML half and image titles."""
    out = []
    for t in _tokens(tex):
        if t.startswith("\\"):
            n = t[1:]
            out.append(GREEK.get(n) or OPS.get(n) or (n if n in FUNCS else ""))
        elif t in "{}":
            continue
        else:
            out.append(t)
    return "".join(out)


# ---------------------------------------------------------------- templates
V = ["x", "y", "z", "t", "u", "s", "w"]
F = ["f", "g", "h", "p", "q"]
M = ["A", "B", "M", "P", "Q"]
N = ["n", "k", "m", "j"]
G = ["\\alpha", "\\beta", "\\theta", "\\lambda", "\\mu", "\\sigma", "\\omega", "\\varepsilon"]


def _c(r, lo=2, hi=12):
    return r.randint(lo, hi)


def _algebra(r):
    v, a, b, c = r.choice(V), _c(r), _c(r, 1, 30), _c(r, 1, 9)
    f = r.choice(F)
    return r.choice([
        f"{a}{v}^2 - {b}{v} + {c} = 0",
        f"{v} = \\frac{{-{b} \\pm \\sqrt{{{b}^2 - 4 \\cdot {a} \\cdot {c}}}}}{{2 \\cdot {a}}}",
        f"{f}({v}) = {v}^{{{c + 1}}} - {a}{v} + {b}",
        f"({v} + {a})({v} - {c}) = {v}^2 + {a - c}{v} - {a * c}",
        f"\\frac{{{v}^2 - {a * a}}}{{{v} - {a}}} = {v} + {a}",
        f"|{a}{v} - {b}| \\le {c}",
        f"{v}^{{{c}}} \\cdot {v}^{{{a}}} = {v}^{{{a + c}}}",
        f"\\log_{{{a}}} ({b} {v}) = \\log_{{{a}}} {b} + \\log_{{{a}}} {v}",
        f"{f}^{{-1}}({v}) = \\frac{{{v} - {b}}}{{{a}}}",
        f"{a}^{{{v}}} = {b}",
        f"\\sqrt{{{v} + {a}}} = {v} - {c}",
        f"{v}_1 + {v}_2 = -\\frac{{{b}}}{{{a}}}, \\quad {v}_1 {v}_2 = \\frac{{{c}}}{{{a}}}",
    ])


def _calculus(r):
    v, a, n, f = r.choice(V), _c(r), _c(r, 2, 7), r.choice(F)
    return r.choice([
        f"\\int_0^{{{a}}} {v}^{{{n}}} \\, d{v} = \\frac{{{a}^{{{n + 1}}}}}{{{n + 1}}}",
        f"\\lim_{{{v} \\to 0}} \\frac{{\\sin({a}{v})}}{{{v}}} = {a}",
        f"\\frac{{d}}{{d{v}}} \\left( {v}^{{{n}}} e^{{{a}{v}}} \\right) = {n}{v}^{{{n - 1}}} e^{{{a}{v}}} + {a}{v}^{{{n}}} e^{{{a}{v}}}",
        f"{f}'({v}) = \\lim_{{h \\to 0}} \\frac{{{f}({v}+h) - {f}({v})}}{{h}}",
        f"\\sum_{{n=1}}^{{\\infty}} \\frac{{1}}{{n^{{{n}}}}}",
        f"\\int \\frac{{d{v}}}{{{v}^2 + {a * a}}} = \\frac{{1}}{{{a}}} \\arctan \\frac{{{v}}}{{{a}}} + C",
        f"e^{{{v}}} = \\sum_{{k=0}}^{{\\infty}} \\frac{{{v}^k}}{{k!}}",
        f"\\int_a^b {f}'({v}) \\, d{v} = {f}(b) - {f}(a)",
        f"|{f}({v}) - {f}(y)| \\le {a} |{v} - y|",
        f"\\lim_{{n \\to \\infty}} \\left(1 + \\frac{{{a}}}{{n}}\\right)^n = e^{{{a}}}",
        f"\\frac{{\\partial^2 u}}{{\\partial t^2}} = {a} \\frac{{\\partial^2 u}}{{\\partial {v}^2}}",
        f"\\int_0^{{\\pi}} \\sin^{{{n}}} {v} \\, d{v}",
    ])


def _number_theory(r):
    a, b, p, n = _c(r, 2, 60), _c(r, 2, 40), r.choice([3, 5, 7, 11, 13, 17, 19, 23, 29, 31]), r.choice(N)
    return r.choice([
        f"a^{{{p - 1}}} \\equiv 1 \\pmod{{{p}}}",
        f"\\gcd({a}, {b}) = {__import__('math').gcd(a, b)}",
        f"{n}^2 + {n} + {p} \\equiv 0 \\pmod{{{a}}}",
        f"\\sum_{{d \\mid {n}}} \\varphi(d) = {n}",
        f"{a} x + {b} y = \\gcd({a}, {b})",
        "p \\mid ab \\Rightarrow p \\mid a \\text{ or } p \\mid b",
        f"\\left( \\frac{{{a}}}{{{p}}} \\right) \\equiv {a}^{{{(p - 1) // 2}}} \\pmod{{{p}}}",
        f"2^{{{p}}} - 1",
        f"\\varphi({p}^{{{n}}}) = {p}^{{{n}}} - {p}^{{{n} - 1}}",
        f"x^2 \\equiv {a % p} \\pmod{{{p}}}",
        f"{n}! + 1 \\equiv 0 \\pmod{{{n} + 1}}",
        f"\\prod_{{p \\le {a}}} \\left(1 - \\frac{{1}}{{p}}\\right)^{{-1}}",
    ])


def _geometry(r):
    a, b, c = _c(r, 3, 20), _c(r, 3, 20), _c(r, 3, 20)
    return r.choice([
        "a^2 + b^2 = c^2",
        f"{a}^2 + {b}^2 = c^2",
        "\\angle ABC + \\angle BCA + \\angle CAB = \\pi",
        "S = \\frac{1}{2} ab \\sin C",
        "\\frac{a}{\\sin A} = \\frac{b}{\\sin B} = 2R",
        "c^2 = a^2 + b^2 - 2ab \\cos \\gamma",
        "V = \\frac{4}{3} \\pi r^3",
        f"(x - {a})^2 + (y + {b})^2 = {c * c}",
        "\\triangle ABC \\cong \\triangle DEF",
        "d = \\sqrt{(x_2 - x_1)^2 + (y_2 - y_1)^2}",
        f"A = \\pi r^2 = {a * a} \\pi",
        "V - E + F = 2",
    ])


def _probability(r):
    n, k, p = _c(r, 5, 20), _c(r, 1, 5), r.choice(["\\frac{1}{2}", "\\frac{1}{3}", "p", "0.4", "\\frac{2}{5}"])
    return r.choice([
        f"P(X = {k}) = \\binom{{{n}}}{{{k}}} {p}^{{{k}}} (1 - {p})^{{{n - k}}}",
        "E[X] = \\sum_{x} x \\, P(X = x)",
        "\\Pr(A \\mid B) = \\frac{\\Pr(B \\mid A) \\Pr(A)}{\\Pr(B)}",
        "\\operatorname{Var}(X) = E[X^2] - (E[X])^2",
        f"P(|X - \\mu| \\ge {k}\\sigma) \\le \\frac{{1}}{{{k * k}}}",
        "f(x) = \\frac{1}{\\sigma \\sqrt{2\\pi}} e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}}",
        "P(A \\cup B) = P(A) + P(B) - P(A \\cap B)",
        f"\\binom{{{n}}}{{{k}}} = \\frac{{{n}!}}{{{k}! \\, {n - k}!}}",
        "E[X] = \\frac{1}{\\lambda}, \\quad P(X > t) = e^{-\\lambda t}",
        f"\\frac{{1}}{{{n}}} \\sum_{{i=1}}^{{{n}}} X_i \\to \\mu",
    ])


def _linear_algebra(r):
    a, b, c, d = (_c(r, -5, 9) for _ in range(4))
    return r.choice([
        f"\\det \\begin{{pmatrix}} {a} & {b} \\\\ {c} & {d} \\end{{pmatrix}} = {a * d - b * c}",
        "A v = \\lambda v",
        "\\det(A - \\lambda I) = 0",
        "(AB)^T = B^T A^T",
        "\\dim \\ker T + \\operatorname{rank} T = \\dim V",
        "\\langle u, v \\rangle = u_1 v_1 + u_2 v_2 + u_3 v_3",
        "A^{-1} = \\frac{1}{\\det A} \\operatorname{adj} A",
        "\\|v\\| = \\sqrt{\\langle v, v \\rangle}",
        "x = A^{-1} b",
        "\\operatorname{tr}(AB) = \\operatorname{tr}(BA)",
        "T(\\alpha u + \\beta v) = \\alpha T(u) + \\beta T(v)",
    ])


def _combinatorics(r):
    n, _k = _c(r, 4, 15), _c(r, 2, 4)  # _k: keeps the RNG sequence (and the crawl) unchanged
    return r.choice([
        f"\\sum_{{k=0}}^{{{n}}} \\binom{{{n}}}{{k}} = 2^{{{n}}}",
        "\\binom{n}{k} = \\binom{n-1}{k-1} + \\binom{n-1}{k}",
        "C_n = \\frac{1}{n+1} \\binom{2n}{n}",
        "F_{n+2} = F_{n+1} + F_n",
        "|A \\cup B \\cup C| = |A| + |B| + |C| - |A \\cap B| - |A \\cap C| - |B \\cap C| + |A \\cap B \\cap C|",
        f"{n}! = {n} \\cdot {n - 1} \\cdots 2 \\cdot 1",
        "\\sum_{v \\in V} \\deg v = 2|E|",
        f"(1 + x)^{{{n}}} = \\sum_{{k=0}}^{{{n}}} \\binom{{{n}}}{{k}} x^k",
    ])


TOPIC_FORMULAS = {
    "algebra": _algebra, "calculus": _calculus, "number_theory": _number_theory,
    "geometry": _geometry, "probability": _probability, "linear_algebra": _linear_algebra,
    "combinatorics": _combinatorics,
}
TOPICS = tuple(TOPIC_FORMULAS)


def formula(r, topic: str) -> str:
    return TOPIC_FORMULAS[topic](r)


def small_symbol(r, topic: str) -> str:
    """A short inline formula (a variable, a set, a term)."""
    return r.choice({
        "algebra": ["x", "x^2", "a \\ne 0", "f(x)", "x_1", "n \\ge 1"],
        "calculus": ["f'(x)", "\\varepsilon > 0", "\\delta", "[a, b]", "x \\to 0", "f''"],
        "number_theory": ["p", "n \\in \\mathbb{N}", "p \\mid n", "\\gcd(a, b) = 1", "\\varphi(n)", "a \\equiv b"],
        "geometry": ["\\triangle ABC", "AB", "\\angle A", "r", "O", "AB \\parallel CD"],
        "probability": ["X", "P(A)", "\\mu", "\\sigma^2", "E[X]", "n \\to \\infty"],
        "linear_algebra": ["A", "v \\in V", "\\lambda", "A^T", "\\ker T", "I_n"],
        "combinatorics": ["\\binom{n}{k}", "n!", "G = (V, E)", "k", "F_n", "|A|"],
    }[topic])
