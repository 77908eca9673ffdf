"""Unit tests of the maths-preserving extractor on small hand-written pages."""
from __future__ import annotations

import signal
import threading
import time

import lxml.html
import pytest

from corpus_pipeline import extractors
from corpus_pipeline.extract import Extracted, Skip, time_limit, ExtractTimeout
from corpus_pipeline.extract import extract_html as _extract_html
from corpus_pipeline.mathhtml import detect_text_delimiters, img_tex
from corpus_pipeline.mathml import mathml_to_tex

# Every test runs with each registered extractor (ingest.extractor / final.extractor).
EXTRACTOR = {"name": "trafilatura"}


def extract_html(html, url, **kw):
    kw.setdefault("extractor", EXTRACTOR["name"])
    return _extract_html(html, url, **kw)


@pytest.fixture(autouse=True, params=extractors.names())
def extractor(request):
    EXTRACTOR["name"] = request.param
    yield request.param


FILLER = (
    "<p>The theory of these objects is developed over several sections, and each section "
    "adds a result that the next one needs. We state every definition before using it, "
    "and we give a full proof of every claim so the reader can check each step.</p>"
)


def page(body: str, title: str = "A page about maths") -> str:
    return (f"<html><head><title>{title}</title></head><body>"
            f"<nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
            f"<article><h1>{title}</h1>{FILLER}{body}{FILLER}</article>"
            f"<footer>Copyright footer text</footer></body></html>")


def run(body: str, **kw) -> Extracted:
    r = extract_html(page(body, **kw), "https://example.org/p")
    assert isinstance(r, Extracted), r
    return r


# --- markup kinds ----------------------------------------------------------------

def test_mathjax_scripts_inline_and_display_and_preview_dropped():
    r = run('<p>Let <span class="MathJax_Preview">x2</span>'
            '<span class="MathJax" id="MathJax-Element-1-Frame">RENDEREDGLYPHS</span>'
            '<script type="math/tex" id="MathJax-Element-1">x^2 + \\alpha</script> be given, and'
            '<script type="math/tex; mode=display">\\frac{a}{b} = \\sum_{i=1}^n i</script>'
            ' holds for every value considered here.</p>')
    assert "$x^2 + \\alpha$" in r.text
    assert "$$\\frac{a}{b} = \\sum_{i=1}^n i$$" in r.text
    assert "RENDEREDGLYPHS" not in r.text
    assert "mathjax" in r.math_kinds and r.has_math_markup


def test_tex_comment_dropped_before_line_breaks_collapse():
    # joined into one line, the comment would swallow "+ c"; \\% is a percent sign, not a comment
    r = run('<p>The sum <script type="math/tex; mode=display">a + b % the first two\n+ c = 50\\%\nof d'
            '</script> is what the statement asks for in every case considered here.</p>')
    assert "$$a + b + c = 50\\% of d$$" in r.text


def test_tex_delimiters_in_text_survive():
    r = run("<p>Euler wrote \\(e^{i\\pi} + 1 = 0\\) and also $$\\int_0^1 x\\,dx = \\frac12$$ "
            "in his letters, and the identity $\\alpha_1 + \\beta$ follows at once.</p>")
    assert "\\(e^{i\\pi} + 1 = 0\\)" in r.text
    assert "$$\\int_0^1 x\\,dx = \\frac12$$" in r.text
    assert "$\\alpha_1 + \\beta$" in r.text
    assert r.math_kinds == ["tex_delimiters"]


def test_tex_delimiters_with_engine_loaded_reports_mathjax():
    html = page("<p>The series $\\sum_n a_n$ converges absolutely for every sequence here.</p>")
    html = html.replace("</head>", '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js">'
                                   "</script></head>")
    r = extract_html(html, "u")
    assert r.math_kinds == ["mathjax", "tex_delimiters"]


def test_katex_annotation_used_and_rendering_dropped():
    katex = ('<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>x</mi></mrow>'
             '<annotation encoding="application/x-tex">\\sqrt{x^2+1}</annotation></semantics></math>'
             '</span><span class="katex-html" aria-hidden="true">KATEXGLYPHS</span></span>')
    disp = ('<span class="katex-display"><span class="katex"><span class="katex-mathml"><math>'
            '<semantics><mi>y</mi><annotation encoding="application/x-tex">\\int_0^\\infty f</annotation>'
            '</semantics></math></span><span class="katex-html">MOREGLYPHS</span></span></span>')
    r = run(f"<p>The value {katex} is positive for every real number considered. {disp}</p>")
    assert "$\\sqrt{x^2+1}$" in r.text
    assert "$$\\int_0^\\infty f$$" in r.text
    assert "KATEXGLYPHS" not in r.text and "MOREGLYPHS" not in r.text
    assert "katex" in r.math_kinds and "mathml" not in r.math_kinds


def test_mathml_converted_to_tex():
    mml = ("<math><mfrac><mn>1</mn><msqrt><mi>x</mi></msqrt></mfrac><mo>+</mo>"
           "<msup><mi>e</mi><mrow><mo>-</mo><mi>t</mi></mrow></msup><mo>+</mo>"
           "<msub><mi>a</mi><mi>k</mi></msub><mo>&#x2264;</mo><mi>&#x3B1;</mi></math>")
    r = run(f"<p>The bound {mml} holds for every choice of the parameters in the statement.</p>")
    assert "$\\frac{1}{\\sqrt{x}}+e^{-t}+a_k\\le \\alpha$" in r.text
    assert r.math_kinds == ["mathml"]


def test_mathml_own_tex_annotation_preferred():
    mml = ('<math display="block"><semantics><mrow><mi>q</mi></mrow>'
           '<annotation encoding="application/x-tex">\\mathbb{Q}_p</annotation></semantics></math>')
    r = run(f"<p>The field {mml} is complete with respect to its absolute value here.</p>")
    assert "$$\\mathbb{Q}_p$$" in r.text


@pytest.mark.parametrize("mml, expected", [
    ("<munderover><mo>&#x2211;</mo><mrow><mi>k</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover>"
     "<msup><mi>k</mi><mn>2</mn></msup>", "\\sum_{k=1}^n k^2"),
    ("<mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr>"
     "<mtr><mtd><mi>c</mi></mtd><mtd><mi>d</mi></mtd></mtr></mtable>",
     "\\begin{array}{cc}a & b \\\\ c & d\\end{array}"),
    ("<mrow><mo>(</mo><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>)</mo></mrow>", "\\left(\\frac{a}{b}\\right)"),
    # MathJax's \bigl( ... \bigr): each sized fence alone in an mrow; a non-stretchy pair stays plain
    ("<mrow><mrow><mo minsize='2em' maxsize='2em'>(</mo></mrow><mfrac linethickness='0'><mi>n</mi><mi>k</mi></mfrac>"
     "<mrow><mo minsize='2em' maxsize='2em'>)</mo></mrow></mrow>", "\\left(\\genfrac{}{}{0}{}{n}{k}\\right)"),
    ("<mi>P</mi><mo stretchy='false'>(</mo><mi>E</mi><mo stretchy='false'>)</mo>", "P(E)"),
    ("<mrow><mrow><mo>(</mo><mi>a</mi></mrow><mi>b</mi><mo>)</mo></mrow>", "(ab)"),
    ("<mroot><mi>x</mi><mn>3</mn></mroot>", "\\sqrt[3]{x}"),
    ("<mover><mi>x</mi><mo>^</mo></mover>", "\\hat{x}"),
    ("<mi>sin</mi><mi>&#x3B8;</mi>", "\\sin \\theta"),
    ("<mi mathvariant='double-struck'>R</mi>", "\\mathbb{R}"),
    ("<mfrac linethickness='0'><mi>n</mi><mi>k</mi></mfrac>", "\\genfrac{}{}{0}{}{n}{k}"),
])
def test_mathml_constructs(mml, expected):
    el = lxml.html.fragment_fromstring(f"<math>{mml}</math>")
    assert mathml_to_tex(el) == expected


def test_wikipedia_math_element_counted_once():
    wiki = ('<span class="mwe-math-element"><span class="mwe-math-mathml-inline" style="display: none;">'
            '<math alttext="{\\displaystyle \\sigma ^{2}}"><semantics><msup><mi>&#x3C3;</mi><mn>2</mn></msup>'
            '<annotation encoding="application/x-tex">{\\displaystyle \\sigma ^{2}}</annotation>'
            '</semantics></math></span><img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/abc"'
            ' class="mwe-math-fallback-image-inline" alt="{\\displaystyle \\sigma ^{2}}"></span>')
    r = run(f"<p>The variance is written {wiki} in most of the textbooks on the subject.</p>")
    assert r.text.count("\\sigma ^{2}") == 1
    assert "${\\displaystyle \\sigma ^{2}}$" in r.text
    assert "mathml" in r.math_kinds


@pytest.mark.parametrize("attrs, expected", [
    ('src="https://s0.wp.com/latex.php?latex=%5Cfrac%7Ba%7D%7Bb%7D+%2B+c&bg=ffffff&fg=000" '
     'alt="\\frac{a}{b} + c" class="latex"', "\\frac{a}{b} + c"),
    ('src="http://latex.codecogs.com/png.latex?\\int_0^1&space;x^2" alt=""', "\\int_0^1 x^2"),
    ('src="/cgi-bin/mimetex.cgi?f(z)=\\exp(z)-1" align="middle"', "f(z)=\\exp(z)-1"),
    ('src="/w/render/svg/123" class="mwe-math-fallback-image-display" alt="{\\displaystyle x}"',
     "{\\displaystyle x}"),
    ('src="/photo.jpg" alt="A photo of the author"', None),
    ('src="/img/eq1.png" class="equation" alt="Figure one"', None),
    # display/inline variants of the tex class, and alt texts that carry their own delimiters
    ('src="/latex/a78692d6.png" class="tex-display" alt="\\dim \\ker T = n"', "\\dim \\ker T = n"),
    ('src="//latex.artofproblemsolving.com/3/a.png" class="latexcenter" alt="$x^2 + y^2$"', "x^2 + y^2"),
    ('src="/a.png" class="latex" alt="$$\\sum_i a_i$$"', "\\sum_i a_i"),
    ('src="/a.png" class="latex" alt="\\(a_1\\)"', "a_1"),
    ('src="/img/wall.png" class="texture" alt="x^2 wall"', None),
])
def test_img_tex(attrs, expected):
    img = lxml.html.fragment_fromstring(f"<img {attrs}>")
    assert img_tex(img) == expected


def test_formula_images_in_page():
    r = run('<p>Take <img src="https://s0.wp.com/latex.php?latex=%5Ckappa&bg=ffffff" alt="\\kappa"'
            ' class="latex"> small, then the flow is <img src="/avatar.png" alt="avatar"> '
            'non-collapsed at every scale below the threshold we fixed.</p>')
    assert "$\\kappa$" in r.text
    assert "avatar" not in r.text
    assert r.math_kinds == ["img_tex"]


def test_display_formula_image_becomes_display_tex():
    # a question's display formula (<div class="math-display"><img class="tex-display">) was lost
    r = run('<p>Suppose the map is linear and we know its kernel and its image, then</p>'
            '<div class="math-display"><img class="tex-display" src="/latex/a7.png" '
            'alt="\\dim \\ker T + \\operatorname{rank} T = \\dim V"></div>'
            '<p>follows, and the rest of the argument is a short computation with the basis.</p>')
    assert "$$\\dim \\ker T + \\operatorname{rank} T = \\dim V$$" in r.text
    assert "img_tex" in r.math_kinds


def test_mathjax3_container_and_bbcode_forum_tags():
    html = page('<p>Newton: <mjx-container display="true"><formula>\\vec{F} = m\\vec{a}</formula>'
                '</mjx-container> and inline [itex]x_1[/itex] and [tex]\\int f[/tex] as posted by users.</p>')
    html = html.replace("</head>", '<script src="/js/mathjax/2.7.1/MathJax.js?config=TeX"></script></head>')
    r = extract_html(html, "u")
    assert "$$\\vec{F} = m\\vec{a}$$" in r.text
    assert "$x_1$" in r.text and "$$\\int f$$" in r.text


def test_plain_page_has_no_math_and_prices_are_not_tex():
    r = run("<p>The tickets cost $5 and $10 at the door, and parking is $3 for the evening "
            "while the programme is free for members of the club.</p>", title="Concert tonight")
    assert r.has_math_markup is False and r.math_kinds == []
    assert "$5 and $10" in r.text


def test_title_kept():
    r = run("<p>Short body paragraph with several words so that it counts as main content.</p>",
            title="On the Riemann zeta function")
    assert r.title == "On the Riemann zeta function"


def test_broken_html_still_extracts():
    html = ("<html><head><title>Broken</title><body><div><p>First paragraph with <b>bold text and "
            "<i>nested italics that never close and the maths <script type='math/tex'>a^2+b^2=c^2"
            "</script> inside it" + FILLER.replace("</p>", "") + "<div><p>Second paragraph <table><tr>"
            "<td>cell with more words in it to keep</td></div>")
    r = extract_html(html, "u")
    assert isinstance(r, Extracted)
    assert "$a^2+b^2=c^2$" in r.text


@pytest.mark.parametrize("html", ["", "   \n ", "<html><head><script>var x=1;</script></head><body></body></html>"])
def test_empty_page_is_skipped(html):
    r = extract_html(html, "u")
    assert isinstance(r, Skip) and r.reason == "extract_empty"


def test_error_is_reported_not_raised():
    r = extract_html(b"\x00\x01".decode() * 3, "u")  # no tree at all
    assert isinstance(r, Skip) and r.reason in ("extract_empty", "extract_error")


def test_bad_favor_rejected():
    with pytest.raises(ValueError):
        extract_html(page("<p>x</p>"), "u", favor="fastest")


def test_detect_text_delimiters_ignores_code_and_prices():
    assert not detect_text_delimiters('$fl_array = preg_grep("/^(\\d+)?\\.\\d+$/", $array);')
    assert not detect_text_delimiters("It costs $5 or $6.")
    assert detect_text_delimiters("so $x_1 + y$ holds")


# --- time limit ------------------------------------------------------------------

def huge_page(n_paragraphs: int = 100_000) -> str:
    # large enough that every registered extractor needs several times the 0.1 s limit
    # (resiliparse, the fastest, takes 0.6-1.2 s on it; at 20,000 paragraphs it raced the limit)
    rows = "".join(f"<div><p>Paragraph {i} with some words in it, and then more words.</p></div>"
                   for i in range(n_paragraphs))
    return f"<html><head><title>huge</title></head><body>{rows}</body></html>"


def _deep_page(depth: int = 50_000) -> str:
    return ("<html><body>" + "<div><span>x " * depth + "<p>end of the deep page text</p>"
            + "</span></div>" * depth + "</body></html>")


def test_pathological_page_hits_time_limit_and_next_page_works():
    handler_before = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    r = extract_html(huge_page(), "u", timeout_s=0.1)
    elapsed = time.monotonic() - t0
    assert isinstance(r, Skip) and r.reason == "extract_timeout"
    assert elapsed < 3.0  # stopped near the limit, not after the whole extraction
    # the caller goes on: no alarm left armed, handler restored, the next page extracts
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is handler_before
    ok = extract_html(page("<p>Fine page with enough words to be extracted as main text.</p>"), "u")
    assert isinstance(ok, Extracted)


def test_deeply_nested_page_is_bounded():
    # libxml2 stops nesting at depth 255, so depth alone cannot make a page slow;
    # whatever happens, the call returns a result near the limit and never raises
    t0 = time.monotonic()
    r = extract_html(_deep_page(), "u", timeout_s=1.0)
    assert time.monotonic() - t0 < 4.0
    assert isinstance(r, Extracted) or r.reason in ("extract_timeout", "extract_empty")


def test_time_limit_restores_previous_handler_and_outer_timer():
    def outer(signum, frame):  # pragma: no cover - must not fire during the test
        raise AssertionError("outer alarm fired early")

    old = signal.signal(signal.SIGALRM, outer)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        extract_html(page("<p>Fine page with enough words to be extracted as main text.</p>"), "u",
                     timeout_s=1.0)
        assert signal.getsignal(signal.SIGALRM) is outer
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 20.0 < remaining <= 30.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_time_limit_outside_main_thread_uses_watchdog():
    results = {}

    def work():
        results["skip"] = extract_html(huge_page(), "u", timeout_s=0.1)
        results["ok"] = extract_html(page("<p>Fine page with enough words to be extracted.</p>"), "u")
        # the watchdog must not leave a pending exception behind once disarmed
        try:
            with time_limit(0.05):
                pass
            time.sleep(0.15)
            results["late"] = "none"
        except ExtractTimeout:  # pragma: no cover
            results["late"] = "raised"

    t = threading.Thread(target=work)
    t.start()
    t.join(30)
    assert not t.is_alive()
    assert isinstance(results["skip"], Skip) and results["skip"].reason == "extract_timeout"
    assert isinstance(results["ok"], Extracted)
    assert results["late"] == "none"


def _swallowing_work(seconds: float = 0.4) -> str:
    """Work that swallows every exception raised inside it, as a finalizer or weakref callback
    (reported as "unraisable") or a library's bare ``except`` does."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            time.sleep(0.005)
        except BaseException:  # noqa: BLE001 - the point of the test
            pass
    return "finished"


def test_a_swallowed_timeout_still_counts_as_a_timeout():
    # the time limit fired while code that swallows exceptions ran: the block still fails
    # (seen on CI: the watchdog's exception landed in a weakref callback and the page was kept)
    with pytest.raises(ExtractTimeout):
        with time_limit(0.05):
            _swallowing_work()
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)

    results = {}

    def work():
        try:
            with time_limit(0.05):
                results["out"] = _swallowing_work()
            results["raised"] = False
        except ExtractTimeout:
            results["raised"] = True
        with time_limit(0.5):   # nothing left pending: the next block runs to its end
            results["next"] = _swallowing_work(0.05)

    t = threading.Thread(target=work)
    t.start()
    t.join(30)
    assert results == {"out": "finished", "raised": True, "next": "finished"}


# --- ASCIIMath -------------------------------------------------------------------

@pytest.mark.parametrize("am, expected", [
    ("sum_(k=1)^n k^2 = (n(n+1)(2n+1))/6",
     "\\sum_{k=1}^{n}k^{2}=\\frac{n\\left(n+1\\right)\\left(2n+1\\right)}{6}"),
    ("e^(2x)", "e^{2x}"),
    ("sqrt(3x-1) != abs(x)", "\\sqrt{3x-1}\\ne\\left|x\\right|"),
    ("[[a,b],[c,d]]", "\\left[\\begin{array}{cc}a & b \\\\ c & d\\end{array}\\right]"),
    ("lim_(x->oo) alpha xx beta", "\\lim_{x\\to\\infty}\\alpha\\times\\beta"),
    ("root(3)(x) + hat y", "\\sqrt[3]{x}+\\hat{y}"),
    # ldots and the differentials are single symbols of ASCIIMath's table
    ("1,ldots,n", "1,\\ldots,n"),
    ("dy/dx", "\\frac{dy}{dx}"),
    # the TeX names of the symbols are ASCIIMath too; a word that only starts with one is not
    ("2 times 7 = 14", "2\\times 7=14"),
    ("a cdot b to c", "a\\cdot b\\to c"),
    ("total", "total"),
    # a column vector is a one-column matrix
    ("((1),(0))", "\\left(\\begin{array}{c}1 \\\\ 0\\end{array}\\right)"),
    # bars around a matrix's rows are a determinant's delimiters; around anything else they stay bars
    ("|(a,b),(c,d)|=ad-bc", "\\left|\\begin{array}{cc}a & b \\\\ c & d\\end{array}\\right|=ad-bc"),
    ("|x|+|(a,b)|", "|x|+|\\left(a,b\\right)|"),
])
def test_asciimath_to_tex(am, expected):
    from corpus_pipeline.asciimath import asciimath_to_tex

    assert asciimath_to_tex(am) == expected


def test_asciimath_page_backquotes_converted_only_with_engine():
    body = ("<p>The area of a circle with radius `r` is `pi r^2`, and you type \\`alpha\\` "
            "to get the letter; code stays: <code>`x^2`</code> in the examples of this page.</p>")
    with_engine = page(body).replace("</head>", '<script src="js/ASCIIMathML.js"></script></head>')
    r = extract_html(with_engine, "u")
    assert "$\\pi r^{2}$" in r.text and "$r$" in r.text
    assert "`alpha`" in r.text          # escaped backquotes are literal
    assert "`x^2`" in r.text            # code is left alone
    assert r.math_kinds == ["asciimath"]
    # a span of control spaces only lays out the formulas beside it: a space, no empty formula
    from corpus_pipeline.mathhtml import rewrite_math, strip_marks

    tree = lxml.html.fromstring('<html><head><script src="js/ASCIIMathML.js"></script></head><body>'
                                "<p>`pi r^2` `\\ \\ \\ ` and `a=3,\\ \\ ` then</p></body></html>")
    assert rewrite_math(tree) == ["asciimath"]
    assert " ".join(strip_marks(tree.text_content()).split()) == "$\\pi r^{2}$ and $a=3,$ then"
    r = extract_html(page(body), "u")   # no ASCIIMath engine: backquotes are just text
    assert "`pi r^2`" in r.text and r.math_kinds == []


def test_tex_never_ends_in_an_escaping_backslash():
    from corpus_pipeline.mathhtml import clean_tex

    assert clean_tex("a \\ ") == "a"
    assert clean_tex("b=-3,\\ \\ ") == "b=-3,"     # every trailing control space, not just the last
    assert clean_tex("x^2 \\\\") == "x^2"
    assert clean_tex("5 $ off") == "5 \\$ off"


def test_raw_tex_in_math_class_elements():
    body = ('<p>The repeating fraction is</p><div class="math">\\frac{1}{1+\\frac{1}{x}}</div>'
            '<p>and inline <span class="math">\\alpha^2</span> too, while <span class="math">plain words'
            '</span> and <span class="math">$x$</span> are left alone in this paragraph of text.</p>')
    html = page(body).replace("</head>", '<script src="/js/katex/katex.min.js"></script></head>')
    r = extract_html(html, "u")
    assert "$$\\frac{1}{1+\\frac{1}{x}}$$" in r.text
    assert "$\\alpha^2$" in r.text
    assert "plain words" in r.text and "$x$" in r.text and "$$x$$" not in r.text
    assert "katex" in r.math_kinds



def test_no_import_happens_inside_the_time_limit(extractor):
    # A time limit firing during a module's first import leaves it half-initialised, and every later
    # page in that worker fails ("module 'urllib3' has no attribute 'util'").  So the extractor's
    # libraries are all imported when it is looked up, before any limit is armed: extracting pages
    # of every kind afterwards imports nothing new.  Checked in a fresh interpreter.
    import subprocess
    import sys

    code = """
import sys
from corpus_pipeline import extractors
from corpus_pipeline.extract import extract_html
import corpus_pipeline.warc  # bytes are decoded before the limit is armed
extractors.get(%r)
before = set(sys.modules)
pages = [
  '<html><head><title>t</title><script type="text/x-mathjax-config">MathJax.Hub.Config({})</script></head>'
  '<body><nav><a href="/">Home</a></nav><article><h1>Sums</h1><p>We prove that $\\sum_{i=1}^n i = n(n+1)/2$ '
  'by induction on n, with a base case and a step. The proof uses nothing else at all.</p>'
  '<math display="block"><mfrac><mi>a</mi><mi>b</mi></mfrac></math>'
  '<img class="tex" alt="x^2" src="x.png"><ul><li>one</li><li>two</li></ul>'
  '<pre><code>print(1)</code></pre><table><tr><th>n</th><td>1</td></tr></table></article>'
  '<footer>Copyright</footer></body></html>',
  '<html><body><div class="post"><p>' + '\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u6bb5\u843d\u3002' * 30 + '</p></div></body></html>',
  '<html><body>' + '<div><p>Paragraph with some words in it, and then more words.</p></div>' * 3000 + '</body></html>',
]
for html in pages:
    extract_html(html, 'https://example.org/a/b', extractor=%r)
    extract_html(html.encode(), 'https://example.org/a/b', extractor=%r, favor='recall')
print(sorted(m for m in set(sys.modules) - before if not m.startswith('encodings.')))
""" % (extractor, extractor, extractor)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", f"imported during extraction: {out.stdout.strip()}"


# --- code and tables as Markdown (issue 37) ----------------------------------------

def test_code_block_fenced_with_its_language_and_inline_code_in_backticks():
    r = run('<p>Call <code>len(x)</code> to count, as in this example program here:</p>'
            '<pre class="highlight"><code class="language-python">def f(x):\n    return len(x)\n</code></pre>')
    assert "```python\ndef f(x):\n    return len(x)\n```" in r.text
    assert "`len(x)`" in r.text


@pytest.mark.parametrize("extractor", ["resiliparse", "trafilatura"])
def test_code_block_loses_the_indentation_all_its_lines_share(extractor):
    # a <pre> indented with the HTML around it: the shared indentation is layout, the relative one code
    html = ("<html><body><p>Type this program into the box below and run it to see what it prints:</p>"
            "<div>\n        <pre>\n        def f(x):\n            return x + 1\n        print(f(2))</pre>\n"
            "</div><p>It prints three, the number after two, as the function adds one to its argument.</p>"
            "</body></html>")
    r = extract_html(html, "https://example.org/a", extractor=extractor)
    assert "```\ndef f(x):\n    return x + 1\nprint(f(2))\n```" in r.text, r.text


def test_paragraph_that_is_one_code_element_is_a_code_block():
    r = run("<p>Let us ask the computer algebra system whether the number is prime:</p>"
            "<p> <code>PrimeQ[83^27 + 1]</code> </p><p>It answers at once, and <code>x</code> in a"
            " sentence stays inline code, as does the code in <p>this <code>f(y)</code></p> paragraph.</p>")
    assert "```\nPrimeQ[83^27 + 1]\n```" in r.text
    assert "`x`" in r.text and "`f(y)`" in r.text and "```\nx\n```" not in r.text


POST = ("I take the fixpoint at zero for simplicity, and the series around it diverges for every "
        "positive argument that I have tried so far in these computations.")


def test_quote_repeating_an_earlier_post_is_dropped_and_a_new_quote_kept():
    r = run(f'<div class="post"><p>{POST}</p></div><div class="post">'
            f'<blockquote class="mycode_quote"><cite>(03/18/2015) tommy Wrote:</cite>{POST}</blockquote>'
            "<p>The reply: the series is asymptotic, because there are two different solutions at play.</p>"
            '<div class="bbcode_quote"><div class="quote_container">Originally Posted by tommy '
            f"<div class=\"message\">{POST}</div></div></div><p>Quoting it twice changes nothing here.</p>"
            "<blockquote>A quotation from a book that this page does not hold anywhere else, long enough to test."
            "</blockquote></div>")
    assert r.text.count("I take the fixpoint at zero") == 1
    assert "tommy Wrote" not in r.text and "Originally Posted by" not in r.text
    assert "The reply: the series is asymptotic" in r.text and "Quoting it twice" in r.text
    assert "A quotation from a book" in r.text


def test_repeated_quote_rule_on_html_source():
    from corpus_pipeline.extractors.structure import drop_repeated_quotes_html
    # the text before a quote too short to test is still prior text for the quotes after it
    late = f"<blockquote>ok</blockquote><p>{POST}</p><blockquote>fine</blockquote><blockquote>{POST}</blockquote>"
    assert drop_repeated_quotes_html(late) == "<blockquote>ok</blockquote>" + \
        f"<p>{POST}</p><blockquote>fine</blockquote>"

    page_html = f"<p>{POST}</p><blockquote><p>{POST}</p></blockquote><p>after</p>"
    assert drop_repeated_quotes_html(page_html) == f"<p>{POST}</p><p>after</p>"
    short = "<p>yes indeed</p><blockquote>yes indeed</blockquote>"   # under QUOTE_MIN_CHARS: kept
    assert drop_repeated_quotes_html(short) == short
    first = f"<blockquote>{POST}</blockquote><p>{POST}</p>"          # only text BEFORE a quote counts
    assert drop_repeated_quotes_html(first) == first
    half = f"<p>{POST}</p><blockquote>{POST}<br>{POST.upper()}<br>{POST[::-1]}</blockquote>"
    assert drop_repeated_quotes_html(half) == half                   # a third repeated: kept
    # a post written as a <blockquote> keeps its short reply and loses the quote nested in it
    post = f'<blockquote class="postcontent"><div class="bbcode_quote">{POST}</div>Thanks!</blockquote>'
    assert drop_repeated_quotes_html(f"<p>{POST}</p>{post}") == \
        f'<p>{POST}</p><blockquote class="postcontent">Thanks!</blockquote>'
    # at most QUOTE_MAX_TESTS quotes are tested a page (each searches the text before it): the rest stay
    from corpus_pipeline.extractors import structure

    many = f"<p>{POST}</p>" + f"<blockquote>{POST}</blockquote>" * (structure.QUOTE_MAX_TESTS + 5)
    assert drop_repeated_quotes_html(many).count("<blockquote>") == 5
    # a quote of a whole earlier post that itself quoted: dropped whole (its own text is a repeat)
    reply = "Here is the asymptotic series for the Abel function in the parabolic case, as asked."
    nested = f"<blockquote><blockquote>{POST}</blockquote>{reply}</blockquote>"
    assert drop_repeated_quotes_html(f"<p>{POST}</p><p>{reply}</p>{nested}<p>end</p>") == \
        f"<p>{POST}</p><p>{reply}</p><p>end</p>"


def test_highlighter_lines_of_code_tokens_are_one_code_block():
    # SyntaxHighlighter's layout: one <div> a source line, one <code> a token, spaces as &nbsp;
    listing = ('<div class="container"><div class="line number1"><code class="java keyword">public</code>&nbsp;'
               '<code class="java plain">void f() {</code></div>'
               '<div class="line number2"><code class="java spaces">&nbsp;&nbsp;</code>'
               '<span><code class="java plain">return;</code></span></div>'
               '<div class="line number3"><code class="java plain">}</code></div></div>')
    r = run(f"<p>The method we need, as written in the project's sources:</p>{listing}"
            "<div><code>x</code> is the value and <code>y</code> the other one</div>"
            "<div><code>z</code> and then some words of prose after it</div>")
    assert "```\npublic void f() {\n  return;\n}\n```" in r.text
    assert "`public`" not in r.text
    assert "`x` is the value" in r.text and "`z` and then" in r.text   # prose lines stay prose


def test_data_table_as_pipe_table_without_script_text_and_layout_table_left_alone():
    r = run("<table><tr><th>n</th><th>n squared</th></tr><tr><td>2</td><td>4</td></tr>"
            "<tr><td>3</td><td>9<script>var ad = 1;</script></td></tr></table>")
    if EXTRACTOR["name"] == "resiliparse":   # trafilatura keeps its own table rows (see extract.trafilatura_extract)
        assert "| n | n squared |\n|---|---|\n| 2 | 4 |\n| 3 | 9 |" in r.text
    assert "n squared" in r.text and "var ad" not in r.text
    long_cell = "word " * 120
    r = run(f"<table><tr><td><p>{long_cell}</p></td><td>side</td></tr></table>")
    assert "|---|" not in r.text


def test_one_row_layout_table_is_left_to_the_extractor_that_drops_its_boilerplate():
    # Stack Exchange's post signature: one row of cells, the author's "user-info" block dropped by
    # resiliparse as boilerplate; written as a pipe table it came back whole (user name, reputation)
    sig = ('<table class="fw"><tr><td class="vt"><div class="post-menu"><a href="/q/1">share</a>'
           '<span>|</span><a href="/e/1">improve this question</a></div></td>'
           '<td class="post-signature owner"><div class="user-info"><div class="user-action-time">asked '
           '<span class="relativetime">Jan 31 at 20:25</span></div><div class="user-details">'
           '<a href="/users/5/someone">Some Person</a><br><span class="reputation-score">1,387</span>'
           '</div></div></td></tr></table>')
    r = run(sig)
    assert "|---|" not in r.text and "| share" not in r.text
    if EXTRACTOR["name"] == "resiliparse":
        assert "Some Person" not in r.text and "1,387" not in r.text
    r = run("<table><tr><td>n</td><td>n squared</td></tr><tr><td>2</td><td>4</td></tr></table>")
    if EXTRACTOR["name"] == "resiliparse":
        assert "| n | n squared |\n|---|---|\n| 2 | 4 |" in r.text


def test_table_with_spanning_cells_written_as_html():
    # a pipe table cannot hold a cell spanning columns or rows (its cells would shift): HTML instead
    r = run('<table><tr><th>n</th><th colspan="2">a_n</th></tr><tr><td rowspan="2">2</td><td>-0.8</td>'
            "<td>0.5i</td></tr><tr><td>x &lt; y</td><td>1</td></tr></table>")
    if EXTRACTOR["name"] == "resiliparse":
        assert ('<table><tr><th>n</th><th colspan="2">a_n</th></tr><tr><td rowspan="2">2</td><td>-0.8</td>'
                "<td>0.5i</td></tr><tr><td>x &lt; y</td><td>1</td></tr></table>") in r.text
        assert "|---|" not in r.text


def test_bbcode_maths_inside_code_stays_code():
    html = page("<p>Write <code>[math]x^2[/math]</code> to get a displayed formula in your posts here.</p>"
                "<pre>[math]y^2[/math]\n[itex]z[/itex]</pre><p>Like this: [math]a^2+b^2[/math] in a post.</p>")
    html = html.replace("</head>", '<script src="https://cdn.example.org/mathjax/MathJax.js"></script></head>')
    r = extract_html(html, "u")
    assert "`[math]x^2[/math]`" in r.text and "[math]y^2[/math]" in r.text
    assert "$$a^2+b^2$$" in r.text and "$$x^2$$" not in r.text and "$$y^2$$" not in r.text


def _mathjax(html):
    return html.replace("</head>", '<script src="https://cdn.example.org/mathjax/MathJax.js"></script></head>')


def test_bare_display_environment_in_a_paragraph_on_a_mathjax_page_is_delimited():
    html = _mathjax(page("<p>The law reads \\begin{equation} F = ma \\end{equation} in every frame we use.</p>"
                         '<p><span class="math-container">\\begin{align} a &amp;= b \\\\ c &amp;= d \\end{align}'
                         "</span></p><p>Already delimited: $$\\begin{gather} x \\end{gather}$$ stays so.</p>"))
    r = extract_html(html, "u")
    assert "$$\\begin{equation} F = ma \\end{equation}$$" in r.text
    assert "$$\\begin{align} a &= b \\\\ c &= d \\end{align}$$" in r.text
    assert "$$\\begin{gather} x \\end{gather}$$" in r.text and "$$$$" not in r.text
    # no maths engine: the same text is TeX shown as text, left alone
    r = extract_html(page("<p>The law reads \\begin{equation} F = ma \\end{equation} in every frame.</p>"), "u")
    assert "$$" not in r.text and "\\begin{equation} F = ma \\end{equation}" in r.text


def test_bare_display_environment_loose_in_a_container_is_left_as_written():
    # text lying loose in a <div> between rules (no paragraph markup) is written as the page wrote it
    html = _mathjax(page("<div><hr>Equation: \\begin{equation} E = mc^2 \\end{equation} Split: \\begin{multline}"
                         " a+b \\\\ c \\end{multline}<hr></div><pre>\\begin{align} code \\end{align}</pre>"))
    r = extract_html(html, "u")
    assert "\\begin{equation} E = mc^2 \\end{equation}" in r.text
    assert "$$\\begin{" not in r.text and "\\begin{align} code \\end{align}" in r.text


def test_display_brackets_written_as_double_dollars_on_a_mathjax_page():
    html = _mathjax(page("<p>Inline \\(x\\) and displayed \\[ \\sum_i a_i \\] then a line break with spacing"
                         " $$a \\\\[2pt] b$$ and <code>re.sub(r'\\[x\\]', s)</code> in code.</p>"))
    r = extract_html(html, "u")
    assert "$$\\sum_i a_i$$" in r.text and "\\(x\\)" in r.text
    assert "$$a \\\\[2pt] b$$" in r.text and "`re.sub(r'\\[x\\]', s)`" in r.text
    r = extract_html(page("<p>Without an engine \\[ a \\] is only text in this paragraph.</p>"), "u")
    assert "\\[ a \\]" in r.text
