"""Spark layer of the domain and path steps: applies the rules of ``domains.py``.

* :func:`domain_stats` -> ``schemas.DOMAINS`` (``host`` holds the domain key);
* :func:`prefix_stats` -> ``schemas.PREFIXES`` for hosts of flagged domains;
* :func:`pages_under_marks` -> ``schemas.SEED`` rows for the next iteration.

``pages_df`` needs ``page_id, host, path`` (plus ``url, title`` for the
examples of :func:`prefix_stats`); ``collected_df`` needs ``page_id``.  Pages
with an empty host are left out (they cannot be marked).  The registered
domain of a host is computed once per distinct host, not per page.
"""
from __future__ import annotations

from .. import domains as rules
from .. import schemas
from ..config import DomainConfig
from .arrow import map_rows
from .io import rows_to_df


def _with_collected(pages_df, collected_df):
    from pyspark.sql import functions as F

    c = collected_df.select("page_id").distinct().withColumn("_c", F.lit(True))
    return (pages_df.join(c, "page_id", "left")
            .withColumn("is_collected", F.coalesce(F.col("_c"), F.lit(False)))
            .drop("_c")
            .withColumn("host", F.lower(F.col("host")))
            .filter(F.col("host").isNotNull() & (F.col("host") != "")))


def _with_key(spark, df, key: str):
    """Adds ``dkey``: the domain key of ``host`` (computed per distinct host)."""
    from pyspark.sql import functions as F

    if key == "host":
        return df.withColumn("dkey", F.col("host"))
    keys = map_rows(df.select("host").distinct(),
                    lambda it: ((host, rules.domain_key(host, key)) for (host,) in it), "host STRING, dkey STRING")
    return df.join(keys, "host", "left")


def domain_stats(spark, pages_df, collected_df, cfg: DomainConfig):
    """Per domain key: pages, collected pages, fraction, flagged (``domains.is_flagged``)."""
    from pyspark.sql import functions as F

    df = _with_key(spark, _with_collected(pages_df.select("page_id", "host"), collected_df), cfg.key)
    agg = (df.groupBy("dkey")
           .agg(F.count(F.lit(1)).alias("pages"),
                F.sum(F.col("is_collected").cast("long")).alias("collected")))
    frac = F.col("collected").cast("double") / F.col("pages").cast("double")
    return (agg.withColumnRenamed("dkey", "host")
            .withColumn("pages", F.col("pages").cast("long"))
            .withColumn("collected", F.col("collected").cast("long"))
            .withColumn("fraction", frac)
            .withColumn("flagged", (F.col("pages") >= F.lit(cfg.min_pages)) & (frac > F.lit(float(cfg.flag_fraction))))
            .select(*schemas.columns(schemas.DOMAINS)))


HIST_BINS = rules.HIST_BINS
EXPLODED = ("host STRING, prefix STRING, depth INT, page_id STRING, url STRING, title STRING, "
            "is_collected BOOLEAN, markup BOOLEAN, bin INT")


def _explode_prefixes(df, depth: int):
    """One row per (page, prefix of ``domains.topical_prefixes``): the host's root and its topical
    folders, structural folders grouped into their parent (Python: the folder rules are regexes)."""
    def run(rows):
        for host, path, page_id, url, title, collected, markup, score in rows:
            b = min(int((score or 0.0) * HIST_BINS), HIST_BINS - 1) if score is not None else 0
            for d, pre in rules.topical_prefixes(path, depth):
                yield host, pre, d, page_id, url, title, bool(collected), bool(markup), b

    cols = ("host", "path", "page_id", "url", "title", "is_collected", "markup", "score")
    return map_rows(df.select(*cols), run, EXPLODED)


def prefix_stats(spark, pages_df, collected_df, domains_df, cfg: DomainConfig, scores_df=None,
                 markup_column: str = "has_math_markup"):
    """Per host of a flagged domain, per prefix of ``domains.topical_prefixes`` (the root and topical
    folders down to ``path_depth``), with the evidence a proposal rests on: pages with the profile's
    markup (``markup_column``) and score histograms (``HIST_BINS`` bins, JSON lists), collected and uncollected apart.

    Rows are unordered (sort when collecting); ``examples`` is a JSON list of
    ``{"url", "title", "collected"}``, as the tests' reference ``aggregate_prefixes`` (tests/reference.py) chooses them.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    cols = ["page_id", "host", "path"] + [c for c in ("url", "title", markup_column) if c in pages_df.columns]
    df = _with_collected(pages_df.select(*cols), collected_df)
    for c in ("url", "title"):
        if c not in df.columns:
            df = df.withColumn(c, F.lit(None).cast("string"))
    df = df.withColumn("markup", F.coalesce(F.col(markup_column), F.lit(False))
                       if markup_column in df.columns else F.lit(False))
    if scores_df is not None:
        df = df.join(scores_df.select("page_id", "score"), "page_id", "left")
    else:
        df = df.withColumn("score", F.lit(None).cast("double"))
    df = _with_key(spark, df, cfg.key)
    flagged = domains_df.filter(F.col("flagged")).select(F.col("host").alias("dkey")).distinct()
    df = df.join(F.broadcast(flagged), "dkey", "inner")
    totals = (df.groupBy("host").agg(F.count(F.lit(1)).cast("long").alias("host_pages"),
                                     F.sum(F.col("is_collected").cast("long")).cast("long")
                                     .alias("host_collected")))
    # one shuffle by (host, prefix) serves the counts, the per-kind example ranking and their grouping
    ex = _explode_prefixes(df, cfg.path_depth).repartition("host", "prefix")
    c, u = F.col("is_collected"), ~F.col("is_collected")
    hist = lambda side: F.to_json(F.array(*[F.sum((side & (F.col("bin") == k)).cast("long"))  # noqa: E731
                                            for k in range(HIST_BINS)]))
    stats = (ex.groupBy("host", "prefix")
             .agg(F.min("depth").alias("depth"),
                  F.count(F.lit(1)).cast("long").alias("pages"),
                  F.sum(c.cast("long")).cast("long").alias("collected"),
                  F.sum((c & F.col("markup")).cast("long")).cast("long").alias("markup_collected"),
                  F.sum((u & F.col("markup")).cast("long")).cast("long").alias("markup_uncollected"),
                  hist(c).alias("hist_collected"), hist(u).alias("hist_uncollected"))
             .filter((F.col("pages") >= F.lit(cfg.prefix_min_pages)) | (F.col("prefix") == "/")))
    top = Window.partitionBy("host").orderBy((F.col("prefix") != "/").asc(), F.col("pages").desc(),
                                             F.col("prefix").asc())
    stats = stats.withColumn("_rank", F.row_number().over(top)) \
        .filter(F.col("_rank") <= F.lit(cfg.max_prefixes_per_domain)).drop("_rank")

    if cfg.examples > 0:
        kind = Window.partitionBy("host", "prefix", "is_collected").orderBy(F.col("page_id").asc())
        picked = (ex.withColumn("_n", F.row_number().over(kind))
                  .filter(F.col("_n") <= F.lit(cfg.examples)))
        examples = (picked.groupBy("host", "prefix")
                    .agg(F.sort_array(F.collect_list(F.struct(
                        (~F.col("is_collected")).alias("k"), F.col("page_id").alias("id"),
                        F.col("url").alias("url"), F.col("title").alias("title"),
                        F.col("is_collected").alias("collected")))).alias("_ex"))
                    .select("host", "prefix", F.to_json(F.transform(
                        "_ex", lambda s: F.struct(s["url"].alias("url"), s["title"].alias("title"),
                                                  s["collected"].alias("collected")))).alias("examples")))
        stats = stats.join(examples, ["host", "prefix"], "left")
    else:
        stats = stats.withColumn("examples", F.lit("[]"))
    stats = stats.join(totals, "host", "left")
    return (stats.withColumn("fraction", F.col("collected").cast("double") / F.col("pages").cast("double"))
            .withColumn("examples", F.coalesce(F.col("examples"), F.lit("[]")))
            .select(*schemas.columns(schemas.PREFIXES)))


def pages_under_marks(spark, pages_df, collected_df, marks: list, iteration: int):
    """SEED rows of iteration ``iteration + 1``: uncollected pages under a marked ``<host><prefix>``.

    A page under several marks appears once, with the longest matching prefix
    (ties: the earlier mark).  ``text`` is null (joined later).
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    mark_rows, seen = [], set()
    for i, m in enumerate(marks):
        host = rules.normalize_host(m.host)
        if not host or not m.prefix.startswith("/"):
            raise ValueError(f"bad mark {m.host!r} {m.prefix!r}: needs a host and a prefix starting with '/'")
        if (host, m.prefix) in seen:
            continue
        seen.add((host, m.prefix))
        mark_rows.append((host, m.prefix, i))
    if not mark_rows:
        return rows_to_df(spark, [], schemas.SEED)
    mdf = rows_to_df(spark, mark_rows, "m_host STRING, m_prefix STRING, m_order INT")
    pages = pages_df.select("page_id", F.lower(F.col("host")).alias("host"), "path")
    under = pages.join(F.broadcast(mdf), (F.col("host") == F.col("m_host")) &
                       F.coalesce(F.col("path"), F.lit("/")).startswith(F.col("m_prefix")), "inner")
    under = under.join(collected_df.select("page_id"), "page_id", "left_anti")
    best = Window.partitionBy("page_id").orderBy(F.length("m_prefix").desc(), F.col("m_order").asc())
    under = under.withColumn("_n", F.row_number().over(best)).filter(F.col("_n") == 1)
    return under.select(
        F.concat(F.lit("p:"), F.col("page_id")).alias("seed_id"),
        F.col("page_id"),
        F.concat(F.lit("path:"), F.col("m_host"), F.col("m_prefix")).alias("source"),
        F.lit(int(iteration) + 1).cast("int").alias("added_in"),
        F.lit(None).cast("string").alias("text"),
    )


def checked_additions(added_df, scores_df, min_score: float = 0.0, max_pages=None, pages_df=None,
                      markup_column: str = "has_math_markup"):
    """The pages of :func:`pages_under_marks` that may join the seed: those the current
    iteration's classifier scored at least ``min_score`` (a page it is confident is not maths
    is a miss of the mark, not of the classifier), at most ``max_pages`` of them, highest
    score first (ties by page_id), so the result does not depend on partitioning.
    ``max_pages=None`` keeps all; 0 adds none.  With ``pages_df`` (``page_id`` and the profile's
    ``markup_column``) a page with the domain's markup joins whatever its score.  Rows keep ``schemas.SEED``."""
    from pyspark.sql import functions as F

    cols = schemas.columns(schemas.SEED)
    if max_pages is not None and max_pages <= 0:
        return added_df.limit(0).select(*cols)
    if scores_df is None:
        if max_pages is None:
            return added_df.select(*cols)
        return added_df.orderBy("page_id").limit(int(max_pages)).select(*cols)
    df = added_df.join(scores_df.select("page_id", F.col("score").alias("_s")), "page_id", "left") \
        .withColumn("_s", F.coalesce(F.col("_s"), F.lit(0.0)))
    if min_score > 0:
        ok = F.col("_s") >= F.lit(float(min_score))
        if pages_df is not None:
            df = df.join(pages_df.select("page_id", F.coalesce(F.col(markup_column), F.lit(False)).alias("_m")),
                         "page_id", "left")
            ok = ok | F.coalesce(F.col("_m"), F.lit(False))
        df = df.where(ok)
    if max_pages is not None:
        df = df.orderBy(F.col("_s").desc(), F.col("page_id").asc()).limit(int(max_pages))
    return df.select(*cols)


def addition_label_counts(added_df, pages_df, labels_df, positive: str, negative: str) -> dict:
    """With labels (evaluation only, never a decision): how many added seed pages carry the
    profile's ``positive`` label (``math``) and how many its ``negative`` one."""
    from pyspark.sql import functions as F

    lab = added_df.select("page_id").join(pages_df.select("page_id", "url"), "page_id") \
        .join(labels_df, "url", "left")
    r = lab.agg(F.sum(F.when(F.col("label") == positive, 1).otherwise(0)).alias("m"),
                F.sum(F.when(F.col("label") == negative, 1).otherwise(0)).alias("n"),
                F.count(F.lit(1)).alias("t")).first()
    m, n, t = int(r["m"] or 0), int(r["n"] or 0), int(r["t"] or 0)
    return {"seed_added_math": m, "seed_added_non_math": n, "seed_added_other_label": t - m - n,
            "seed_added_precision": (m / (m + n)) if (m + n) else None}


def top_prefix_rows(prefixes_df, max_domains: int) -> tuple[list[dict], int]:
    """(rows, hosts): the PREFIXES rows of the ``max_domains`` hosts whose best single mark
    would add the most uncollected pages (impact = max over its prefixes of pages - collected;
    ties by the host's uncollected pages, then host name), ordered by host and prefix, and the
    number of hosts in the full table.  Ranked in Spark: only those hosts' rows reach the
    driver; the full statistics stay in the prefixes table."""
    from pyspark.sql import functions as F

    impact = F.col("pages") - F.col("collected")
    host_unc = F.coalesce(F.col("host_pages") - F.col("host_collected"), impact)
    hosts = (prefixes_df.groupBy("host")
             .agg(F.max(impact).alias("_impact"), F.max(host_unc).alias("_unc")))
    n_hosts = hosts.count()
    top = hosts.orderBy(F.col("_impact").desc(), F.col("_unc").desc(), F.col("host").asc()) \
        .limit(int(max_domains)).select("host")
    rows = [r.asDict() for r in prefixes_df.join(F.broadcast(top), "host", "inner")
            .select(*schemas.columns(schemas.PREFIXES)).orderBy("host", "prefix").collect()]
    return rows, int(n_hosts)
