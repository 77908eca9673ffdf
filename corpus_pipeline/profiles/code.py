"""The code profile: programming tutorials, documentation and Q&A.

Its markup is a code block: a ``<pre>`` element, or a ``<code>`` element that
spans more than one line (a newline or ``<br>`` inside it: php.net, forums); an
inline ``<code>`` in a sentence (a function name in prose) does not count.
Measured (``bench/code_domain.py``): on the labelled real pages, code pages
33 of 38, other pages 12 of 1,148; on the mini-crawl every code page and no
other.  Class names (``code-block``, ``highlight``, ``language-...``) were
tried and dropped: on real news pages they name ad slots and language
switchers (40 more false hits for 2 more code pages).
"""
from __future__ import annotations

import re

from . import Profile

_PRE = r"<pre[\s>]"
_MULTILINE_CODE = r"<code[^>]*>(?:(?!</code>)[\s\S]){0,3000}?(?:\n|<br)(?:(?!</code>)[\s\S]){0,3000}?</code>"
_STR = [re.compile(p, re.I) for p in (_PRE, _MULTILINE_CODE)]
_BYTES = [re.compile(p.encode(), re.I) for p in (_PRE, _MULTILINE_CODE)]


def has_code_block(html) -> bool:
    """A ``<pre>`` element or a multi-line ``<code>`` element in ``html`` (str or bytes)."""
    rxs = _BYTES if isinstance(html, (bytes, bytearray)) else _STR
    return any(rx.search(html) for rx in rxs)


class CodeProfile(Profile):
    name = "code"
    positive = "code"
    markup_column = "has_code_blocks"
    starter_seed = "code/starter_seed.jsonl.gz"
    benchmarks = ()                     # no code benchmark format is known: decontamination indexes nothing
    about = ("programming tutorials, documentation and Q&A: a seed of Python, Rust and Node.js documentation, "
             "code blocks as markup, no benchmarks")

    noun = "code"
    question = "Is this page about programming?"
    criterion = ("code: a programming tutorial, documentation of a language or library, or a programming "
                 "question and its answers, with code as its main content")

    def markup(self, html: str, extracted) -> bool:
        return has_code_block(html)
