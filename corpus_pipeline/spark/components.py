"""Connected components of an edge DataFrame, computed in Spark.

Alternating Large-Star / Small-Star (Kiveris et al., "Connected Components in
MapReduce and Beyond", SoCC 2014) on DataFrames.  Node ids are any orderable
column type (page_id strings here).  Each round's edge set is checkpointed
(reliable checkpoint in ``checkpoint_dir``) so the lineage stays short.

Every operation preserves connectivity and never adds an edge between
components, so the loop stops when the edges form a forest of stars whose
centre is the smallest node of its component: every node has at most one
outgoing edge ``(node -> root)`` and no root has an outgoing edge.  The result
maps every node that appears in an edge to the smallest node of its component
(the roots map to themselves).  Nothing is collected to the driver: the
convergence test is one aggregate, which also gives the edge, node and component counts.
"""
from __future__ import annotations

from typing import Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def _norm(edges: DataFrame) -> DataFrame:
    """Undirected edges as (src > dst), self-loops removed, deduplicated."""
    return (edges.select(F.greatest("src", "dst").alias("src"), F.least("src", "dst").alias("dst"))
            .where(F.col("src") != F.col("dst")).distinct())


def _large_star(e: DataFrame) -> DataFrame:
    # neighbourhood of every node in both directions
    both = e.unionByName(e.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
    mins = both.groupBy("src").agg(F.min("dst").alias("m"))
    j = both.join(mins.hint("shuffle_hash"), "src")
    # connect every strictly larger neighbour v of u to m(u) = min(N(u) + u)
    out = j.where(F.col("dst") > F.col("src")).select(
        F.col("dst").alias("src"), F.least("m", "src").alias("dst"))
    return out.distinct()


def _small_star(e: DataFrame) -> DataFrame:
    # e is oriented src > dst: N(u) = smaller neighbours of u
    mins = e.groupBy("src").agg(F.min("dst").alias("m"))
    j = e.join(mins.hint("shuffle_hash"), "src")
    # connect u and every smaller neighbour v of u to m(u) = min(N(u))
    a = j.where(F.col("dst") != F.col("m")).select(F.col("dst").alias("src"), F.col("m").alias("dst"))
    b = j.select(F.col("src"), F.col("m").alias("dst"))
    return a.unionByName(b).distinct()


def forest_counts(e: DataFrame) -> dict:
    """One aggregate (one query) over ``e`` (src > dst, distinct): ``edges``, ``nodes`` and ``bad``, the
    nodes that keep ``e`` from being a forest of stars rooted at the smallest node (two outgoing
    edges, or an outgoing edge while some edge points at it).  ``bad == 0``: converged, and then
    every node but the roots has exactly one edge, so the components number ``nodes - edges``."""
    ends = e.select(F.col("src").alias("n"), F.lit(1).alias("o"), F.lit(0).alias("i")).unionByName(
        e.select(F.col("dst").alias("n"), F.lit(0).alias("o"), F.lit(1).alias("i")))
    per = ends.groupBy("n").agg(F.sum("o").alias("d"), F.max("i").alias("i"))
    bad = (F.col("d") > 1) | ((F.col("d") > 0) & (F.col("i") > 0))
    r = per.agg(F.sum("d").alias("edges"), F.count(F.lit(1)).alias("nodes"),
                F.sum(F.when(bad, 1).otherwise(0)).alias("bad")).collect()[0]
    return {k: int(r[k] or 0) for k in ("edges", "nodes", "bad")}


def materialize(df: DataFrame, reliable: bool) -> DataFrame:
    """Cut the lineage: reliable checkpoint (computed once, via a temporary cache) or local
    (:func:`materialize_counted`, whose count is the job an eager checkpoint runs)."""
    return materialize_counted(df, reliable)[0]


def materialize_counted(df: DataFrame, reliable: bool) -> tuple[DataFrame, int]:
    """:func:`materialize` and the number of rows, from the job that computes the checkpoint: a lazy
    checkpoint is written when the first action over it ends, so that action is ``count()`` (an
    eager checkpoint runs a count of its own and drops it)."""
    from .classic import reliable_checkpoints

    if not reliable or not reliable_checkpoints(df.sparkSession):
        out = df.localCheckpoint(eager=False)
        return out, out.count()
    cached = df.persist()
    out = cached.checkpoint(eager=False)
    n = out.count()
    cached.unpersist()
    return out, n


def connected_components(edges: DataFrame, checkpoint_dir: Optional[str] = None,
                         max_iterations: int = 30) -> tuple[DataFrame, int]:
    """``edges(src, dst)`` -> (``components(node, component)``, rounds used).

    ``component`` is the smallest node id of the component.  Nodes without
    edges are not in the output.  Raises RuntimeError when the edges have not
    converged after ``max_iterations`` rounds (each round is one large-star
    and one small-star step).
    """
    comps, rounds, _ = components_counted(edges, checkpoint_dir, max_iterations)
    return comps, rounds


def components_counted(edges: DataFrame, checkpoint_dir: Optional[str] = None,
                       max_iterations: int = 30) -> tuple[DataFrame, int, dict]:
    """:func:`connected_components` with the counts its convergence tests measure anyway:
    ``input_edges`` (distinct undirected edges, self-loops left out), ``nodes``, ``components`` and
    ``non_roots`` (``nodes - components``, the members that are not their component's smallest
    node).  One query per test (:func:`forest_counts`), none added."""
    spark = edges.sparkSession
    if checkpoint_dir:
        from .classic import set_checkpoint_dir

        set_checkpoint_dir(spark, checkpoint_dir)
    e = _norm(edges).persist()
    rounds = 0
    c = forest_counts(e)
    first = c["edges"]
    while c["bad"]:
        if rounds >= max_iterations:
            raise RuntimeError(
                f"connected components did not converge in {max_iterations} rounds "
                "(raise dedup.max_iterations_cc)")
        rounds += 1
        prev = e
        e = materialize(_small_star(_large_star(e)), bool(checkpoint_dir))
        prev.unpersist()
        c = forest_counts(e)
    members = e.select(F.col("src").alias("node"), F.col("dst").alias("component"))
    roots = e.select(F.col("dst").alias("node"), F.col("dst").alias("component")).distinct()
    counts = {"input_edges": first, "nodes": c["nodes"], "components": c["nodes"] - c["edges"],
              "non_roots": c["edges"]}
    return members.unionByName(roots), rounds, counts
