"""Decontamination (pure): loaders, normalization, the information rule, the line and page rules.

Benchmark items are planted into real pages from the shared data; the pages
must lose exactly the planted lines.  An independent, deliberately plain
check (written here, not reusing the index code) confirms that no benchmark
text survives: no 10-gram of a benchmark text that carries information by the
rule (a gram unique to one benchmark question, in a matched span of at least
``min_span`` tokens and ``min_words`` words) is left in a cleaned page.  The check is stricter
than the product's question rule (a stock sentence of a question is not evidence, tested on its
own): every planted text is evidence by both.
"""
from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from corpus_pipeline import decontam as D
from corpus_pipeline.config import DecontamConfig
from corpus_pipeline.errors import InputFileError
import reference

SUBSET = ["gsm8k/test.jsonl", "cmath/test.jsonl", "mgsm/mgsm_zh.jsonl", "mmlu_stem/test.jsonl",
          "math/test.jsonl.gz", "agieval/aqua-rat.jsonl", "extra/svamp_test.jsonl"]


# ---------------------------------------------------------------- the independent check
def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x3134F)


def plain_words(text: str) -> list[str]:
    """Lower case; letters and digits form words; anything else separates; one word per CJK character."""
    words, cur = [], ""
    for ch in text.lower():
        if _is_cjk(ch):
            if cur:
                words.append(cur)
                cur = ""
            words.append(ch)
        elif ch.isalnum():
            cur += ch
        else:
            if cur:
                words.append(cur)
            cur = ""
    if cur:
        words.append(cur)
    return words


def raw_benchmark_strings(bench_dir: Path):
    """Every string value of every record of every .jsonl(.gz) file (GSM8K notes also without <<...>>)."""
    def walk(v):
        if isinstance(v, str):
            yield v
            if "<<" in v:
                yield re.sub(r"<<.*?>>", "", v)
        elif isinstance(v, dict):
            for x in v.values():
                yield from walk(x)
        elif isinstance(v, list):
            for x in v:
                yield from walk(x)

    for f in sorted(bench_dir.rglob("*.jsonl*")):
        opener = gzip.open if f.name.endswith(".gz") else open
        with opener(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield from walk(json.loads(line))


def surviving_10grams(texts: list[str], bench_dir: Path) -> set:
    """The 10-grams of ``texts`` that also occur in some benchmark string."""
    page_grams = set()
    for t in texts:
        w = plain_words(t)
        page_grams.update(tuple(w[i:i + 10]) for i in range(len(w) - 9))
    found = set()
    for s in raw_benchmark_strings(bench_dir):
        w = plain_words(s)
        for i in range(len(w) - 9):
            g = tuple(w[i:i + 10])
            if g in page_grams:
                found.add(g)
    return found


def plain_is_word(w: str, command: bool = False) -> bool:
    """Carries text: a CJK character, or two or more letters that are not TeX/formula notation."""
    if command:
        return False
    if len(w) == 1:
        return _is_cjk(w)
    return w.isalpha() and w not in D.NOTATION


def plain_tokens_with_commands(text: str) -> list[tuple[str, bool]]:
    """``plain_words`` plus, per word, whether a backslash wrote it (a TeX command)."""
    out, cur, cmd, prev = [], "", False, ""
    for ch in text.lower() + " ":
        if _is_cjk(ch):
            if cur:
                out.append((cur, cmd))
            cur, cmd = "", False
            out.append((ch, False))
        elif ch.isalnum():
            if not cur:
                cmd = prev == "\\"
            cur += ch
        else:
            if cur:
                out.append((cur, cmd))
            cur, cmd = "", False
        prev = ch
    return out


def informative_survivors(texts: list[str], bench_dir: Path, min_span: int, min_words: int) -> set:
    """Benchmark 10-grams left in ``texts`` that the rule calls evidence: grams found in one benchmark
    record only (a gram in several records is common), forming on a page a run of overlapping matches
    of one record at least ``min_span`` tokens long that holds at least ``min_words`` words."""
    records = []                                   # per record: its set of 10-grams
    for s in raw_benchmark_strings(bench_dir):
        w = plain_words(s)
        records.append({tuple(w[i:i + 10]) for i in range(len(w) - 9)})
    owners: dict = {}
    for k, grams in enumerate(records):
        for g in grams:
            owners.setdefault(g, set()).add(k)
    bad = set()
    for t in texts:
        tw = plain_tokens_with_commands(t)
        w = [x for x, _ in tw]
        hits: dict = {}                             # record -> positions of its grams on the page
        for i in range(len(w) - 9):
            own = owners.get(tuple(w[i:i + 10]))
            if own and len(own) == 1:
                hits.setdefault(next(iter(own)), []).append(i)
        for _k, pos in hits.items():
            start = prev = pos[0]
            for p in pos[1:] + [None]:
                if p is not None and p <= prev + 10:
                    prev = p
                    continue
                a, b = start, prev + 10
                words = sum(plain_is_word(x, c) for x, c in tw[a:b])
                if b - a >= min_span and words >= min_words:
                    bad.add(" ".join(w[a:b]))
                if p is not None:
                    start = prev = p
    return bad


def has_short_question(text: str, questions: list[list[str]]) -> bool:
    w = " " + " ".join(plain_words(text)) + " "
    return any((" " + " ".join(q) + " ") in w for q in questions)


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def bench_dir(shared_data, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("benchmarks")
    for rel in SUBSET:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel.startswith("math/"):  # the first 800 MATH items keep the test quick
            with gzip.open(shared_data / "benchmarks" / rel, "rt", encoding="utf-8") as src, \
                    gzip.open(d / rel, "wt", encoding="utf-8") as dst:
                for i, line in enumerate(src):
                    if i < 800:
                        dst.write(line)
        else:
            shutil.copy(shared_data / "benchmarks" / rel, d / rel)
    (d / "mystery").mkdir()
    (d / "mystery" / "test.jsonl").write_text('{"question": "not a benchmark we know"}\n')
    (d / "extra" / "notes.csv").write_text("a,b\n")
    (d / "extra" / "LICENSE.txt").write_text("licence text\n")
    return d


@pytest.fixture(scope="module")
def cfg() -> DecontamConfig:
    return DecontamConfig()


@pytest.fixture(scope="module")
def loaded(bench_dir, cfg):
    return D.load_benchmarks(bench_dir, cfg)


@pytest.fixture(scope="module")
def index(loaded, cfg):
    return D.build_index(loaded, cfg)


def _records(path: Path) -> list[dict]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(x) for x in fh if x.strip()]


@pytest.fixture(scope="module")
def short_questions(bench_dir) -> list[list[str]]:
    """Short (3-9 words) question texts of the subset, by the plain normalization."""
    out = []
    for rel in SUBSET:
        for r in _records(bench_dir / rel):
            q = r.get("question") or r.get("problem") or (r.get("messages") or [{}])[0].get("content") or ""
            if rel.startswith("extra/svamp"):
                q = r["Body"] + " " + r["Question"]
            w = plain_words(q)
            if 3 <= len(w) < 10:
                out.append(w)
    return out


@pytest.fixture(scope="module")
def hosts(shared_data, bench_dir, short_questions) -> list[dict]:
    """Real pages (English news, Common Crawl text, Chinese and English non-maths docs) with no benchmark text."""
    pages = []
    for line in (shared_data / "text/negatives_general/article_extraction_benchmark_articles.jsonl").open():
        r = json.loads(line)
        pages.append({"page_id": "news-" + str(len(pages)), "url": r["url"], "text": r["text"]})
    for f in sorted((shared_data / "text/dolma_cc_en_head").glob("cc_en_head-*.jsonl.gz")):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                pages.append({"page_id": "cc-" + str(len(pages)), "url": r.get("id"), "text": r["text"]})
    for line in (shared_data / "text/seed_sources/nonmath_docs.jsonl").open():
        r = json.loads(line)
        pages.append({"page_id": f"doc-{r.get('lang')}-{len(pages)}", "url": r["url"], "text": r["text"]})
    pages = [p for p in pages if p["text"] and 600 < len(p["text"]) < 60_000 and p["text"].count("\n") >= 4]
    zh_docs = [p for p in pages if p["page_id"].startswith("doc-zh")][:8]
    pages = [p for p in pages if p["page_id"].startswith("news")][:20] + \
        [p for p in pages if p["page_id"].startswith("cc")][:8] + \
        [p for p in pages if p["page_id"].startswith("doc-en")][:8] + zh_docs
    dirty = surviving_10grams([p["text"] for p in pages], bench_dir)
    clean = []
    for p in pages:
        w = plain_words(p["text"])
        grams = {tuple(w[i:i + 10]) for i in range(len(w) - 9)}
        if not (grams & dirty) and not has_short_question(p["text"], short_questions):
            clean.append(p)
    zh = [p for p in clean if p["page_id"].startswith("doc-zh")]
    en = [p for p in clean if not p["page_id"].startswith("doc-zh")]
    assert len(en) >= 20 and len(zh) >= 3, (len(en), len(zh))
    return en[:20] + zh[:4]


# ---------------------------------------------------------------- planting
def _wrap(text: str, words_per_line: int) -> list[str]:
    w = text.split()
    return [" ".join(w[i:i + words_per_line]) for i in range(0, len(w), words_per_line)]


def _shout(text: str) -> str:
    """Different case and punctuation: upper case, punctuation swapped, doubled spaces."""
    t = text.upper().replace(",", " ;").replace(".", " !").replace("?", "??")
    return re.sub(r" ", "  ", t)


def _plant(host: dict, planted_lines: list[str], at_fraction: float = 0.5) -> tuple[dict, list[int]]:
    lines = host["text"].split("\n")
    at = max(1, int(len(lines) * at_fraction))
    new = lines[:at] + planted_lines + lines[at:]
    return dict(host, text="\n".join(new)), list(range(at, at + len(planted_lines)))


@pytest.fixture(scope="module")
def planted(bench_dir, hosts):
    """(page, indexes of the planted lines, benchmark) for every kind of planting."""
    gsm = _records(bench_dir / "gsm8k/test.jsonl")
    math = _records(bench_dir / "math/test.jsonl.gz")
    cmath = _records(bench_dir / "cmath/test.jsonl")
    mgsm = _records(bench_dir / "mgsm/mgsm_zh.jsonl")
    svamp = _records(bench_dir / "extra/svamp_test.jsonl")
    aqua = _records(bench_dir / "agieval/aqua-rat.jsonl")
    en = [h for h in hosts if not h["page_id"].startswith("doc-zh")]
    zh = [h for h in hosts if h["page_id"].startswith("doc-zh")]
    long_cmath = next(r for r in cmath if len(plain_words(r["question"])) >= 25)
    plants = [
        # whole GSM8K question on one line
        (en[0], [gsm[5]["question"]], "gsm8k"),
        # reformatted (case, punctuation) and hard-wrapped over several lines
        (en[1], _wrap(_shout(gsm[17]["question"]), 7), "gsm8k"),
        # GSM8K solution as readers see it (calculator notes gone), inside a sentence
        (en[2], ["Solution: " + re.sub(r"<<.*?>>", "", gsm[40]["cot"]).replace("\n", " ") + " (from a forum)"],
         "gsm8k"),
        # partial MATH solution: 12 words taken from the middle, inside other words
        (en[3], ["as someone wrote, " + " ".join(math[3]["solution"].split()[5:17]) + " which I liked"], "math"),
        # partial wrapped so that neither line alone holds 10 words of it
        (en[4], _wrap(" ".join(math[11]["problem"].split()[:12]), 6), "math"),
        # SVAMP: body + question (two fields of the extra/ format)
        (en[5], [svamp[3]["Body"], svamp[3]["Question"]], "svamp"),
        # AGIEval aqua-rat solution (other.solution), lower-cased
        (en[6], [aqua[2]["other"]["solution"].lower().replace("\n", " ")], "agieval/aqua-rat"),
        # Chinese: CMATH whole question with ASCII punctuation instead of full-width
        (zh[0], [long_cmath["question"].replace("，", ",").replace("？", "?")], "cmath"),
        # Chinese: MGSM partial (15 characters) hard-wrapped over two lines
        (zh[1], [mgsm[9]["messages"][0]["content"][:8], mgsm[9]["messages"][0]["content"][8:16]], "mgsm/zh"),
    ]
    out = []
    for i, (host, lines, bench) in enumerate(plants):
        page, idx = _plant(host, lines, at_fraction=0.3 + 0.05 * i)
        page["page_id"] = f"planted-{i}"
        out.append((page, host, idx, bench))
    return out


# ---------------------------------------------------------------- normalization
def test_tokens_follow_the_rule():
    """Tokens: letters and digits, one per CJK character; words: the tokens that carry text."""
    assert D.tokens("x+y=2") == ["x", "y", "2"]
    assert D.tokens("Janet’s DUCKS, lay 16 eggs!") == ["janet", "s", "ducks", "lay", "16", "eggs"]
    assert D.tokens("妈咪买了3盒") == ["妈", "咪", "买", "了", "3", "盒"]
    assert D.tokens("a_b\\frac{1}{2}") == ["a", "b", "frac", "1", "2"]
    # NFKC folding of full-width forms only ever adds matches
    assert D.tokens("ＡＢＣ１２") == ["abc12"]
    for s in ["x+y=2", "Janet’s DUCKS, lay 16 eggs!", "妈咪买了3盒茶叶，一盒", "naïve café 12.5%"]:
        assert D.tokens(s) == plain_words(s)
    # numbers, single letters and notation are not words; a TeX command is notation by its backslash
    assert [t for t in D.tokens("If f(n) = 12x and cos y, then 妈") if D.is_word(t)] == ["if", "and", "then", "妈"]
    assert not D.is_word("frac") and not D.is_word("sqrt") and D.is_word("fraction")
    pt = D._page_tokens("\\left( x \\right) left right \\div")
    assert pt.toks == ["x", "left", "right", "div"]     # \left and \right are TeX sizing: dropped
    assert int(pt.words[-1]) == 2                     # only the two without a backslash
    # the benchmark side tells notation from words the same way (\div was a word in the index)
    assert [D.is_word(t) for t in D.raw_tokens("x \\div 7 \\times y div")] == [False, False, False, False,
                                                                              False, True]


def test_gram_hashes_depend_on_order_and_content():
    a = D.token_hashes(D.tokens("one two three four five six seven eight nine ten eleven"))
    b = D.token_hashes(D.tokens("UNO two three four five six seven eight nine ten eleven"))
    c = D.token_hashes(D.tokens("two one three four five six seven eight nine ten"))
    ga, gb, gc = D.gram_hashes(a, [10])[10], D.gram_hashes(b, [10])[10], D.gram_hashes(c, [10])[10]
    assert len(ga) == 2 and ga[1] == gb[1] and ga[0] != gb[0] and gc[0] != ga[0]
    g3 = D.gram_hashes(a, [3, 10])
    assert len(g3[3]) == 9 and len(set(g3[3].tolist())) == 9


# ---------------------------------------------------------------- loaders
def test_every_file_of_the_shared_benchmarks_loads(shared_data):
    root = shared_data / "benchmarks"
    bm = D.load_benchmarks(root, DecontamConfig())
    assert bm.skipped == []
    names = set(bm.names())
    for expected in ["gsm8k", "math", "cmath", "agieval/math", "agieval/gaokao-mathqa", "mgsm/zh", "mmlu_stem",
                     "ocw", "sat", "minif2f", "aime24", "svamp", "asdiv", "mawps", "carp_en", "olympiadbench",
                     "cmath_dev600", "college_math"]:
        assert expected in names, expected
    # non-maths AGIEval tasks are recognised but used only when named exactly
    assert "agieval/logiqa-en" not in names and "agieval/jec-qa-kd" not in names
    assert "agieval/logiqa-en.jsonl" in bm.unselected
    assert D.load_benchmarks(root, DecontamConfig(benchmarks=["agieval/logiqa-en"])).names() == ["agieval/logiqa-en"]
    assert "agieval/logiqa-en" not in D.load_benchmarks(root, DecontamConfig(benchmarks=["agieval"])).names()
    n_lines = sum(1 for f in bm.files for _ in _records(root / f.path))
    assert len(bm.items) == n_lines
    assert all(it.question.strip() for it in bm.items)
    by = {}
    for it in bm.items:
        by.setdefault(it.benchmark, []).append(it)
    assert not any("<<" in t for it in by["gsm8k"] for t in it.texts)
    assert len(by["gsm8k"][0].texts) == 2  # question and the chain of thought
    assert by["math"][0].item_id.startswith("test/")
    assert by["mgsm/zh"][0].question == _records(root / "mgsm/mgsm_zh.jsonl")[0]["messages"][0]["content"]
    sv = _records(root / "extra/svamp_test.jsonl")[0]
    assert sv["Body"] in by["svamp"][0].question and sv["Question"] in by["svamp"][0].question
    ag = _records(root / "agieval/sat-math.jsonl")[0]
    assert by["agieval/sat-math"][0].question.startswith(ag["passage"].strip()[:30])
    ol = _records(root / "extra/olympiadbench_test.jsonl")[0]
    assert any(ol["solution"][0].strip() in t for t in by["olympiadbench"][0].texts)
    asd = _records(root / "extra/asdiv_test.jsonl")[0]
    assert by["asdiv"][0].question.startswith(asd["body"])


def test_unknown_files_are_listed_and_skipped(loaded):
    assert loaded.skipped == ["extra/notes.csv", "mystery/test.jsonl"]
    assert "mystery" not in {it.benchmark for it in loaded.items}


def test_benchmark_selection(bench_dir):
    only = D.load_benchmarks(bench_dir, DecontamConfig(benchmarks=["gsm8k", "mgsm"]))
    assert only.names() == ["gsm8k", "mgsm/zh"]
    assert D.load_benchmarks(bench_dir, DecontamConfig(benchmarks=["extra"])).names() == ["svamp"]
    with pytest.raises(InputFileError, match="nonexistent"):
        D.load_benchmarks(bench_dir, DecontamConfig(benchmarks=["nonexistent"]))


@pytest.mark.parametrize("bad,needle", [
    ('{"question": "broken json", \n', "not valid JSON"),
    ('{"answer": "18"}\n', "no question text"),
    ('["a list"]\n', "JSON object"),
])
def test_malformed_line_names_file_and_line(shared_data, tmp_path, bad, needle):
    d = tmp_path / "b"
    (d / "gsm8k").mkdir(parents=True)
    lines = (shared_data / "benchmarks/gsm8k/test.jsonl").read_text(encoding="utf-8").splitlines(True)[:10]
    lines[6] = bad
    (d / "gsm8k/test.jsonl").write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputFileError) as e:
        D.load_benchmarks(d, DecontamConfig())
    assert "gsm8k/test.jsonl:7" in str(e.value) and needle in str(e.value)
    assert e.value.line == 7


def test_malformed_line_in_gzip_file(tmp_path):
    d = tmp_path / "b"
    (d / "math").mkdir(parents=True)
    with gzip.open(d / "math/test.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"problem": "p", "solution": "s", "unique_id": "test/a/1.json"}) + "\n")
        fh.write("{oops\n")
    with pytest.raises(InputFileError, match=r"test\.jsonl\.gz:2"):
        D.load_benchmarks(d, DecontamConfig())


def test_missing_or_empty_benchmark_dir(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        D.load_benchmarks(tmp_path / "nope", DecontamConfig())
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "x.csv").write_text("1\n")
    with pytest.raises(InputFileError, match="no known benchmark"):
        D.load_benchmarks(tmp_path / "empty", DecontamConfig())


# ---------------------------------------------------------------- the rules
def test_clean_pages_are_untouched(hosts, index, cfg):
    for h in hosts:
        r = D.decontaminate_text(h["text"], index, cfg)
        assert r.text == h["text"] and not r.removed and r.rows == [], h["page_id"]


def test_planted_pages_lose_exactly_the_planted_lines(planted, index, cfg):
    for page, host, idx, bench in planted:
        r = D.decontaminate_text(page["text"], index, cfg)
        assert not r.removed, page["page_id"]
        assert r.removed_lines == idx, (page["page_id"], bench)
        assert r.text == host["text"], page["page_id"]
        assert r.lines_removed == len(idx)
        assert bench in {row[0] for row in r.rows}, (page["page_id"], r.rows)
        assert all(row[2] == D.SEGMENT_REMOVED and row[3] == D.R_NGRAM for row in r.rows)


def test_independent_check_no_benchmark_text_survives(planted, hosts, index, cfg, bench_dir):
    pages = [p for p, *_ in planted] + hosts
    before = informative_survivors([p["text"] for p in pages], bench_dir, cfg.min_span, 4)
    assert len(before) >= len(planted), "the planted pages must hold benchmark text (or the check proves nothing)"
    out, rows, counts = reference.decontaminate_pages(pages, index, cfg)
    assert informative_survivors([p["text"] for p in out], bench_dir, cfg.min_span, 4) == set()
    assert counts["pages_in"] == len(pages) and counts["pages_removed"] == 0
    assert counts["pages_cleaned"] == len(planted)
    assert counts["segments_removed"] == sum(len(idx) for _p, _h, idx, _b in planted)
    assert counts["by_benchmark"]["gsm8k"]["segment_removed"] == 3
    assert counts["by_benchmark"]["cmath"]["segment_removed"] == 1
    json.dumps(counts)


def test_short_question_removes_the_page_unless_excluded(hosts, loaded, index, cfg, bench_dir):
    mmlu = _records(bench_dir / "mmlu_stem/test.jsonl")
    # a short question that carries text (>= short_min_words words) and is no other question's part
    short = {k for L, (_h, its) in index.short.items() if L < cfg.ngram for k in its.tolist()}
    usable = {index.item_ids[k] for k in short if index.benchmarks[index.item_benchmark[k]] == "mmlu_stem"}
    q = next(r for r in mmlu if 5 <= len(plain_words(r["question"])) < 10 and str(r["id"]) in usable)
    page, _ = _plant(hosts[7], ["We asked: " + q["question"].upper() + " -- nobody knew."])
    page["page_id"] = "short-1"
    r = D.decontaminate_text(page["text"], index, cfg)
    assert r.removed and r.text is None
    assert ("mmlu_stem", str(q["id"]), D.PAGE_REMOVED, D.R_SHORT) in [row[:4] for row in r.rows]
    out, rows, counts = reference.decontaminate_pages([page, hosts[8]], index, cfg)
    assert [p["page_id"] for p in out] == [hosts[8]["page_id"]]
    assert counts["pages_removed"] == 1 and counts["by_rule"][D.R_SHORT] == 1
    assert counts["by_benchmark"]["mmlu_stem"] == {D.PAGE_REMOVED: 1}
    assert counts["by_benchmark_rule"]["mmlu_stem"] == {D.R_SHORT: 1}
    # the same question split by a line break is still contained in the page's gram stream
    split = q["question"].split()
    page2, _ = _plant(hosts[9], [" ".join(split[:2]), " ".join(split[2:])])
    assert D.decontaminate_text(page2["text"], index, cfg).removed
    # a question that is only a prefix of the page's words is still a match; a page missing a word is not
    page3, _ = _plant(hosts[9], [" ".join(split[:-1])])
    assert not D.decontaminate_text(page3["text"], index, cfg).removed
    # with its options: the bare stem is not a match any more
    cfg_opt = DecontamConfig(short_include_options=True)
    idx_opt = D.build_index(loaded, cfg_opt)
    assert not D.decontaminate_text(page["text"], idx_opt, cfg_opt).removed
    # left out of the short rule: nothing happens (the question is under 10 grams)
    cfg_ex = DecontamConfig(exclude_short=["mmlu_stem"])
    idx_ex = D.build_index(loaded, cfg_ex)
    r2 = D.decontaminate_text(page["text"], idx_ex, cfg_ex)
    assert not r2.removed and r2.text == page["text"] and r2.rows == []


def test_stock_sentence_of_a_question_is_not_evidence(tmp_path):
    """The question rule: a span found only in a question's text is the benchmark's text when the
    page holds most of the question (other numbers allowed), or the span is long, or its words are
    not the benchmarks' stock phrasing; a template sentence on a page that asks another question is
    not contamination (the development crawl's problem site: MATH train pages beside MATH test)."""
    items = [
        ("Find the number of ordered pairs $(a,b)$ of integers such that $|a + bi| \\le 5.$", "target"),
        ("Find the number of ordered pairs $(x,y)$ of real numbers such that $x^2 + y^2 = 1$ and $x + y = 1.$", "r"),
        ("Find the number of ordered pairs $(m,n)$ of positive integers such that $mn = 12.$", "p"),
        ("Compute the number of ordered pairs $(p,q)$ of integers such that $p^2 = q + 3$ and $|p| < 4.$", "c"),
        ("In 1960, there were 450,000 cases of measles reported in the U.S. In 1996, there were 500 cases "
         "reported. How many cases of measles would have been reported in 1987 if the number of cases "
         "reported from 1960 to 1996 decreased linearly?", "measles"),
    ]
    (tmp_path / "math").mkdir()
    (tmp_path / "math" / "test.jsonl").write_text("".join(
        json.dumps({"problem": q, "solution": "The answer is $42$.", "unique_id": uid}) + "\n" for q, uid in items))
    cfg = DecontamConfig()
    index = D.build_index(D.load_benchmarks(tmp_path, cfg), cfg)
    host = "Notes from the problem archive.\n" + "Every problem below was solved by a reader. " * 4 + "\n"

    def rows(text, c=cfg):
        return [(row[1], row[2]) for row in D.decontaminate_text(host + text + "\n" + host, index, c).rows]

    # the target's stock opening on a page that asks another question: the page holds 13 of its 16
    # coverage tokens (under 85%), 10 words (under 14), 7 of them stock phrasing (40% or more)
    other = "Let $\\omega$ be a nonreal root of $z^3 = 1.$ Find the number of ordered pairs $(a,b)$ of " \
            "integers such that $|a \\omega + b| = 1.$"
    assert rows(other) == []
    assert D.stock_share(D.tokens("find the number of ordered pairs a b of integers such that a"), index.stock) >= 0.4
    # ... which the specificity measure refuses on its own (its 4-grams are in 3 or more questions), and
    # which the 10-gram span rule alone (no question rule, no specificity test) calls contamination
    assert rows(other, DecontamConfig(min_coverage=0)) == []
    assert rows(other, DecontamConfig(min_coverage=0, min_specific=0)) == [("target", D.SEGMENT_REMOVED)]
    # the target restated with another number covers it: removed
    assert rows("Find the number of ordered pairs $(a,b)$ of integers such that $|a + bi| \\le 7.$") == \
        [("target", D.SEGMENT_REMOVED)]
    # a specific sentence of a question (few stock words) is evidence although short ...
    specific = "In 1960, there were 450,000 cases of measles reported in the U.S. Since then, fewer."
    assert rows(specific) == [("measles", D.SEGMENT_REMOVED)]
    assert rows(specific, DecontamConfig(max_stock=0)) == []          # 9 words, a small share of the question
    # ... and so is a long passage (14 words or more) of one, whatever its share of stock phrasing
    long_part = "How many cases of measles would have been reported in 1987 if the number of cases reported"
    assert len([t for t in D.tokens(long_part) if D.is_word(t)]) >= cfg.long_words
    assert rows(long_part + " last year?") == [("measles", D.SEGMENT_REMOVED)]
    assert rows(long_part + " last year?", DecontamConfig(long_words=0, max_stock=0)) == []  # a small share


def test_copies_of_one_item_count_once_for_commonness(tmp_path):
    """An item held twice (here: once more with a "Show that" suffix, as miniF2F copies MATH) is one
    text: the grams only its copies share are neither common nor generic, so its solution pasted into
    a page is removed; counted per question (decontam.copy_share = 0) they were common and the copy
    kept.  A template sibling with other numbers shares less than copy_share: not merged."""
    q = "Evaluate $\\log_{3}{81}-\\log_{3}{\\frac{1}{9}}$ and write the result as an integer."
    sol = ("We have \\[\\log_{3}{81}-\\log_{3}{\\frac{1}{9}} = \\log_{3}{3^4}-\\log_{3}{3^{-2}} = "
           "4-(-2) = \\boxed{6}.\\]")
    sib_q = "Evaluate $\\log_{5}{625}-\\log_{5}{\\frac{1}{25}}$ and write the result as an integer."
    sib_sol = ("We have \\[\\log_{5}{625}-\\log_{5}{\\frac{1}{25}} = \\log_{5}{5^4}-\\log_{5}{5^{-2}} = "
               "4-(-2) = \\boxed{6}.\\]")
    items = [(q, sol, "target"), (q + " Show that it is 6.", sol, "copy"), (sib_q, sib_sol, "sibling")]
    (tmp_path / "math").mkdir()
    (tmp_path / "math" / "test.jsonl").write_text("".join(
        json.dumps({"problem": a, "solution": b, "unique_id": u}) + "\n" for a, b, u in items))
    host = "Notes from a course on logarithms.\n" + "Every exercise below was solved in class. " * 4 + "\n"
    page = host + sol + "\n" + host

    def removed(cfg):
        index = D.build_index(D.load_benchmarks(tmp_path, cfg), cfg)
        r = D.decontaminate_text(page, index, cfg)
        return index, {row[1] for row in r.rows}

    index, got = removed(DecontamConfig())
    assert got & {"target", "copy"} and "sibling" not in got
    assert index.stats["copies_merged"] == 1          # the copy joins the target; the sibling stays apart
    _, per_question = removed(DecontamConfig(copy_share=0))
    assert per_question == set()


def test_a_long_run_of_one_item_is_evidence_however_generic_its_notation(tmp_path):
    """A solution that is a chain of trigonometric notation (no informative token: every 4-gram generic
    by the specificity measure) pasted whole is removed by its length (decontam.long_span: 40 tokens
    of one item, not predictable); an identity of 22 tokens that an item also holds is not."""
    chain = ("\\[ \\frac{\\sin x}{\\cos x} + \\frac{\\cos x}{1 + \\sin x} &= "
             "\\frac{\\sin x}{\\cos x} + \\frac{\\cos x (1 - \\sin x)}{(1 + \\sin x)(1 - \\sin x)} \\\\ &= "
             "\\frac{\\sin x}{\\cos x} + \\frac{\\cos x (1 - \\sin x)}{1 - \\sin^2 x} \\]")
    identity = "$\\sin(x+y) = \\sin x \\cos y + \\cos x \\sin y$, so $\\sin(x+y) = \\sin x \\cos y + \\cos x \\sin y$."
    items = [("Simplify $\\frac{\\sin x}{\\cos x} + \\frac{\\cos x}{1 + \\sin x}.$", chain, "chain"),
             ("Find $\\sin 75^\\circ$ from the angle sum.", identity + " Then $\\sin 75^\\circ = 0.966$.", "sum")]
    (tmp_path / "math").mkdir()
    (tmp_path / "math" / "test.jsonl").write_text("".join(
        json.dumps({"problem": a, "solution": b, "unique_id": u}) + "\n" for a, b, u in items))
    cfg = DecontamConfig()
    index = D.build_index(D.load_benchmarks(tmp_path, cfg), cfg)
    host = "Notes from a course on trigonometry.\n" + "Every identity below was derived in class. " * 4 + "\n"
    toks = D.tokens(chain)
    assert len(toks) >= cfg.long_span and D.specificity(toks, D.token_hashes(toks), index.generic) < cfg.min_specific

    def rows(text, c=cfg):
        return [row[1] for row in D.decontaminate_text(host + text + "\n" + host, index, c).rows]

    assert rows(chain) == ["chain"]
    assert rows(chain, DecontamConfig(long_span=0)) == []
    assert rows(identity) == []


def test_question_copied_without_its_figure_code_is_removed(tmp_path):
    """A page that copies a question's text and shows its figure as a picture (no [asy] code) holds the
    question: coverage is counted without the figure code too. The question is a 13-word span of stock
    phrasing ("in the diagram", "what is the value of", "has a right angle at" open other questions), so
    only coverage can decide; counted with its figure code the page holds under a quarter of it."""
    figure = ("[asy]\nsize(150);\ndraw((0,0)--(10,0)--(10,6)--cycle);\nlabel(\"$P$\",(0,0),SW);\n"
              "label(\"$Q$\",(10,0),SE);\nlabel(\"$R$\",(10,6),NE);\nlabel(\"$x^\\circ$\",(1.5,0.4));\n"
              "label(\"$52^\\circ$\",(9.2,5),W);\ndraw((9.5,0)--(9.5,0.5)--(10,0.5));\n[/asy]")
    copied = "In the diagram, $PQR$ has a right angle at $Q$. What is the value of $x$?"
    items = [(copied + "\n" + figure, "target"),
             ("If $3x+7=22$, what is the value of $x$?", "a1"),
             ("Given that $y=2$ and $z=5$, what is the value of $y^z$?", "a2"),
             ("When $n=4$, what is the value of $n^2-1$?", "a3"),
             ("In the diagram, $ABCD$ is a square. What is the area of $ABCD$?", "g2"),
             ("In the diagram, $O$ is the centre of the circle. What is the area of the shaded region?", "g3"),
             ("In the diagram, $AB$ is a line segment. What is the area of triangle $ABC$?", "g4"),
             ("Triangle $XYZ$ has a right angle at $Y$ and the angle at $Z$ is $30^\\circ$. Find $XZ$.", "g5"),
             ("Triangle $DEF$ has a right angle at $E$ and the angle at $F$ is $45^\\circ$. Find $DF$.", "g6")]
    (tmp_path / "math").mkdir()
    (tmp_path / "math" / "test.jsonl").write_text("".join(
        json.dumps({"problem": q, "solution": "The answer is $42$.", "unique_id": uid}) + "\n" for q, uid in items))
    cfg = DecontamConfig()
    index = D.build_index(D.load_benchmarks(tmp_path, cfg), cfg)
    toks = D.tokens(copied)
    assert sum(map(D.is_word, toks)) < cfg.long_words and D.stock_share(toks, index.stock) >= cfg.max_stock
    assert D.coverage(D.cover_tokens(items[0][0]), D.cover_tokens(copied)) < cfg.min_coverage
    host = "Notes from the problem archive.\n" + "Every problem below was solved by a reader. " * 4 + "\n"
    for page in (copied, copied + "\n" + figure):                                    # without its figure, and with it
        r = D.decontaminate_text(host + page + "\n" + host, index, cfg)
        assert [(row[1], row[2]) for row in r.rows] == [("target", D.SEGMENT_REMOVED)], page
        assert "right angle at" not in r.text


def test_page_too_short_after_cleaning_is_removed(bench_dir, index, cfg):
    gsm = _records(bench_dir / "gsm8k/test.jsonl")
    text = "Homework help\n" + gsm[3]["question"] + "\nThanks!"
    r = D.decontaminate_text(text, index, cfg)
    assert r.removed and r.text is None
    assert [row[:4] for row in r.rows] == [("gsm8k", gsm[3]["id"], D.PAGE_REMOVED, D.R_TOO_SHORT)]
    assert r.rows[0][5] == gsm[3]["question"]           # the removed text: the question
    _out, _rows, counts = reference.decontaminate_pages([{"page_id": "p", "text": text}], index, cfg)
    assert counts["by_rule"][D.R_TOO_SHORT] == 1 and counts["pages_out"] == 0
    # a short page without benchmark text is kept as it is
    assert D.decontaminate_text("Thanks!", index, cfg).text == "Thanks!"


def test_empty_and_missing_text(index, cfg):
    assert D.decontaminate_text("", index, cfg).text == ""
    assert D.decontaminate_text(None, index, cfg).text is None
    out, rows, counts = reference.decontaminate_pages([{"page_id": "a", "text": None}], index, cfg)
    assert len(out) == 1 and rows == [] and counts["pages_out"] == 1


# ---------------------------------------------------------------- fetch-benchmarks (no network)
def test_fetch_sources_land_where_the_loaders_look():
    from corpus_pipeline.commands import fetch_benchmarks as FB

    srcs = FB.sources()
    dests = [d for _g, _u, d in srcs]
    assert len(dests) == len(set(dests))
    ids = [D.identify(d) for d in dests]
    assert all(i is not None for i in ids), [d for d, i in zip(dests, ids) if i is None]
    families = {i[0].split("/")[0] for i in ids}
    assert {"gsm8k", "math", "cmath", "agieval", "mgsm", "mmlu_stem", "ocw", "sat", "minif2f"} <= families
    assert all(u.startswith("https://") for _g, u, _d in srcs)


def test_fetch_dry_run_prints_the_plan(capsys, tmp_path):
    from corpus_pipeline.cli import main

    assert main(["fetch-benchmarks", "--out", str(tmp_path / "b"), "--only", "gsm8k", "--only", "agieval",
                 "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "grade-school-math" in out and "agieval/aqua-rat.jsonl" in out and "mmlu_stem" not in out
    assert not (tmp_path / "b").exists()
    assert main(["fetch-benchmarks", "--out", str(tmp_path / "b"), "--only", "nope", "--dry-run"]) == 2


# ---------------------------------------------------------------- evidence and flag mode
def test_every_removal_carries_its_evidence_and_removed_text(planted, index, cfg):
    for page, _host, idx, bench in planted:
        r = D.decontaminate_text(page["text"], index, cfg)
        lines = page["text"].split("\n")
        planted_text = "\n".join(lines[i] for i in idx)
        for b, _item, _action, _reason, evidence, removed in r.rows:
            assert removed and removed in planted_text, (page["page_id"], removed)
            # the evidence is the page's own tokens, and they are in the planted lines
            assert evidence and all(span in " ".join(D.tokens(planted_text)) for span in D.evidence_text(evidence).split(" … "))
        assert any(row[0] == bench and len(row[4].split()) >= cfg.min_span for row in r.rows)


def test_flag_mode_keeps_every_page_and_line_and_writes_the_same_rows(planted, hosts, index, loaded, bench_dir):
    remove, flag = DecontamConfig(), DecontamConfig(mode="flag")
    gsm = _records(bench_dir / "gsm8k/test.jsonl")
    short_page = {"page_id": "too-short", "text": "Homework help\n" + gsm[3]["question"] + "\nThanks!"}
    pages = [p for p, *_ in planted] + hosts + [short_page]
    out_r, rows_r, c_r = reference.decontaminate_pages(pages, index, remove)
    out_f, rows_f, c_f = reference.decontaminate_pages(pages, index, flag)
    assert [p["text"] for p in out_f] == [p["text"] for p in pages]           # nothing removed
    assert c_f["pages_removed"] == 0 and c_f["segments_removed"] == 0 and c_f["pages_out"] == len(pages)
    assert c_f["pages_flagged"] == c_r["pages_cleaned"] + c_r["pages_removed"] > 0
    assert c_f["segments_flagged"] == c_r["segments_removed"]
    to_flag = {D.SEGMENT_REMOVED: D.SEGMENT_FLAGGED, D.PAGE_REMOVED: D.PAGE_FLAGGED}
    assert rows_f == [r[:3] + (to_flag[r[3]],) + r[4:] for r in rows_r]


def test_retired_keys_name_their_replacement(tmp_path):
    """decontam.min_words and short_min_words (the word count) are refused, naming what replaced them."""
    from corpus_pipeline.config import ConfigError, load_config

    for key, new in (("min_words", "decontam.min_specific"), ("short_min_words", "decontam.short_specific")):
        with pytest.raises(ConfigError) as e:
            load_config(None, [f"decontam.{key}=4"])
        assert f"decontam.{key} is retired" in str(e.value) and new in str(e.value)
        f = tmp_path / f"{key}.toml"
        f.write_text(f"[decontam]\n{key} = 3\n")
        with pytest.raises(ConfigError) as e:
            load_config(f)
        assert new in str(e.value) and str(f) in str(e.value)


def test_contamination_of_the_last_release_is_refused_unless_recomputed():
    """A run folder whose final/contamination the last release's rules found (its marker records
    decontam.min_words and no rules release) is refused naming those settings; with --recompute the
    final stages are stale (rebuilt), and a marker of this release is not."""
    from types import SimpleNamespace

    from corpus_pipeline.config import Config
    from corpus_pipeline.errors import UsageError
    from corpus_pipeline.pipeline import final as F

    cfg = Config()

    def ctx(recompute: bool):
        return SimpleNamespace(cfg=cfg, inputs=SimpleNamespace(benchmarks="/b", recompute=recompute),
                               run=SimpleNamespace(uri="/runs/r1"), last_iteration=2, memo={})

    now = F._record(ctx(False))
    old_section = {k: v for k, v in now["decontam"].items()
                   if k not in ("min_specific", "generic_items", "short_specific", "canaries")}
    old = {"config": {"last_iteration": 2, "benchmarks": "/b",
                      "decontam": dict(old_section, min_words=4, short_min_words=3)}}
    stage = F.Contamination()
    with pytest.raises(UsageError) as e:
        stage.stale(ctx(False), old)
    msg = str(e.value)
    assert "decontam.min_words" in msg and "decontam.short_min_words" in msg and "--recompute" in msg
    assert "final/contamination" in msg and "nothing before them" in msg
    assert stage.stale(ctx(True), old) is True
    assert F.Corpus().stale(ctx(False), old) is True and F.Canaries().stale(ctx(False), old) is True
    assert stage.stale(ctx(False), {"config": json.loads(json.dumps(now))}) is False


def test_the_number_of_canaries_reshapes_only_the_canaries_stage():
    """decontam.canaries is a side computation's size: changing it leaves the contamination rows and the
    corpus committed (their markers do not record it) and redoes the canaries stage alone."""
    import dataclasses
    from types import SimpleNamespace

    from corpus_pipeline.config import Config
    from corpus_pipeline.pipeline import final as F

    def ctx(canaries: int):
        cfg = Config()
        cfg.decontam = dataclasses.replace(cfg.decontam, canaries=canaries)
        return SimpleNamespace(cfg=cfg, inputs=SimpleNamespace(benchmarks="/b", recompute=False),
                               run=SimpleNamespace(uri="/runs/r1"), last_iteration=2, memo={})

    for stage in (F.Contamination(), F.Corpus(), F.Canaries()):
        marker = {"config": json.loads(json.dumps(stage.record(ctx(100))))}
        assert stage.stale(ctx(100), marker) is False
        assert stage.stale(ctx(7), marker) is isinstance(stage, F.Canaries), stage.name
