"""Reading a committed run folder without a JVM: the look-ups of ``inspect``, ``annotate --serve`` and
``judge --serve`` (a sample already drawn) through pyarrow.

A run folder on a local disk or on object storage (``s3://``, ``gs://``, ``abfs://``: the
:class:`~corpus_pipeline.fs.ArrowFS` filesystems) is read as Parquet datasets, following the commit
markers: a stage is read from the attempt folder its ``_COMMIT.json`` names
(:func:`~corpus_pipeline.runfolder.committed_data`), never from ``<stage>/`` itself, and a stage with
attempt folders but no valid marker is refused.  Each function here returns what its Spark
counterpart (``spark/inspect.py``, ``spark/annotate_view.py``) returns, row for row and in the same
order: the same sort keys, Spark's null ordering, its whitespace class in excerpts and its
``xxhash64`` for the annotation page's samples (``tests/test_arrowrun.py`` compares the two on
one run folder). ``run`` is a run view (``pipeline/runview.py``): stages are found by name in the
recipe the run was built with.

What is held: tables are streamed in record batches of the columns needed; a top-k keeps k rows
(plus one batch); the texts of the pages shown are read by a ``page_id`` filter for those pages
only.  A look-up by host (``inspect --host``, the annotation page's prefixes) holds the page ids
and scores of that host's pages (not their texts).
"""
from __future__ import annotations

import heapq
import re
from typing import Iterable, Iterator, Optional

from . import decontam
from . import fs as fsmod
from . import schemas
from .judging import JUDGED_SOURCE
from .runfolder import committed_data

BATCH = 16_384
TEXT_CHARS = 300
_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")      # Java's \s (Spark's regexp_replace), not Python's Unicode one


class NotReadable(Exception):
    """This run folder's filesystem has no pyarrow reader here (an ``hdfs://`` without libhdfs, a
    scheme only Hadoop serves): the caller reads it with Spark."""


def arrow_fs(uri: str):
    """(pyarrow filesystem, path) of ``uri``: the local disk, or ArrowFS's object stores."""
    import pyarrow.fs as pafs

    if fsmod.is_local(uri):
        return pafs.LocalFileSystem(), fsmod.local_path(uri)
    try:
        return fsmod.ArrowFS()._resolve(uri)
    except Exception as e:  # noqa: BLE001 - UsageError (unsupported scheme), OSError (no libhdfs)
        raise NotReadable(f"{uri}: {e}") from None


def readable(uri: str) -> bool:
    """The run folder can be read without a JVM (``hdfs://`` and other Hadoop-only schemes: not)."""
    if fsmod.is_local(uri):
        return True
    scheme = uri.split("://", 1)[0].lower()
    if scheme not in ("s3", "s3a", "s3n", "gs", "gcs", "abfs", "abfss"):
        return False
    try:
        arrow_fs(uri)
    except NotReadable:
        return False
    return True


def dataset(path: str):
    """The committed Parquet dataset of the stage folder ``path`` (its valid attempt)."""
    import pyarrow.dataset as ds

    data = committed_data(path)          # FileNotFoundError for uncommitted attempts only
    fs, p = arrow_fs(data)
    return ds.dataset(p, filesystem=fs, format="parquet")


def batches(path: str, columns: list[str], filter=None) -> Iterator[list[dict]]:
    """Rows of the stage at ``path`` as lists of dicts, one list per record batch; a column the files
    do not have reads as null (as Spark's read with the stage's schema gives it)."""
    d = dataset(path)
    have = [c for c in columns if c in d.schema.names]
    missing = [c for c in columns if c not in have]
    for b in d.to_batches(columns=have, filter=filter, batch_size=BATCH):
        rows = b.to_pylist()
        if missing:
            for r in rows:
                r.update(dict.fromkeys(missing))
        yield [{c: r[c] for c in columns} for r in rows]


def rows(path: str, columns: list[str], filter=None) -> Iterator[dict]:
    for b in batches(path, columns, filter):
        yield from b


def top(path: str, columns: list[str], key, n: int, filter=None) -> list[dict]:
    """The ``n`` smallest rows by ``key``, holding ``n`` rows plus one batch."""
    best: list = []
    for b in batches(path, columns, filter):
        best = heapq.nsmallest(n, best + b, key=key)
    return best


def isin(column: str, values: Iterable):
    import pyarrow.dataset as ds

    return ds.field(column).isin(sorted(set(values)))


def excerpt(text: Optional[str], n: int = TEXT_CHARS) -> str:
    """Spark's ``substring(regexp_replace(coalesce(text, ''), '\\s+', ' '), 1, n)``."""
    return _SPACE.sub(" ", text or "")[:n]


# Spark's sort orders: ascending puts nulls first, descending puts them last
def asc(x) -> tuple:
    return (x is not None, x if x is not None else 0)


def desc(x) -> tuple:
    return (x is None, -x if x is not None else 0)


def pages_by_id(run, ids: Iterable[str], columns: list[str]) -> dict:
    """``page_id -> row`` of the given pages only (a ``page_id`` filter on ``RUN/pages``)."""
    ids = set(ids)
    if not ids:
        return {}
    cols = ["page_id"] + [c for c in columns if c != "page_id"]
    return {r["page_id"]: r for r in rows(run.location("pages"), cols, isin("page_id", ids))}


# ------------------------------------------------------------------ inspect
def collected_samples(run, iteration: int, threshold: float, n: int = 5) -> dict:
    """As ``spark.inspect.collected_samples``: collected pages nearest the threshold and farthest above."""
    path = run.location("collected", iteration)
    cols = ["page_id", "score", "n_tokens"]
    near = top(path, cols, lambda r: (asc(r["score"]), r["page_id"]), n)
    far = top(path, cols, lambda r: (desc(r["score"]), r["page_id"]), n)
    pages = pages_by_id(run, [r["page_id"] for r in near + far], ["url", "host", "title", "text"])

    def out(rs):
        return [{"page_id": r["page_id"], "url": p["url"], "host": p["host"], "title": p["title"],
                 "score": r["score"], "n_tokens": r["n_tokens"], "excerpt": excerpt(p["text"])}
                for r in rs for p in [pages.get(r["page_id"])] if p is not None]
    return {"iteration": iteration, "threshold": threshold, "near_threshold": out(near), "far_above": out(far)}


def _under(host_rows: dict, prefix: Optional[str]) -> dict:
    if not prefix:
        return host_rows
    return {k: v for k, v in host_rows.items() if (v["path"] if v["path"] is not None else "/").startswith(prefix)}


def host_pages(run, hosts: Iterable[str]) -> dict:
    """``page_id -> {host (lower-cased), path}`` of the pages of the given (lower-case) hosts: the page
    id, host and path columns are scanned, nothing else."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    hosts = sorted({h.lower() for h in hosts})
    flt = pc.utf8_lower(ds.field("host")).isin(hosts)
    out = {}
    for r in rows(run.location("pages"), ["page_id", "host", "path"], flt):
        out[r["page_id"]] = {"host": (r["host"] or "").lower(), "path": r["path"]}
    return out


def pages_of(run, iteration: Optional[int], host: Optional[str], prefix: Optional[str], n: int = 10) -> dict:
    """As ``spark.inspect.pages_of``: a host's (and prefix's) pages, its collected and missed ones by score."""
    under = _under(host_pages(run, [host]), prefix)
    cols = ["url", "title", "text", "n_tokens"]
    if iteration is None:
        order = sorted(under, key=lambda k: (asc(under[k]["path"]), k))[:n]
        pages = pages_by_id(run, order, cols)
        return {"host": host, "prefix": prefix, "iteration": None, "pages": len(under),
                "rows": [_page_row(pages[k], k, None, None) for k in order if k in pages]}
    ids = set(under)
    scores, coll = _scored(run, iteration, ids)

    def best(flag: bool) -> list:
        keys = [k for k in ids if (k in coll) == flag]
        return heapq.nsmallest(n, keys, key=lambda k: (desc(scores.get(k)), k))
    got, missed = best(True), best(False)
    pages = pages_by_id(run, got + missed, cols)
    return {"host": host, "prefix": prefix, "iteration": iteration, "pages": len(ids),
            "collected_pages": len(coll),
            "collected": [_page_row(pages[k], k, scores.get(k), True) for k in got if k in pages],
            "missed": [_page_row(pages[k], k, scores.get(k), False) for k in missed if k in pages]}


def _scored(run, iteration: int, ids: set) -> tuple[dict, set]:
    """(page_id -> score, the collected ones) of the iteration, for the given pages only."""
    if not ids:
        return {}, set()
    scores = {r["page_id"]: r["score"] for r in rows(run.location("scores", iteration), ["page_id", "score"],
                                                      isin("page_id", ids))}
    coll = {r["page_id"] for r in rows(run.location("collected", iteration), ["page_id"], isin("page_id", ids))}
    return scores, coll


def _page_row(p: dict, page_id: str, score, collected) -> dict:
    return {"page_id": page_id, "url": p["url"], "title": p["title"], "score": score, "collected": collected,
            "n_tokens": p["n_tokens"], "excerpt": excerpt(p["text"])}


def near_duplicates(run, n: int = 10) -> dict:
    """As ``spark.inspect.near_duplicates``."""
    if not run.committed("pages_duplicates"):
        return {"pairs": [], "total": 0, "by_kind": {}}
    by_kind: dict = {}
    best: list = []
    key = (lambda r: (r["similarity"] is None, r["similarity"] if r["similarity"] is not None else 0,
                      r["page_id"]))
    for b in batches(run.location("pages_duplicates"), ["page_id", "kept_page_id", "kind", "similarity"]):
        for r in b:
            by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
        best = heapq.nsmallest(n, best + [r for r in b if r["kind"] == "near"], key=key)
    kept = pages_by_id(run, [r["kept_page_id"] for r in best if r["kept_page_id"]], ["url", "title", "text"])
    pairs = []
    for r in best:
        p = kept.get(r["kept_page_id"])
        pairs.append({"page_id": r["page_id"], "kind": r["kind"], "similarity": r["similarity"],
                      "kept_page_id": r["kept_page_id"], "kept_url": p["url"] if p else None,
                      "kept_title": p["title"] if p else None, "kept_excerpt": excerpt(p["text"]) if p else None})
    return {"pairs": pairs, "total": by_kind.get("near", 0), "by_kind": dict(sorted(by_kind.items()))}


def contamination(run, n: int = 10, items: Optional[dict] = None) -> dict:
    """As ``spark.inspect.contamination``."""
    path = run.location("contamination")
    if not run.is_committed(path):
        return {"rows": [], "total": 0, "decontaminated": False}
    cols = schemas.columns(schemas.CONTAMINATION)
    total = 0
    best: list = []
    key = (lambda r: tuple(asc(r[c]) for c in ("benchmark", "item_id", "page_id", "action")))
    for b in batches(path, cols):
        total += len(b)
        best = heapq.nsmallest(n, best + b, key=key)
    pages = pages_by_id(run, [r["page_id"] for r in best], ["url", "title"])
    out = []
    for r in best:
        p = pages.get(r["page_id"]) or {}
        row = {**r, "url": p.get("url"), "title": p.get("title")}
        row["item_text"] = (items or {}).get((r["benchmark"], r["item_id"]))
        out.append(row)
    return {"rows": out, "total": total, "decontaminated": True}


# ------------------------------------------------------------------ the annotation page
def prefix_view(run, iteration: int, prefixes: list[tuple[str, str]], samples_per_kind: int = 3,
                text_chars: int = 2000) -> tuple[dict, list[dict]]:
    """As ``spark.annotate_view.prefix_view``: per listed prefix the pages a mark would add to the
    seed, and sample pages (by Spark's ``xxhash64`` of page_id, collected first)."""
    from .sparkhash import spark_xxhash64

    if not prefixes:
        return {}, []
    pairs = sorted(set(prefixes))
    hosts = sorted({h for h, _ in pairs})
    pages = host_pages(run, hosts)
    matched: dict = {}                  # page_id -> the (host, prefix) pairs it is under
    for pid, p in pages.items():
        path = p["path"] if p["path"] is not None else "/"
        m = [(h, pre) for h, pre in pairs if h == p["host"] and path.startswith(pre)]
        if m:
            matched[pid] = m
    ids = set(matched)
    scores, coll = _scored(run, iteration, ids)
    seed = {r["page_id"] for r in rows(run.location("seed", iteration), ["page_id"],
                                       isin("page_id", ids))} if ids else set()
    joins: dict = {}
    groups: dict = {}
    for pid, ms in matched.items():
        c = pid in coll
        for hp in ms:
            joins[hp] = joins.get(hp, 0) + int(not c and pid not in seed)
            groups.setdefault((hp, c), []).append(pid)
    picked: dict = {}
    for (hp, c), pids in groups.items():
        picked[(hp, c)] = heapq.nsmallest(samples_per_kind, pids, key=lambda p: (spark_xxhash64(p), p))
    texts = pages_by_id(run, {p for ps in picked.values() for p in ps}, ["url", "title", "text", "fetched_at"])
    samples = []
    for (hp, c) in sorted(picked, key=lambda k: (k[0][0], k[0][1], not k[1])):
        for k, pid in enumerate(picked[(hp, c)], 1):
            p = texts[pid]
            text = p["text"]
            samples.append({"m_host": hp[0], "m_prefix": hp[1], "page_id": pid, "url": p["url"], "title": p["title"],
                            "text": (text or "")[:text_chars], "text_chars": None if text is None else len(text),
                            "score": scores.get(pid), "collected": c, "fetched_at": p["fetched_at"], "_n": k})
    return joins, samples


def flagged_domains(run, iteration: int) -> list[dict]:
    """The iteration's flagged rows of the domains table (every column)."""
    import pyarrow.dataset as ds

    cols = schemas.columns(schemas.DOMAINS)
    return list(rows(run.location("domains", iteration), cols, ds.field("flagged") == True))  # noqa: E712


# ------------------------------------------------------------------ judging
def judged_seed_count(run, iteration: int) -> Optional[int]:
    """How many pages joined the iteration's seed as judged maths (``spark.judge_sample.judged_seed_pages``
    counted), None when the seed is not committed."""
    import pyarrow.dataset as ds

    path = run.location("seed", iteration)
    if not run.is_committed(path):
        return None
    return len({r["page_id"] for r in rows(path, ["page_id", "source"], ds.field("source") == JUDGED_SOURCE)
                if r["page_id"] is not None})


def benchmark_items(run) -> dict:
    """(benchmark, item_id) -> question of the benchmarks folder the final stage used, if readable."""
    bench = ((run.stage_marker("corpus") or {}).get("config") or {}).get("benchmarks")
    if not bench or not fsmod.is_local(bench) or not fsmod.get_fs(bench).exists(bench):
        return {}
    try:
        return {(it.benchmark, it.item_id): it.question for it in decontam.load_benchmarks(fsmod.local_path(bench)).items}
    except Exception:  # noqa: BLE001 - the item text is a convenience; the ids are shown anyway
        return {}
