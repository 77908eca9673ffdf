"""The package's layering, read from the source: pyspark is imported only by the Spark layer
(``corpus_pipeline/spark/``, the engine; it registers Hadoop's FileSystem with ``fs``, which knows no Spark),
the layers import downwards only (see :data:`UPPER`), no two modules import each other, directly or around a cycle (imports inside
functions count), only ``spark/classic.py`` uses what a Spark Connect session lacks (RDDs, the
SparkContext, ``SparkFiles``, the py4j gateway, broadcast variables), and an import inside a function
is there for a reason: a library outside the standard one (loaded only by the code that needs it), the
Spark layer, or a product module that brings pyspark with it."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "corpus_pipeline"
PYSPARK_OUTSIDE_SPARK: set = set()
# a stage's folder, corpus_pipeline/stages/<name>/: the stage class (recipe layer), its DataFrame step (the
# engine's layer: the only file of the folder that may import pyspark) and its pure rules (the base)
STAGE_CLASS, STEP = "stage", "step"
CLASSIC_ADAPTER = "spark/classic.py"
# attributes and names only a classic session has (Spark Connect raises on them)
CLASSIC_ATTRS = {"rdd", "sparkContext", "_jvm", "_jsc", "_jdf", "_jcol", "_gateway", "mapPartitions",
                 "mapPartitionsWithIndex", "parallelize", "emptyRDD", "addFile", "setCheckpointDir",
                 "statusTracker", "hadoopConfiguration", "_ensure_initialized"}
CLASSIC_NAMES = {"SparkContext", "SparkFiles", "Broadcast", "RDD"}
HINT_MODULES = {"F", "functions"}          # F.broadcast(df): a join hint, not a broadcast variable


def _modules() -> dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = ("corpus_pipeline",) + p.relative_to(PKG).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _imports(mod: str, path: Path, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    """(product modules imported, top-level names of outside packages imported)."""
    return _imports_of(ast.parse(path.read_text(encoding="utf-8")), mod, path, known)


def _imports_of(tree, mod: str, path: Path, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    here = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    inside, outside = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                (inside if a.name in known else outside).add(a.name if a.name in known else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = ".".join(base[:len(base) - (node.level - 1)])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("corpus_pipeline"):
                outside.add(target.split(".")[0])
                continue
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in known:
                    inside.add(sub)
                elif target in known:
                    inside.add(target)
    inside.discard(mod)
    return inside, outside


def test_pyspark_is_imported_only_by_the_spark_layer():
    known = _modules()
    offenders = []
    for mod, path in known.items():
        rel = path.relative_to(PKG).as_posix()
        if rel.startswith("spark/") or rel in PYSPARK_OUTSIDE_SPARK or _is_stage_file(rel, STEP):
            continue
        if "pyspark" in _imports(mod, path, known)[1]:
            offenders.append(rel)
    assert offenders == []


def _brings_pyspark(known: dict[str, Path]) -> set[str]:
    """The Spark layer, and the product modules whose import (their top-level statements, followed
    through the product) loads pyspark."""
    top = {}
    for m, p in known.items():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        body = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        top[m] = _imports_of(ast.Module(body=body, type_ignores=[]), m, p, known)
    heavy = {m for m, (_, out) in top.items() if "pyspark" in out or m.startswith("corpus_pipeline.spark")}
    grown = True
    while grown:
        grown = False
        for m, (inside, _) in top.items():
            parents = {".".join(m.split(".")[:k]) for k in range(2, m.count(".") + 1)}   # packages run first
            if m not in heavy and (inside | parents) & heavy:
                heavy.add(m)
                grown = True
    return heavy


def test_imports_inside_functions_have_a_reason():
    known = _modules()
    heavy = _brings_pyspark(known)
    std = set(sys.stdlib_module_names)
    offenders = []
    for mod, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for n in ast.walk(fn):
                if not isinstance(n, (ast.Import, ast.ImportFrom)):
                    continue
                inside, outside = _imports_of(ast.Module(body=[n], type_ignores=[]), mod, path, known)
                if outside & std or (inside and not inside & heavy):
                    offenders.append(f"{path.relative_to(PKG)}:{n.lineno}")
    assert offenders == []


def test_no_import_cycles():
    known = _modules()
    graph = {m: _imports(m, p, known)[0] for m, p in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles = []

    def visit(v: str) -> None:               # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []
    assert "corpus_pipeline.spark.iteration" in graph["corpus_pipeline.pipeline.runner"]   # imports in functions count


def test_xdist_keeps_a_group_on_one_worker(tmp_path):
    """`make test` and `make test-fast` run on two pytest-xdist workers with ``--dist loadgroup``: the
    tests of one file (the group tests/conftest.py gives them) must run on one worker, or its module
    fixtures are built by both. Run on two small files of this suite, in a process of its own."""
    import os
    import re
    import subprocess
    import sys

    root = PKG.parent
    files = ["tests/test_sparkhash.py", "tests/test_runlog.py"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    p = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "2", "--dist",
                        "loadgroup", "-m", "not spark", "--basetemp", str(tmp_path / "t"), *files],
                       cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    ran = re.findall(r"^\[(gw\d+)\] .*?PASSED (\S+?)::(.+?)\s*$", p.stdout, re.M)
    workers = {}
    for gw, file, test in ran:
        assert test.endswith("@" + file), test                   # the group joined the test's id
        workers.setdefault(file, set()).add(gw)
    assert set(workers) == set(files) and all(len(w) == 1 for w in workers.values()), workers


def classic_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) of every use of a classic-only Spark API in ``source``: the attributes and names
    above (also as imported names) and ``x.broadcast(...)`` calls other than the join hint."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and (node.attr in CLASSIC_ATTRS or node.attr in CLASSIC_NAMES):
            out.append((node.lineno, "." + node.attr))
        elif isinstance(node, ast.Name) and node.id in CLASSIC_NAMES:
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.alias) and node.name.split(".")[-1] in CLASSIC_NAMES:
            out.append((getattr(node, "lineno", 0), "import " + node.name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "broadcast" \
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id in HINT_MODULES):
            out.append((node.lineno, ".broadcast()"))
    return sorted(set(out))


def test_classic_only_spark_apis_stay_in_the_adapter():
    """Every module but ``spark/classic.py`` uses the DataFrame and Arrow APIs only (what Spark Connect
    offers): RDDs, the SparkContext, SparkFiles, the py4j gateway and broadcast variables go through
    the adapter."""
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel == CLASSIC_ADAPTER:
            continue
        offenders += [f"{rel}:{line}: {what}" for line, what in classic_uses(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_classic_guard_sees_each_kind_of_use():
    src = """
from pyspark import SparkFiles
from pyspark.sql import functions as F
a = df.rdd.mapPartitions(f)
b = spark.sparkContext.defaultParallelism
c = spark._jvm.org.apache.hadoop.fs.Path("x")
d = spark._jsc.hadoopConfiguration()
e = sc.broadcast(index)
g = df.join(F.broadcast(small), "k")
h = SparkFiles.get("m")
"""
    found = {what for _, what in classic_uses(src)}
    assert {".rdd", ".mapPartitions", ".sparkContext", "._jvm", "._jsc", ".hadoopConfiguration", ".broadcast()",
            "import SparkFiles", "SparkFiles"} <= found
    assert [w for line, w in classic_uses(src) if line == 9] == []     # the join hint (line 9) is fine
    assert classic_uses("df.hint('broadcast'); spark.range(3).mapInArrow(f, 'id BIGINT')") == []


DEVELOPMENT = {"devtools", "bench", "tests", "reference", "conftest"}


def test_the_package_ships_no_development_material():
    """The development crawl, the extraction-quality reference pages and the tests' reference copies of
    the Spark logic live outside ``corpus_pipeline`` (``devtools/``, ``tests/reference.py``): the wheel
    (``[tool.setuptools.packages.find]``) holds the product package only, and no product module imports
    them."""
    import tomllib

    from setuptools import find_packages

    root = PKG.parent
    include = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = find_packages(str(root), include=include)
    assert shipped and all(p == "corpus_pipeline" or p.startswith("corpus_pipeline.") for p in shipped)
    assert (root / "devtools" / "devcrawl.py").is_file() and not (PKG / "devcrawl.py").exists()
    known = _modules()
    offenders = sorted(f"{p.relative_to(PKG)}: {sorted(DEVELOPMENT & _imports(m, p, known)[1])}"
                       for m, p in known.items() if DEVELOPMENT & _imports(m, p, known)[1])
    assert offenders == []


# The layers, top to bottom: the commands and the driver (cli, commands/, loop, report/, docgen) read and
# run the recipe (pipeline/: the stages, the runner, the run view); the engine (spark/) applies the pure
# rules on Spark; everything else (fs, runfolder, sources/, the stages' pure rules, arrowrun's look-ups)
# is the base, which knows neither the engine nor the recipe.
UPPER = ("corpus_pipeline.cli", "corpus_pipeline.__main__", "corpus_pipeline.commands", "corpus_pipeline.loop",
         "corpus_pipeline.report", "corpus_pipeline.docgen")
RECIPE = "corpus_pipeline.pipeline"
ENGINE = "corpus_pipeline.spark"


def _under(mod: str, pkg: str) -> bool:
    return mod == pkg or mod.startswith(pkg + ".")


def _is_stage_file(rel: str, name: str) -> bool:
    """Whether ``rel`` (a path under corpus_pipeline/) is the ``name``.py of a stage's folder."""
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == "stages" and parts[2] == f"{name}.py"


def _layer(mod: str) -> int:
    parts = mod.split(".")
    if len(parts) == 4 and parts[1] == "stages":          # corpus_pipeline.stages.<name>.<file>
        return {STAGE_CLASS: 2, STEP: 1}.get(parts[3], 0)
    if any(_under(mod, u) for u in UPPER):
        return 3
    if _under(mod, RECIPE):
        return 2
    if _under(mod, ENGINE):
        return 1
    return 0


def test_no_module_imports_a_higher_layer():
    """The base imports neither the engine nor the recipe (``fs`` gets Hadoop's FileSystem by
    registration, ``sources`` is handed the master URL, the look-ups share the base's constants); the
    engine does not import the recipe (the Spark helpers read a run through the run view they are
    handed); the recipe does not import the commands. Imports inside functions count."""
    known = _modules()
    offenders = []
    for mod, path in sorted(known.items()):
        for dep in sorted(_imports(mod, path, known)[0]):
            if _layer(dep) > _layer(mod):
                offenders.append(f"{path.relative_to(PKG)} imports {dep}")
    assert offenders == []


def test_the_layer_rule_sees_an_upward_import():
    assert _layer("corpus_pipeline.fs") < _layer("corpus_pipeline.spark.classic") < \
        _layer("corpus_pipeline.pipeline.runview") < _layer("corpus_pipeline.commands.inspect")
    assert _layer("corpus_pipeline.sparkhash") == 0 and _layer("corpus_pipeline.report.summary") == 3
    assert _layer("corpus_pipeline.stages.near_dedup.rules") < _layer("corpus_pipeline.stages.near_dedup.step") \
        < _layer("corpus_pipeline.stages.near_dedup.stage")


def test_the_engine_knows_no_stage():
    """``spark/`` (session, I/O, Arrow, the classic adapter, cluster, progress, components) imports no
    stage folder; a stage's DataFrame step imports the engine, never the other way."""
    known = _modules()
    offenders = sorted(f"{p.relative_to(PKG)} imports {d}" for m, p in known.items() if _under(m, ENGINE)
                       for d in _imports(m, p, known)[0] if _under(d, "corpus_pipeline.stages"))
    assert offenders == []
    assert any(_under(m, "corpus_pipeline.stages") for m in known)        # the rule has something to look at


def test_a_stage_folder_holds_its_class_step_and_rules():
    """Every folder under stages/ has its stage class and its DataFrame step (its pure rules too, where
    it has rules of its own), and its package imports none of them (an executor loading the rules loads
    neither pyspark nor the recipe)."""
    folders = [p for p in (PKG / "stages").iterdir() if p.is_dir() and not p.name.startswith("_")]
    assert folders
    known = _modules()
    heavy = _brings_pyspark(known)
    for d in folders:
        assert {f"{STAGE_CLASS}.py", f"{STEP}.py", "__init__.py"} <= {f.name for f in d.iterdir()}, d
        assert f"corpus_pipeline.stages.{d.name}.rules" not in heavy, d.name
        assert f"corpus_pipeline.stages.{d.name}" not in heavy, d.name


def test_extractors_use_only_the_public_names_of_extract():
    """An extractor reaches the shared extraction code through its public functions, not a private
    ``_name`` of another module."""
    offenders = []
    for path in sorted((PKG / "extractors").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module and n.level:
                offenders += [f"{path.name}: {a.name}" for a in n.names if a.name.startswith("_") and
                              a.name != "__future__"]
            elif isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__") \
                    and isinstance(n.value, ast.Name) and n.value.id != "self":
                offenders.append(f"{path.name}:{n.lineno}: .{n.attr}")
    assert offenders == []
