"""ASCIIMath -> TeX (pure).

ASCIIMath (asciimath.org; read by ASCIIMathML.js and MathJax's AsciiMath
input) writes ``sum_(k=1)^n k^2 = (n(n+1)(2n+1))/6`` between backticks.  This
module converts it to TeX following the language's grammar::

    S ::= v | l E r | u S | b S S        simple expression
    I ::= S_S | S^S | S_S^S | S          intermediate
    E ::= I E | I/I                      expression

with the standard symbol table (Greek letters, operators, relations, arrows,
functions, accents and fonts, ``frac``/``root``/``stackrel``, ``"text"`` and
``text(..)``, matrices ``[[a,b],[c,d]]``, column vectors ``((a),(b))`` and determinants
``|(a,b),(c,d)|``; the TeX names of the
symbols, ``times`` for ``xx``, are taken too).  Brackets around a sub/superscript,
a fraction's parts or a unary argument are dropped, as ASCIIMath does.
"""
from __future__ import annotations

import re

GREEK = ("alpha beta gamma Gamma delta Delta epsilon varepsilon zeta eta theta Theta vartheta iota "
         "kappa lambda Lambda mu nu xi Xi pi Pi rho sigma Sigma tau upsilon Upsilon phi Phi varphi "
         "chi psi Psi omega Omega").split()

CONST = {g: "\\" + g for g in GREEK}
CONST.update({
    # operators
    "+": "+", "-": "-", "*": r"\cdot", "**": r"\ast", "***": r"\star", "//": "/", "\\\\": r"\backslash",
    "setminus": r"\setminus", "xx": r"\times", "|><": r"\ltimes", "><|": r"\rtimes", "|><|": r"\bowtie",
    "-:": r"\div", "divide": r"\div", "@": r"\circ", "o+": r"\oplus", "ox": r"\otimes", "o.": r"\odot",
    "sum": r"\sum", "prod": r"\prod", "^^": r"\wedge", "^^^": r"\bigwedge", "vv": r"\vee",
    "vvv": r"\bigvee", "nn": r"\cap", "nnn": r"\bigcap", "uu": r"\cup", "uuu": r"\bigcup",
    # relations
    "=": "=", "!=": r"\ne", "<": "<", ">": ">", "<=": r"\le", ">=": r"\ge", "le": r"\le", "ge": r"\ge",
    "lt": "<", "gt": ">", "mlt": r"\ll", "mgt": r"\gg", "-<": r"\prec", "-<=": r"\preceq",
    ">-": r"\succ", ">-=": r"\succeq", "in": r"\in", "!in": r"\notin", "sub": r"\subset",
    "sup": r"\supset", "sube": r"\subseteq", "supe": r"\supseteq", "-=": r"\equiv", "~=": r"\cong",
    "~~": r"\approx", "~": r"\sim", "prop": r"\propto",
    # logic
    "and": r"\text{ and }", "or": r"\text{ or }", "not": r"\neg", "=>": r"\Rightarrow",
    "if": r"\text{ if }", "<=>": r"\Leftrightarrow", "AA": r"\forall", "EE": r"\exists",
    "_|_": r"\bot", "TT": r"\top", "|--": r"\vdash", "|==": r"\models",
    # misc
    "int": r"\int", "oint": r"\oint", "del": r"\partial", "grad": r"\nabla", "+-": r"\pm", "-+": r"\mp",
    "O/": r"\emptyset", "oo": r"\infty", "aleph": r"\aleph", ":.": r"\therefore", ":'": r"\because",
    "...": r"\ldots", "ldots": r"\ldots", "cdots": r"\cdots", "vdots": r"\vdots", "ddots": r"\ddots", "|cdots|": r"|\cdots|",
    "quad": r"\quad", "qquad": r"\qquad", "/_": r"\angle", "/_\\": r"\triangle", "frown": r"\frown",
    "diamond": r"\diamond", "square": r"\square", "|__": r"\lfloor", "__|": r"\rfloor",
    "|~": r"\lceil", "~|": r"\rceil", "CC": r"\mathbb{C}", "NN": r"\mathbb{N}", "QQ": r"\mathbb{Q}",
    "RR": r"\mathbb{R}", "ZZ": r"\mathbb{Z}", "'": "'", "!": "!", ",": ",", ".": ".", "|": "|",
    "||": r"\|", "\\ ": r"\ ",
    # differentials: one symbol each in ASCIIMath's table ("dy/dx" is the fraction of dy over dx)
    "dx": "dx", "dy": "dy", "dz": "dz", "dt": "dt",
    # functions
    "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "sec": r"\sec", "csc": r"\csc", "cot": r"\cot",
    "arcsin": r"\arcsin", "arccos": r"\arccos", "arctan": r"\arctan", "sinh": r"\sinh", "cosh": r"\cosh",
    "tanh": r"\tanh", "sech": r"\operatorname{sech}", "csch": r"\operatorname{csch}", "coth": r"\coth",
    "exp": r"\exp", "log": r"\log", "ln": r"\ln", "det": r"\det", "dim": r"\dim", "mod": r"\bmod",
    "gcd": r"\gcd", "lcm": r"\operatorname{lcm}", "lub": r"\operatorname{lub}",
    "glb": r"\operatorname{glb}", "min": r"\min", "max": r"\max", "lim": r"\lim", "Lim": r"\operatorname{Lim}",
    # arrows
    "uarr": r"\uparrow", "darr": r"\downarrow", "rarr": r"\rightarrow", "->": r"\to",
    ">->": r"\rightarrowtail", "->>": r"\twoheadrightarrow", ">->>": r"\twoheadrightarrowtail",
    "|->": r"\mapsto", "larr": r"\leftarrow", "harr": r"\leftrightarrow", "rArr": r"\Rightarrow",
    "lArr": r"\Leftarrow", "hArr": r"\Leftrightarrow",
})
# ASCIIMath also takes the TeX names of its symbols (asciimath.org's "TeX alt" column): ``2 times 7``
# is ``2 xx 7``.  Names already in the table keep their entry.
for _name in ("times cdot ast star backslash setminus div ltimes rtimes bowtie circ oplus otimes odot "
              "wedge bigwedge vee bigvee cap bigcap cup bigcup ne lt gt leq geq prec preceq succ succeq "
              "notin subset supset subseteq supseteq equiv cong approx sim propto neg implies iff forall "
              "exists bot top vdash models partial nabla pm mp emptyset infty therefore because angle "
              "triangle lfloor rfloor lceil rceil uparrow downarrow rightarrow to rightarrowtail "
              "twoheadrightarrow twoheadrightarrowtail mapsto leftarrow leftrightarrow Rightarrow "
              "Leftarrow Leftrightarrow").split():
    CONST.setdefault(_name, {"implies": r"\Rightarrow", "iff": r"\Leftrightarrow", "ne": r"\ne",
                             "leq": r"\le", "geq": r"\ge", "lt": "<", "gt": ">"}.get(_name, "\\" + _name))
UNARY = {"sqrt": r"\sqrt", "mathbf": r"\mathbf", "mathbb": r"\mathbb", "mathcal": r"\mathcal",
         "mathtt": r"\mathtt", "mathfrak": r"\mathfrak", "mathsf": r"\mathsf", "hat": r"\hat", "bar": r"\overline", "ul": r"\underline", "vec": r"\vec",
         "dot": r"\dot", "ddot": r"\ddot", "tilde": r"\tilde", "obrace": r"\overbrace",
         "ubrace": r"\underbrace", "overline": r"\overline", "underline": r"\underline",
         "bb": r"\mathbf", "bbb": r"\mathbb", "cc": r"\mathcal", "tt": r"\mathtt", "fr": r"\mathfrak",
         "sf": r"\mathsf", "rm": r"\mathrm", "cancel": r"\cancel",
         "abs": "abs", "norm": "norm", "floor": "floor", "ceil": "ceil"}
BINARY = {"frac": r"\frac", "root": "root", "stackrel": r"\stackrel", "overset": r"\overset",
          "underset": r"\underset", "color": "color"}
TEXT = {"text", "mbox"}
LEFT = {"(": "(", "[": "[", "{": r"\{", "(:": r"\langle", "<<": r"\langle", "{:": ".", "langle": r"\langle"}
RIGHT = {")": ")", "]": "]", "}": r"\}", ":)": r"\rangle", ">>": r"\rangle", ":}": ".", "rangle": r"\rangle"}

_SYMBOLS = sorted(set(CONST) | set(UNARY) | set(BINARY) | TEXT | set(LEFT) | set(RIGHT) | {"/", "_", "^"},
                  key=len, reverse=True)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _tokenize(s: str) -> list:
    toks, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c == '"':
            j = s.find('"', i + 1)
            j = n if j < 0 else j
            toks.append(("text", s[i + 1:j]))
            i = j + 1
            continue
        m = _NUMBER.match(s, i)
        if m:
            toks.append(("num", m.group(0)))
            i = m.end()
            continue
        for sym in _SYMBOLS:
            if s.startswith(sym, i):
                # a word symbol must not be the start of a longer word ("integer" is not "int"+...)
                if sym[0].isalpha() and len(sym) > 1 and i + len(sym) < n and s[i + len(sym)].isalpha() \
                        and sym not in UNARY and sym not in BINARY:
                    end = i + len(sym)
                    while end < n and s[end].isalpha():
                        end += 1
                    if s[i:end] not in CONST:
                        continue
                if sym in TEXT and s.startswith("(", i + len(sym)):
                    j = s.find(")", i + len(sym))
                    j = n if j < 0 else j
                    toks.append(("text", s[i + len(sym) + 1:j]))
                    i = j + 1
                    break
                toks.append(("sym", sym))
                i += len(sym)
                break
        else:
            toks.append(("var", c))
            i += 1
    return toks


class _Node:
    __slots__ = ("tex", "inner", "bracketed", "rows")

    def __init__(self, tex, inner=None, bracketed=False, rows=None):
        self.tex, self.inner, self.bracketed, self.rows = tex, inner if inner is not None else tex, bracketed, rows


class _Parser:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def parse_S(self):  # noqa: C901
        tok = self.take()
        if tok is None:
            return _Node("")
        kind, val = tok
        if kind == "text":
            return _Node(r"\text{" + val + "}")
        if kind in ("num", "var"):
            return _Node(val if val not in "{}%#&$" else "\\" + val)
        if val in LEFT:
            items, right = self.parse_E(inside=True)
            inner = _join(items)
            rows = _matrix_rows(items)
            r = RIGHT.get(right, ".") if right else "."
            lft = LEFT[val]
            if rows is not None:
                ncol = len(rows[0])
                body = r"\begin{array}{" + "c" * ncol + "}" + r" \\ ".join(" & ".join(c) for c in rows) \
                    + r"\end{array}"
                return _Node(r"\left" + lft + body + r"\right" + r, body, True)
            if lft == "." and r == ".":
                return _Node("{" + inner + "}", inner, True)
            return _Node(r"\left" + lft + inner + r"\right" + r, inner, True)
        if val in RIGHT:
            return _Node(RIGHT[val] if RIGHT[val] != "." else "")
        if val == "|":
            det = self._determinant()
            if det is not None:
                return det
        if val in UNARY:
            arg = self.parse_S()
            cmd = UNARY[val]
            a = arg.inner
            if cmd == "abs":
                return _Node(r"\left|" + a + r"\right|")
            if cmd == "norm":
                return _Node(r"\left\|" + a + r"\right\|")
            if cmd == "floor":
                return _Node(r"\left\lfloor " + a + r"\right\rfloor")
            if cmd == "ceil":
                return _Node(r"\left\lceil " + a + r"\right\rceil")
            return _Node(cmd + "{" + a + "}")
        if val in BINARY:
            a, b = self.parse_S(), self.parse_S()
            cmd = BINARY[val]
            if cmd == "root":
                return _Node(r"\sqrt[" + a.inner + "]{" + b.inner + "}")
            if cmd == "color":
                return _Node(b.tex)
            return _Node(cmd + "{" + a.inner + "}{" + b.inner + "}")
        if val in CONST:
            return _Node(CONST[val])
        return _Node(val)

    def _determinant(self):
        """``|(a,b),(c,d)|``: bars around the rows of a matrix are its delimiters (a determinant),
        as ASCIIMath reads them; None (the bar stays a symbol) when the bars hold anything else."""
        depth, j = 0, self.i
        while j < len(self.t):
            kind, v = self.t[j]
            if kind == "sym" and v in LEFT:
                depth += 1
            elif kind == "sym" and v in RIGHT:
                depth -= 1
                if depth < 0:
                    return None
            elif kind == "sym" and v == "|" and depth == 0:
                break
            j += 1
        else:
            return None
        items, _ = _Parser(self.t[self.i:j]).parse_E()
        rows = _matrix_rows(items)
        if rows is None:
            return None
        self.i = j + 1
        body = r"\begin{array}{" + "c" * len(rows[0]) + "}" + r" \\ ".join(" & ".join(c) for c in rows) \
            + r"\end{array}"
        return _Node(r"\left|" + body + r"\right|", body, True)

    def parse_I(self):
        s = self.parse_S()
        tex = s.tex
        for op in ("_", "^"):
            tok = self.peek()
            if tok and tok == ("sym", op):
                self.take()
                arg = self.parse_S()
                tex += op + "{" + arg.inner + "}"
        # "_" after "^" (S^S_S) is also written by users
        tok = self.peek()
        if tok and tok == ("sym", "_") and "_" not in tex[len(s.tex):]:
            self.take()
            tex += "_{" + self.parse_S().inner + "}"
        if tex is s.tex:
            return s
        return _Node(tex)

    def parse_E(self, inside=False):
        items = []
        while True:
            tok = self.peek()
            if tok is None:
                return items, None
            if inside and tok[0] == "sym" and tok[1] in RIGHT:
                self.take()
                return items, tok[1]
            node = self.parse_I()
            tok = self.peek()
            if tok == ("sym", "/"):
                self.take()
                den = self.parse_I()
                node = _Node(r"\frac{" + node.inner + "}{" + den.inner + "}")
            items.append(node)


def _join(items) -> str:
    out = ""
    for n in items:
        t = n.tex
        if out and t and (t[0].isalnum()) and re.search(r"\\[A-Za-z]+$", out):
            out += " "
        out += t
    return out


def _matrix_rows(items):
    """[[a,b],[c,d]] -> [["a","b"],["c","d"]] when items are bracket groups split by commas; one
    column is enough (``((1),(0))`` is a column vector)."""
    groups = [n for n in items if n.tex != ","]
    if len(groups) < 2 or len(groups) != (len(items) + 1) // 2 or not all(n.bracketed for n in groups):
        return None
    rows = []
    for g in groups:
        cells = [c.strip() for c in _split_top(g.inner)]
        rows.append(cells)
    if len({len(r) for r in rows}) != 1:
        return None
    return rows


def _split_top(tex: str) -> list:
    parts, depth, cur = [], 0, ""
    i = 0
    while i < len(tex):
        if tex.startswith(r"\left", i):
            depth += 1
        elif tex.startswith(r"\right", i):
            depth -= 1
        c = tex[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    parts.append(cur)
    return parts


def asciimath_to_tex(s: str) -> str:
    """Convert one ASCIIMath expression to TeX."""
    items, _ = _Parser(_tokenize(s)).parse_E()
    return " ".join(_join(items).split())
