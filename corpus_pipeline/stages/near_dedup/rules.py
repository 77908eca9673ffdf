"""MinHash near-duplicate detection: the pure part (no Spark).

Pipeline per document::

    text --normalize--> tokens --k-gram--> shingles --hash--> uint64 ids
         --datasketch MinHash (affine32, batch API)--> signature (uint32 x num_perm)
         --bands x rows--> band keys (int64, one per band)

* **Normalization** keeps maths distinct: NFKC, lower-case, whitespace
  collapsed; tokens are words, numbers (``3.14``, ``1,000`` stay one token)
  and every other symbol on its own (``+ - = ^ ( ) < > / * \\ { } | ...``), so
  ``x^2+1`` and ``x^3-1`` give different shingles.  Only sentence punctuation
  (``, . ; : ! ?`` and quotes) outside numbers is dropped.  Each CJK character
  is one token (CJK text has no spaces).
* **Shingles** are word ``k``-grams (``k = DedupConfig.shingle_size``, 5).  A
  document with fewer than ``k`` tokens (but at least one) is one shingle; an
  empty document has no shingles, gets no band keys and is never a duplicate.
* **Shingle ids** are 64-bit: each token hashed with blake2b (cached), the
  k-gram combined with a vectorised 64-bit mix.  Jaccard is computed on these
  ids (``jaccard``), which equals the Jaccard of the shingle strings unless
  two shingles collide in 64 bits.
* **Signatures** use datasketch 2.0's ``MinHash`` with ``scheme="affine32"``
  pinned (2.0 changed the default from 1.x's "legacy"; signatures of the two
  schemes are not comparable) and its batch API ``update_batch`` fed the low
  32 bits of the shingle ids through an identity ``hashfunc`` (datasketch
  still applies its own MurmurHash3 pre-mix).  Everything is deterministic
  across processes: no use of Python's salted ``hash()``.
* **Band keys**: band ``i`` of the signature (rows ``i*r .. i*r+r-1``) hashed
  with blake2b (8 bytes, band index included) to a signed int64.

Two documents with shingle-set Jaccard ``s`` share at least one band key with
probability ``s_curve(s, b, r) = 1 - (1 - s**r)**b``.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Iterable, Iterator, Optional, Sequence

import numpy as np

from ...text import CJK_RANGES, TokenHashCache

SCHEME = "affine32"          # pinned: see module docstring and docs/facts.md
_BATCH = 8192                # shingles per update_batch call (bounds memory on huge documents)

_NUMBER = r"\d+(?:[.,]\d+)*"
_TOKEN_RE = re.compile(
    # one CJK character | a number | a run of letters (not CJK) | one other symbol
    f"[{CJK_RANGES}]|{_NUMBER}|[^\\W\\d_{CJK_RANGES}]+|[^\\s\\w,.;:!?\"'“”‘’«»]|_",
)
_WS = re.compile(r"\s+")


# ----------------------------------------------------------------- text
def normalize(text: Optional[str]) -> str:
    """NFKC, lower-case, whitespace collapsed (digits and symbols untouched)."""
    if not text:
        return ""
    t = unicodedata.normalize("NFKC", text).lower()
    return _WS.sub(" ", t).strip()


def tokens(text: Optional[str]) -> list[str]:
    """Tokens of the normalized text: words, numbers, single symbols, single CJK characters."""
    if not text:
        return []
    # the token pattern splits on any whitespace itself, so no collapsing is needed here
    return _TOKEN_RE.findall(unicodedata.normalize("NFKC", text).lower())


def shingles(text: Optional[str], k: int = 5) -> set[str]:
    """Word ``k``-gram shingles as strings (reference implementation, used by tests)."""
    toks = tokens(text)
    if not toks:
        return set()
    if len(toks) < k:
        return {" ".join(toks)}
    return {" ".join(toks[i:i + k]) for i in range(len(toks) - k + 1)}


# ----------------------------------------------------------------- hashing
_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_S33 = np.uint64(33)


def _fmix64(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> _S33)
    h = h * _C1
    h = h ^ (h >> _S33)
    h = h * _C2
    return h ^ (h >> _S33)


_token_cache = TokenHashCache(1_000_000)
_token_hash = _token_cache.hash


def shingle_ids_from_tokens(toks: Sequence[str], k: int = 5, unique: bool = True) -> np.ndarray:
    """Sorted unique uint64 ids of the ``k``-gram shingles of ``toks`` (in text order,
    repeats included, with ``unique=False``)."""
    if not toks:
        return np.empty(0, dtype=np.uint64)
    hs = list(map(_token_cache.get, toks))
    if None in hs:
        hs = [h if h is not None else _token_hash(t) for h, t in zip(hs, toks)]
    th = np.array(hs, dtype=np.uint64)
    n = len(toks) - k + 1
    kk = k
    if n < 1:              # short document: one shingle of all its tokens
        n, kk = 1, len(toks)
    with np.errstate(over="ignore"):
        h = np.full(n, np.uint64(kk), dtype=np.uint64) * _GOLD
        for j in range(kk):
            h = _fmix64((h * _GOLD) ^ th[j:j + n])
    return np.unique(h) if unique else h


def shingle_ids(text: Optional[str], k: int = 5) -> np.ndarray:
    """Sorted unique uint64 ids of the shingles of ``text``."""
    return shingle_ids_from_tokens(tokens(text), k)


def jaccard(a, b) -> float:
    """Jaccard similarity of two shingle sets (Python sets or sorted unique id arrays).

    Two empty sets have similarity 0 (an empty page is nobody's duplicate).
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a = np.asarray(a)
        b = np.asarray(b)
        if a.size == 0 or b.size == 0:
            return 0.0
        inter = np.intersect1d(a, b, assume_unique=True).size
        return inter / (a.size + b.size - inter)
    a, b = set(a), set(b)
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


# ----------------------------------------------------------------- signatures
def _identity(x):
    return x


class Signer:
    """Computes datasketch MinHash signatures with a fixed permutation seed (``dedup.minhash_seed``),
    num_perm and scheme.

    Build it once per partition (permutations are generated once) and call
    :meth:`signature` per document.
    """

    def __init__(self, num_perm: int, minhash_seed: int, shingle_size: int = 5):
        from datasketch import MinHash

        self.num_perm = num_perm
        self.minhash_seed = minhash_seed
        self.k = shingle_size
        self._base = MinHash(num_perm=num_perm, seed=minhash_seed, scheme=SCHEME, hashfunc=_identity)

    def signature_of_ids(self, ids: np.ndarray) -> Optional[np.ndarray]:
        """uint32 signature of a set of shingle ids (repeats allowed); None for an empty set."""
        if ids.size == 0:
            return None
        low = (ids & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        m = self._base.copy()
        for start in range(0, low.size, _BATCH):
            m.update_batch(low[start:start + _BATCH].tolist())
        return m.hashvalues.astype(np.uint32, copy=False)

    def signature(self, text: Optional[str]) -> Optional[np.ndarray]:
        return self.signature_of_ids(shingle_ids_from_tokens(tokens(text), self.k, unique=False))


def signatures(texts: Iterable[Optional[str]], num_perm: int, minhash_seed: int,
               shingle_size: int = 5) -> list[Optional[np.ndarray]]:
    """Signatures of many texts (None where a text has no shingles)."""
    s = Signer(num_perm, minhash_seed, shingle_size)
    return [s.signature(t) for t in texts]


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[int]:
    """One signed int64 key per band (band index mixed in, so bands never collide)."""
    if sig.size < bands * rows:
        raise ValueError(f"signature has {sig.size} values, bands x rows needs {bands * rows}")
    raw = np.ascontiguousarray(sig[: bands * rows], dtype="<u4").tobytes()
    step = rows * 4
    out = []
    for i in range(bands):
        d = hashlib.blake2b(raw[i * step:(i + 1) * step], digest_size=8,
                            person=i.to_bytes(4, "little") + b"band").digest()
        out.append(int.from_bytes(d, "little", signed=True))
    return out


def s_curve(s: float, bands: int, rows: int) -> float:
    """Probability that two sets with Jaccard ``s`` share at least one band: 1-(1-s^r)^b."""
    return 1.0 - (1.0 - s ** rows) ** bands


def threshold(bands: int, rows: int) -> float:
    """The similarity where the S-curve is steepest, about (1/b)^(1/r)."""
    return (1.0 / bands) ** (1.0 / rows)


def doc_band_rows(docs: Iterable[tuple[str, Optional[str]]], bands: int, rows: int, minhash_seed: int,
                  shingle_size: int) -> Iterator[tuple[str, int, Optional[int]]]:
    """(page_id, band, key) for every band of every document.

    A document without shingles yields one row ``(page_id, -1, None)`` so it
    can be counted (``no_shingles``) and it never lands in a bucket.
    """
    signer = Signer(bands * rows, minhash_seed, shingle_size)
    for page_id, text in docs:
        sig = signer.signature(text)
        if sig is None:
            yield page_id, -1, None
            continue
        for i, key in enumerate(band_keys(sig, bands, rows)):
            yield page_id, i, key


def doc_shingle_rows(docs: Iterable[tuple[str, Optional[str]]], shingle_size: int
                     ) -> Iterator[tuple[str, int, list[int]]]:
    """(page_id, text length in characters, shingle ids as signed int64 list), for
    exact Jaccard in Spark SQL and the survivor rule."""
    for page_id, text in docs:
        ids = shingle_ids(text, shingle_size)
        yield page_id, len(text or ""), ids.view(np.int64).tolist()


def doc_signature_rows(docs: Iterable[tuple[str, Optional[str]]], num_perm: int, minhash_seed: int,
                       shingle_size: int) -> Iterator[tuple[str, int, list[int]]]:
    """(page_id, text length in characters, MinHash signature as an int64 list; empty without
    shingles): the fixed-size stand-in for the shingle set when ``dedup.verify_with`` is
    ``signatures`` (:func:`signature_similarity`)."""
    signer = Signer(num_perm, minhash_seed, shingle_size)
    for page_id, text in docs:
        sig = signer.signature(text)
        yield page_id, len(text or ""), ([] if sig is None else sig.astype(np.int64).tolist())


def signature_similarity(a, b) -> float:
    """Jaccard estimated from two MinHash signatures: the share of positions where they agree
    (unbiased; standard error sqrt(J(1-J)/num_perm), 0.043 at J = 0.7 with 112 values)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0 or a.size != b.size:
        return 0.0
    return float(np.mean(a == b))
