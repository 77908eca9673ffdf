"""The documentation: help text for every setting, the generated reference kept current, README links.

No Spark: reads the configuration classes and the Markdown files only.
"""
import dataclasses
import re
import typing
import unicodedata
from pathlib import Path

import pytest

from corpus_pipeline import docgen
from corpus_pipeline.config import Config

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _sections():
    hints = typing.get_type_hints(Config)
    return [(s, hints[s.name]) for s in dataclasses.fields(Config)]


def test_every_setting_has_help_text():
    missing = [s.name for s, _ in _sections() if not str(s.metadata.get("help", "")).strip()]
    for s, cls in _sections():
        missing += [f"{s.name}.{f.name}" for f in dataclasses.fields(cls)
                    if not str(f.metadata.get("help", "")).strip()]
    assert not missing, f"settings without help text: {', '.join(missing)}"


def test_reference_lists_every_key_of_every_section_in_order():
    ref = docgen.config_reference()
    for s, cls in _sections():
        assert f"### `[{s.name}]`" in ref
        keys = re.findall(rf"^\| `{s.name}\.(\w+)` \|", ref, flags=re.M)
        assert keys == [f.name for f in dataclasses.fields(cls)], s.name
        for f in dataclasses.fields(cls):
            assert f.metadata["help"].split()[0] in ref


def test_committed_docs_are_current():
    assert docgen.stale() == [], "run `make docs`"


def test_check_names_the_stale_file(tmp_path, capsys, monkeypatch):
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("intro\n<!-- x:begin -->\nold\n<!-- x:end -->\n")
    blocks = {"x": ("docs/x.md", lambda: "new")}
    assert docgen.stale(tmp_path, blocks) == ["docs/x.md: block 'x' is stale"]
    monkeypatch.setattr(docgen, "ROOT", tmp_path)
    monkeypatch.setattr(docgen, "BLOCKS", blocks)
    assert docgen.main(["--check"]) == 1
    assert "docs/x.md: block 'x' is stale" in capsys.readouterr().err
    assert doc.read_text().count("old") == 1                      # --check writes nothing
    assert docgen.main([]) == 0 and docgen.main(["--check"]) == 0
    assert docgen.stale(tmp_path, {"y": ("docs/x.md", lambda: "")}) != []   # no markers: reported


def test_update_replaces_only_the_block(tmp_path):
    p = tmp_path / "f.md"
    before = "# Title\n\ntext before\n<!-- a:begin -->\nold a\n<!-- a:end -->\n<!-- b:begin -->\nold b\n<!-- b:end -->\nafter\n"
    p.write_text(before)
    assert docgen.update(p, "a", "new a\nline 2") is True
    assert p.read_text() == before.replace("old a", "new a\nline 2")
    assert docgen.update(p, "a", "new a\nline 2") is False           # unchanged: not rewritten
    with pytest.raises(docgen.BlockError, match="f.md"):
        docgen.update(p, "c", "x")


def _anchors(md: str) -> set:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered."""
    out, seen = set(), {}
    in_code = False
    for line in md.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
        m = re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if in_code or not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2)).strip().lower()
        slug = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN").replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(md: str) -> list:
    return re.findall(r"\]\(([^)\s]+)\)", md)


def _check_links(path: Path) -> list:
    bad = []
    for target in _links(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue                                   # http(s), mailto: not ours to check
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if ROOT not in dest.parents and dest != ROOT:
            bad.append(f"{path.name}: {target} points outside the repository")
            continue
        if not dest.exists():
            bad.append(f"{path.name}: {target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
            bad.append(f"{path.name}: {target}: no such heading")
    return bad


def test_readme_links_to_docs_that_exist():
    text = README.read_text(encoding="utf-8")
    docs_links = [t for t in _links(text) if t.startswith("docs/")]
    assert len(docs_links) >= 8
    assert _check_links(README) == []


def test_docs_links_resolve_inside_the_repository():
    bad = []
    for p in sorted((ROOT / "docs").glob("*.md")):
        bad += _check_links(p)
    assert bad == []


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 220, f"README.md has {lines} lines; move details to docs/"
    text = README.read_text(encoding="utf-8")
    assert "<!-- recipe:begin -->" in text and "<!-- recipe:end -->" in text
