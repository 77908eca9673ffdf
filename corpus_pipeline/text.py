"""Text helpers shared by stages (pure)."""
from __future__ import annotations

import re

# CJK ideographs (incl. extensions A/B...), kana, hangul: each character is one token.
CJK_RANGES = (
    "\u3040-\u30ff"   # hiragana, katakana
    "\u3400-\u4dbf"   # CJK ext A
    "\u4e00-\u9fff"   # CJK unified
    "\uf900-\ufaff"   # compatibility ideographs
    "\uac00-\ud7af"   # hangul syllables
)
_CJK = re.compile(f"[{CJK_RANGES}]")
_TOKEN = re.compile(f"[{CJK_RANGES}]|[^\\s{CJK_RANGES}]+")


def count_tokens(text: str) -> int:
    """Whitespace-separated words, with every CJK character counting as one token."""
    if not text:
        return 0
    return sum(1 for _ in _TOKEN.finditer(text))


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def cjk_share(text: str) -> float:
    if not text:
        return 0.0
    n = len(_CJK.findall(text))
    return n / max(1, len(text.replace(" ", "")))
