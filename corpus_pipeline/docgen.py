"""Documentation generated from code: blocks of Markdown files kept current.

A generated block sits between two markers in a Markdown file::

    <!-- NAME:begin -->
    ... generated, do not edit by hand ...
    <!-- NAME:end -->

:data:`BLOCKS` maps each block name to the file that holds it (relative to the
repository) and the function that writes its text.  ``python -m
corpus_pipeline.docgen`` (``make docs``) rewrites every registered block;
``--check`` rewrites nothing and exits 1 naming each file whose block is stale
(``tests/test_docs.py`` runs the same check).  No Spark, no JVM.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from pathlib import Path
from typing import Any, Callable, Literal, Optional

from . import config as _config

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- the configuration reference
def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        return _type_name(inner[0]) + " or unset"
    if origin is Literal:
        return "one of " + ", ".join(f"`{a}`" for a in args)
    if tp is dict or origin is dict:
        return "table"
    if tp is list or origin is list:
        return "list"
    return getattr(tp, "__name__", str(tp))


def _default(f: dataclasses.Field) -> str:
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "(required)"
    if value is None:
        return "unset"
    return f"`{_config._toml_value(value)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def config_reference() -> str:
    """Every setting of :class:`~corpus_pipeline.config.Config`: one table per section (key, type,
    default, help), sections and keys in declaration order."""
    out = ["Every key of every section, in the order the configuration classes declare them "
           "(`corpus_pipeline/config.py`); `unset` is TOML's absence of the key (`--set section.key=none`)."]
    hints = typing.get_type_hints(_config.Config)
    for section in dataclasses.fields(_config.Config):
        cls = hints[section.name]
        types = typing.get_type_hints(cls)
        out += ["", f"### `[{section.name}]`", ""]
        if section.metadata.get("help"):
            out += [section.metadata["help"][0].upper() + section.metadata["help"][1:] + ".", ""]
        out += ["| key | type | default | help |", "|---|---|---|---|"]
        for f in dataclasses.fields(cls):
            out.append(f"| `{section.name}.{f.name}` | {_type_name(types[f.name])} | {_cell(_default(f))} "
                       f"| {_cell(f.metadata.get('help', ''))} |")
    return "\n".join(out) + "\n"


def recipe_list() -> str:
    """The recipe's stages, numbered in the order the loop walks them (``pipeline/recipe.py``), each with
    its output folder and what it does (the stage's ``about``)."""
    from .pipeline.recipe import default_recipe

    recipe = default_recipe()
    out: list[str] = []
    n = 0

    def item(s) -> None:
        nonlocal n
        n += 1
        where = f" (`{s.path.replace('{iter}/', '')}/`)" if s.commits else ""
        out.append(f"{n}. **{s.name}**{where}: {s.about}.")

    for s in recipe.ingest:
        item(s)
    out += ["", "Then, for each iteration NNN (`iter=NNN/`):", ""]
    for s in recipe.iteration:
        item(s)
    out += ["", "After the loop:", ""]
    for s in recipe.final:
        item(s)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- blocks
# block name -> (file relative to the repository, generator of the block's text)
BLOCKS: dict[str, tuple[str, Callable[[], str]]] = {
    "config": ("docs/configuration.md", config_reference),
    "recipe": ("README.md", recipe_list),
}


class BlockError(ValueError):
    """A file lacks a block's markers, or holds them more than once or out of order."""


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def replace_block(content: str, name: str, text: str) -> str:
    """``content`` with the text between the ``name`` markers replaced by ``text`` (markers kept)."""
    begin, end = _markers(name)
    if content.count(begin) != 1 or content.count(end) != 1:
        raise BlockError(f"expected exactly one {begin} and one {end}")
    i, j = content.index(begin), content.index(end)
    if j < i:
        raise BlockError(f"{end} comes before {begin}")
    return content[:i + len(begin)] + "\n" + text.strip("\n") + "\n" + content[j:]


def update(path: str | Path, name: str, text: str) -> bool:
    """Replaces block ``name`` of the file at ``path`` with ``text``; True when the file changed."""
    p = Path(path)
    old = p.read_text(encoding="utf-8")
    try:
        new = replace_block(old, name, text)
    except BlockError as e:
        raise BlockError(f"{p}: {e}") from None
    if new != old:
        p.write_text(new, encoding="utf-8")
    return new != old


def stale(root: Optional[Path] = None, blocks: Optional[dict] = None) -> list[str]:
    """``file: block NAME`` for every registered block whose committed text is not what its generator
    writes now (nothing is written)."""
    root = ROOT if root is None else Path(root)
    out = []
    for name, (rel, generate) in (blocks if blocks is not None else BLOCKS).items():
        p = root / rel
        try:
            current = p.read_text(encoding="utf-8")
            if replace_block(current, name, generate()) != current:
                out.append(f"{rel}: block {name!r} is stale")
        except (OSError, BlockError) as e:
            out.append(f"{rel}: block {name!r}: {e}")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus_pipeline.docgen",
                                 description="Rewrite the generated blocks of the documentation.")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 naming every file whose generated block is stale")
    args = ap.parse_args(argv)
    if args.check:
        problems = stale()
        for line in problems:
            print(f"{line} (run `make docs`)", file=sys.stderr)
        return 1 if problems else 0
    for name, (rel, generate) in BLOCKS.items():
        if update(ROOT / rel, name, generate()):
            print(f"{rel}: block {name!r} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
