"""Text helpers shared by stages (pure)."""
from __future__ import annotations

import hashlib
import re

# CJK ideographs, kana, hangul: each character is one token (the classifier's, the decontamination's
# and the token counts' one definition).
CJK_RANGES = (
    "\u3040-\u30ff"                   # hiragana, katakana
    "\u3400-\u4dbf"                   # CJK ext A
    "\u4e00-\u9fff"                   # CJK unified
    "\uf900-\ufaff"                   # compatibility ideographs
    "\uac00-\ud7af"                   # hangul syllables
    "\U00020000-\U0002ebef"           # CJK ext B-F
    "\U00030000-\U0003134f"           # CJK ext G
)
_CJK = re.compile(f"[{CJK_RANGES}]")
_TOKEN = re.compile(f"[{CJK_RANGES}]|[^\\s{CJK_RANGES}]+")


def count_tokens(text: str) -> int:
    """Whitespace-separated words, with every CJK character counting as one token."""
    if not text:
        return 0
    if _CJK.search(text) is None:   # str.split() splits on exactly the characters \s matches: 3x faster
        return len(text.split())
    return sum(1 for _ in _TOKEN.finditer(text))


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def cjk_share(text: str) -> float:
    if not text:
        return 0.0
    n = len(_CJK.findall(text))
    return n / max(1, len(text.replace(" ", "")))


def blake64(tok: str) -> int:
    """Stable 64-bit hash of a token (8-byte BLAKE2b, little-endian): the same in every process."""
    return int.from_bytes(hashlib.blake2b(tok.encode("utf-8"), digest_size=8).digest(), "little")


class TokenHashCache(dict):
    """token -> :func:`blake64`, bounded: emptied when it reaches ``max_size`` entries
    (one per Python worker; tokens repeat a lot across pages)."""

    def __init__(self, max_size: int):
        super().__init__()
        self.max_size = max_size

    def hash(self, tok: str) -> int:
        h = self.get(tok)
        if h is None:
            if len(self) >= self.max_size:
                self.clear()
            h = self[tok] = blake64(tok)
        return h
