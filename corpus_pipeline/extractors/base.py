"""The extractor interface.

An extractor turns one decoded HTML page into an
:class:`~corpus_pipeline.extract.Extracted` (title, main text with maths as
``$..$``/``$$..$$`` TeX, ``math_kinds``) or a
:class:`~corpus_pipeline.extract.Skip` with a reason.  It does not decode
bytes, check sizes, enforce the time limit or detect the language: the caller
(:func:`corpus_pipeline.extract.extract_html`) does that for all of them.  It
may raise: the caller counts the exception as ``extract_error``.
"""
from __future__ import annotations

from typing import Protocol, Union

from ..extract import Extracted, Skip


class Extractor(Protocol):
    name: str

    def extract(self, html: str, url: str, favor: str = "default") -> Union[Extracted, Skip]:
        ...
