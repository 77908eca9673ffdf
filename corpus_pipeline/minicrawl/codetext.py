"""Page text for the mini-crawl's code sites (``--code-sites``), assembled at random (pure).

Everything here was written for the generator; no real documents are copied.  Documents have the
shape of :mod:`textgen`'s (``title``, ``blocks``, optional ``answers``), with two more block forms:
``("pre", code, lang)`` (a code block tagged with its language) and, inside a ``("p", [...])``
paragraph, the segment ``("c", text)`` (inline code).  Sentences written with backticks
(```pip install x```) become such inline segments (:func:`_segs`).

Programming pages (label ``code``):

* :func:`code_q`: a Q&A question in Python, JavaScript or Rust: prose, the asker's code, often the
  error it prints, and one to three answers with a fix (most answers carry a code block);
* :func:`code_howto`: a "how do I configure X" question (git, pip, npm, cargo, pytest ...): mostly
  prose; the answer is one command, in a one-line block or inline in a sentence;
* :func:`code_tutorial`: a blog tutorial: prose and several multi-line code blocks, sometimes the
  program's output;
* :func:`code_essay`: a programming article that is mostly prose (inline code, at most one short
  block): the hardest programming pages for a classifier trained on documentation.

Pages that talk about programming without being programming pages (label ``non-code``):
:func:`tech_news` (language releases with their changes in the documentation's words, security
advisories, surveys; now and then one inline command), :func:`dev_jobs` (job posts naming languages
and tools), :func:`prog_book_review` (reviews of programming books) and :func:`gadget_howto`
(computer how-tos for users: settings, cables, backups).
"""
from __future__ import annotations

import re

from .textgen import CITIES, COMPANIES, MONTHS, _cap, _decorate, name

LANG_NAME = {"python": "Python", "javascript": "JavaScript", "rust": "Rust", "shell": "Bash"}
CODE_TAGS = ["python", "javascript", "rust", "node.js", "bash", "git", "pandas", "async-await", "regex",
             "docker", "sql", "typescript", "borrow-checker", "npm", "pytest", "json", "linux", "vscode"]

NOUNS = ["user", "order", "item", "record", "event", "job", "task", "message", "packet", "invoice", "product",
         "ticket", "sensor", "reading", "post", "comment", "token", "session", "book", "song", "station", "player",
         "account", "booking", "photo", "device", "customer", "shipment", "lesson", "review"]
STR_FIELDS = ["name", "email", "status", "title", "country", "owner", "city", "label", "category", "kind",
              "slug", "region", "author", "currency", "language"]
NUM_FIELDS = ["price", "score", "count", "size", "priority", "amount", "age", "total", "weight", "duration",
              "quantity", "rating", "retries", "distance", "balance"]
FILES = ["data", "users", "orders", "input", "events", "config", "report", "items", "export", "records", "sample",
         "inventory", "results", "backup", "feed"]
VERBS = ["load", "parse", "fetch", "build", "count", "merge", "clean", "normalize", "validate", "render",
         "group", "split", "collect", "index", "sync", "export", "summarize", "resolve"]
PY_PKGS = ["requests", "numpy", "pandas", "pyyaml", "python-dotenv", "flask", "django", "matplotlib",
           "beautifulsoup4", "sqlalchemy", "httpx", "pydantic", "rich", "click"]
NPM_PKGS = ["express", "axios", "lodash", "dotenv", "jest", "typescript", "eslint", "nodemon", "zod", "prisma",
            "vite", "date-fns", "commander", "pino"]
CRATES = ["serde", "tokio", "clap", "anyhow", "reqwest", "rand", "regex", "serde_json", "chrono", "thiserror",
          "itertools", "rayon", "tracing", "once_cell"]
BRANCHES = ["main", "develop", "feature/login", "fix/timeout", "release-2.3", "hotfix/cache", "experiment"]
PORTS = [3000, 5000, 5173, 8000, 8080, 8443, 9000]
OSES = ["Ubuntu 22.04", "Windows 11", "macOS Sonoma", "Debian 12", "Fedora 39", "WSL2", "Arch Linux", "macOS Ventura"]
VERSIONS = {"python": ["3.8", "3.9", "3.10", "3.11", "3.12"], "javascript": ["Node 18", "Node 20", "Node 21", "Node 16"],
            "rust": ["1.70", "1.72", "1.74", "1.75", "1.76"], "shell": ["bash 5.1", "bash 5.2", "zsh 5.9"]}


def _ids(r) -> dict:
    noun = r.choice(NOUNS)
    return {"noun": noun, "nouns": noun + "s", "Noun": noun.capitalize(), "sf": r.choice(STR_FIELDS),
            "nf": r.choice(NUM_FIELDS), "file": r.choice(FILES), "n": r.randint(2, 20), "k": r.randint(3, 10),
            "t": r.choice([2, 5, 10, 15, 30]), "port": r.choice(PORTS), "verb": r.choice(VERBS),
            "pkg": r.choice(PY_PKGS), "npm": r.choice(NPM_PKGS), "crate": r.choice(CRATES),
            "branch": r.choice(BRANCHES), "line": r.randint(3, 140), "col": r.randint(1, 60)}


_BT = re.compile(r"`([^`]+)`")


def _segs(text: str) -> list:
    """A sentence with `backticks` as paragraph segments: plain strings and ``("c", code)``."""
    out: list = []
    pos = 0
    for m in _BT.finditer(text):
        if m.start() > pos:
            out.append(text[pos:m.start()])
        out.append(("c", m.group(1)))
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


def _fmt(t: str, v: dict) -> str:
    try:
        return t.format(**v)
    except (KeyError, IndexError, ValueError):
        return t


def _para(r, bank, k, v, decorate=0.25) -> tuple:
    """A paragraph of ``k`` sentences from ``bank`` (filled with ``v``; inline code kept undecorated)."""
    picks = r.sample(bank, min(k, len(bank)))
    segs: list = []
    for t in picks:
        s = _fmt(t, v)
        if "`" not in s and r.random() < decorate:
            s = _decorate(r, s, 0.5, 0.3)
        if segs:
            segs.append(" ")
        segs.extend(_segs(s))
    return ("p", _merge(segs))


def _paras(r, bank, n, lo, hi, v) -> list:
    """``n`` paragraphs of ``lo``..``hi`` sentences from ``bank``, no sentence twice on the page."""
    sizes = [r.randint(lo, hi) for _ in range(n)]
    pool = r.sample(bank, min(sum(sizes), len(bank)))
    out = []
    for k in sizes:
        if pool:
            out.append(_para(r, pool[:k], k, v))
            pool = pool[k:]
    return out


def _merge(segs: list) -> list:
    out: list = []
    for s in segs:
        if isinstance(s, str) and out and isinstance(out[-1], str):
            out[-1] += s
        else:
            out.append(s)
    return out


# ------------------------------------------------------------------ snippets: (what it does, code)
def _py_json(r, v):
    return (f"load {v['nouns']} from a JSON file and keep only the ones with a {v['sf']}",
            f"import json\n\n\ndef load_{v['nouns']}(path):\n    with open(path, encoding=\"utf-8\") as f:\n"
            f"        data = json.load(f)\n    return [{v['noun']} for {v['noun']} in data if {v['noun']}.get(\"{v['sf']}\")]\n\n\n"
            f"{v['nouns']} = load_{v['nouns']}(\"{v['file']}.json\")\nprint(f\"{{len({v['nouns']})}} {v['nouns']} loaded\")\n")


def _py_counter(r, v):
    return ("count how often each word appears in a text file",
            f"from collections import Counter\n\ncounts = Counter()\nwith open(\"{v['file']}.txt\") as fh:\n"
            f"    for line in fh:\n        counts.update(line.lower().split())\n\n"
            f"for word, n in counts.most_common({v['k']}):\n    print(f\"{{word:>12}} {{n}}\")\n")


def _py_retry(r, v):
    return ("retry an HTTP request a few times before giving up",
            f"import time\n\nimport requests\n\n\ndef fetch(url, attempts={v['k'] % 5 + 2}):\n"
            f"    for i in range(attempts):\n        try:\n            resp = requests.get(url, timeout={v['t']})\n"
            f"            resp.raise_for_status()\n            return resp.json()\n"
            f"        except requests.RequestException as exc:\n            print(f\"attempt {{i + 1}} failed: {{exc}}\")\n"
            f"            time.sleep(2 ** i)\n    raise RuntimeError(\"giving up on \" + url)\n")


def _py_dataclass(r, v):
    return (f"model a {v['noun']} as a dataclass with default values",
            f"from dataclasses import dataclass, field\n\n\n@dataclass\nclass {v['Noun']}:\n    {v['sf']}: str\n"
            f"    {v['nf']}: int = 0\n    tags: list[str] = field(default_factory=list)\n\n"
            f"    def is_large(self) -> bool:\n        return self.{v['nf']} > {v['n'] * 10}\n\n\n"
            f"x = {v['Noun']}(\"demo\", {v['nf']}={v['n'] * 12})\nprint(x, x.is_large())\n")


def _py_sort(r, v):
    return (f"sort a list of {v['nouns']} by {v['sf']} and then by {v['nf']}",
            f"{v['nouns']} = [\n    {{\"{v['sf']}\": \"b\", \"{v['nf']}\": 3}},\n    {{\"{v['sf']}\": \"a\", \"{v['nf']}\": 7}},\n"
            f"    {{\"{v['sf']}\": \"a\", \"{v['nf']}\": 2}},\n]\n"
            f"{v['nouns']}.sort(key=lambda x: (x[\"{v['sf']}\"], -x[\"{v['nf']}\"]))\n"
            f"for {v['noun']} in {v['nouns']}:\n    print({v['noun']}[\"{v['sf']}\"], {v['noun']}[\"{v['nf']}\"])\n")


def _py_pandas(r, v):
    return (f"compute the mean {v['nf']} per {v['sf']} with pandas",
            f"import pandas as pd\n\ndf = pd.read_csv(\"{v['file']}.csv\")\ndf = df.dropna(subset=[\"{v['nf']}\"])\n"
            f"summary = df.groupby(\"{v['sf']}\")[\"{v['nf']}\"].agg([\"mean\", \"count\"])\n"
            f"print(summary.sort_values(\"mean\", ascending=False).head({v['k']}))\n")


def _py_argparse(r, v):
    return ("read command-line options with argparse",
            f"import argparse\n\nparser = argparse.ArgumentParser(description=\"{_cap(v['verb'])} {v['nouns']}\")\n"
            f"parser.add_argument(\"path\")\nparser.add_argument(\"--limit\", type=int, default={v['n']})\n"
            f"parser.add_argument(\"-v\", \"--verbose\", action=\"store_true\")\nargs = parser.parse_args()\n\n"
            f"if args.verbose:\n    print(\"reading\", args.path)\n")


def _py_asyncio(r, v):
    return ("download several pages at the same time with asyncio",
            f"import asyncio\n\nimport aiohttp\n\n\nasync def get(session, url):\n"
            f"    async with session.get(url) as resp:\n        return await resp.text()\n\n\n"
            f"async def main(urls):\n    async with aiohttp.ClientSession() as session:\n"
            f"        pages = await asyncio.gather(*(get(session, u) for u in urls))\n"
            f"    for url, page in zip(urls, pages):\n        print(url, len(page))\n\n\n"
            f"asyncio.run(main([\"https://example.com/{v['nouns']}/{v['n']}\", \"https://example.com/{v['nouns']}/{v['k']}\"]))\n")


def _py_sqlite(r, v):
    return (f"query a SQLite table of {v['nouns']}",
            f"import sqlite3\n\nconn = sqlite3.connect(\"{v['file']}.db\")\ncur = conn.cursor()\n"
            f"cur.execute(\n    \"SELECT {v['sf']}, SUM({v['nf']}) FROM {v['nouns']} WHERE {v['nf']} > ? GROUP BY {v['sf']}\",\n"
            f"    ({v['n']},),\n)\nfor row in cur.fetchall():\n    print(row)\nconn.close()\n")


def _py_regex(r, v):
    return ("pull the dates out of log lines with a regular expression",
            f"import re\n\nDATE = re.compile(r\"(\\d{{4}})-(\\d{{2}})-(\\d{{2}})\")\n\n"
            f"with open(\"{v['file']}.log\") as log:\n    for line in log:\n        m = DATE.search(line)\n"
            f"        if m:\n            year, month, day = map(int, m.groups())\n            print(year, month, day)\n")


def _py_subprocess(r, v):
    return ("run a shell command and capture its output",
            f"import subprocess\n\nresult = subprocess.run(\n    [\"git\", \"log\", \"--oneline\", \"-n\", \"{v['k']}\"],\n"
            f"    capture_output=True,\n    text=True,\n    check=True,\n)\n"
            f"for line in result.stdout.splitlines():\n    print(line)\n")


def _py_generator(r, v):
    return ("read a large file in chunks with a generator",
            f"def chunks(path, size={v['n'] * 1024}):\n    with open(path, \"rb\") as f:\n        while True:\n"
            f"            block = f.read(size)\n            if not block:\n                break\n            yield block\n\n\n"
            f"total = 0\nfor block in chunks(\"{v['file']}.bin\"):\n    total += len(block)\nprint(total)\n")


def _py_class(r, v):
    return (f"write a small class that keeps a running total of {v['nf']}",
            f"class {v['Noun']}Stats:\n    def __init__(self):\n        self.count = 0\n        self.total = 0.0\n\n"
            f"    def add(self, {v['nf']}):\n        self.count += 1\n        self.total += {v['nf']}\n\n"
            f"    @property\n    def mean(self):\n        return self.total / self.count if self.count else 0.0\n\n\n"
            f"stats = {v['Noun']}Stats()\nfor x in [{v['n']}, {v['k']}, {v['t']}]:\n    stats.add(x)\nprint(stats.mean)\n")


def _py_pytest(r, v):
    return (f"test a function that {v['verb']}s {v['nouns']} with pytest",
            f"import pytest\n\nfrom app.{v['nouns']} import {v['verb']}_{v['noun']}\n\n\n"
            f"@pytest.mark.parametrize(\"raw, expected\", [\n    (\"  A \", \"a\"),\n    (\"b\", \"b\"),\n])\n"
            f"def test_{v['verb']}_{v['noun']}(raw, expected):\n    assert {v['verb']}_{v['noun']}(raw) == expected\n\n\n"
            f"def test_{v['verb']}_{v['noun']}_rejects_empty():\n    with pytest.raises(ValueError):\n"
            f"        {v['verb']}_{v['noun']}(\"\")\n")


def _js_readjson(r, v):
    return (f"read a JSON file of {v['nouns']} in Node and filter it",
            f"const fs = require('fs/promises');\n\nasync function load{v['Noun']}s(path) {{\n"
            f"  const text = await fs.readFile(path, 'utf8');\n  const data = JSON.parse(text);\n"
            f"  return data.filter(({v['noun']}) => {v['noun']}.{v['nf']} > {v['n']});\n}}\n\n"
            f"load{v['Noun']}s('./{v['file']}.json')\n  .then((list) => console.log(list.length))\n  .catch(console.error);\n")


def _js_express(r, v):
    return (f"return a {v['noun']} as JSON from an Express route",
            f"const express = require('express');\n\nconst app = express();\napp.use(express.json());\n\n"
            f"app.get('/{v['nouns']}/:id', async (req, res) => {{\n  const {v['noun']} = await db.find{v['Noun']}(req.params.id);\n"
            f"  if (!{v['noun']}) {{\n    return res.status(404).json({{ error: 'not found' }});\n  }}\n"
            f"  res.json({v['noun']});\n}});\n\napp.listen({v['port']}, () => console.log('listening on {v['port']}'));\n")


def _js_fetch(r, v):
    return ("call a REST API with fetch and async/await",
            f"async function get{v['Noun']}(id) {{\n  const res = await fetch(`https://api.example.com/{v['nouns']}/${{id}}`);\n"
            f"  if (!res.ok) {{\n    throw new Error(`HTTP ${{res.status}}`);\n  }}\n  return res.json();\n}}\n\n"
            f"get{v['Noun']}({v['n']})\n  .then(({v['noun']}) => console.log({v['noun']}.{v['sf']}))\n"
            "  .catch((err) => console.error(err.message));\n")


def _js_groupby(r, v):
    return (f"group an array of {v['nouns']} by {v['sf']} with reduce",
            f"const byKey = {v['nouns']}.reduce((acc, {v['noun']}) => {{\n  const key = {v['noun']}.{v['sf']};\n"
            f"  (acc[key] ||= []).push({v['noun']});\n  return acc;\n}}, {{}});\n\n"
            f"for (const [key, list] of Object.entries(byKey)) {{\n  console.log(key, list.length);\n}}\n")


def _js_class(r, v):
    return (f"write a {v['Noun']} class with a getter",
            f"class {v['Noun']} {{\n  constructor({v['sf']}, {v['nf']} = 0) {{\n    this.{v['sf']} = {v['sf']};\n"
            f"    this.{v['nf']} = {v['nf']};\n  }}\n\n  get isLarge() {{\n    return this.{v['nf']} > {v['n'] * 10};\n  }}\n\n"
            f"  toString() {{\n    return `${{this.{v['sf']}}} (${{this.{v['nf']}}})`;\n  }}\n}}\n\n"
            f"const x = new {v['Noun']}('demo', {v['n'] * 12});\nconsole.log(String(x), x.isLarge);\n")


def _js_events(r, v):
    return ("emit and listen to custom events with EventEmitter",
            f"const {{ EventEmitter }} = require('events');\n\nclass Queue extends EventEmitter {{\n"
            f"  push(job) {{\n    this.emit('job', job);\n  }}\n}}\n\nconst q = new Queue();\n"
            f"q.on('job', (job) => console.log('got', job.{v['sf']}));\nq.push({{ {v['sf']}: '{v['noun']}-{v['n']}' }});\n")


def _js_promise_all(r, v):
    return ("wait for several requests at once with Promise.all",
            f"const ids = [{v['n']}, {v['k']}, {v['t']}];\n\nconst results = await Promise.allSettled(\n"
            f"  ids.map((id) => fetch(`/api/{v['nouns']}/${{id}}`).then((r) => r.json())),\n);\n\n"
            f"const ok = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);\n"
            f"console.log(`${{ok.length}} of ${{ids.length}} loaded`);\n")


def _js_debounce(r, v):
    return ("debounce a function so it runs once after the user stops typing",
            f"function debounce(fn, wait = {v['t'] * 50}) {{\n  let timer;\n  return (...args) => {{\n"
            f"    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  }};\n}}\n\n"
            f"const search = debounce((q) => console.log('searching', q));\n"
            f"input.addEventListener('input', (e) => search(e.target.value));\n")


def _js_jest(r, v):
    return (f"test a {v['verb']} function with Jest",
            f"const {{ {v['verb']}{v['Noun']} }} = require('../src/{v['nouns']}');\n\n"
            f"describe('{v['verb']}{v['Noun']}', () => {{\n  test('trims and lowercases', () => {{\n"
            f"    expect({v['verb']}{v['Noun']}('  A ')).toBe('a');\n  }});\n\n  test('throws on empty input', () => {{\n"
            f"    expect(() => {v['verb']}{v['Noun']}('')).toThrow();\n  }});\n}});\n")


def _rs_struct(r, v):
    return (f"define a {v['Noun']} struct with a method",
            f"#[derive(Debug, Clone)]\nstruct {v['Noun']} {{\n    {v['sf']}: String,\n    {v['nf']}: u32,\n}}\n\n"
            f"impl {v['Noun']} {{\n    fn new({v['sf']}: &str, {v['nf']}: u32) -> Self {{\n"
            f"        Self {{ {v['sf']}: {v['sf']}.to_string(), {v['nf']} }}\n    }}\n\n"
            f"    fn is_large(&self) -> bool {{\n        self.{v['nf']} > {v['n'] * 10}\n    }}\n}}\n\n"
            f"fn main() {{\n    let x = {v['Noun']}::new(\"demo\", {v['n'] * 12});\n"
            "    println!(\"{:?} {}\", x, x.is_large());\n}\n")


def _rs_readfile(r, v):
    return ("read a file and handle errors with Result and the ? operator",
            f"use std::fs;\nuse std::io;\n\nfn read_{v['nouns']}(path: &str) -> io::Result<Vec<String>> {{\n"
            f"    let text = fs::read_to_string(path)?;\n    Ok(text.lines().map(|l| l.trim().to_string()).collect())\n}}\n\n"
            f"fn main() {{\n    match read_{v['nouns']}(\"{v['file']}.txt\") {{\n"
            "        Ok(lines) => println!(\"{} lines\", lines.len()),\n"
            f"        Err(e) => eprintln!(\"error: {{e}}\"),\n    }}\n}}\n")


def _rs_hashmap(r, v):
    return ("count words with a HashMap",
            f"use std::collections::HashMap;\n\nfn main() {{\n    let text = std::fs::read_to_string(\"{v['file']}.txt\").unwrap();\n"
            f"    let mut counts: HashMap<&str, usize> = HashMap::new();\n    for word in text.split_whitespace() {{\n"
            f"        *counts.entry(word).or_insert(0) += 1;\n    }}\n    let mut top: Vec<_> = counts.into_iter().collect();\n"
            f"    top.sort_by(|a, b| b.1.cmp(&a.1));\n    for (word, n) in top.iter().take({v['k']}) {{\n"
            f"        println!(\"{{word}}: {{n}}\");\n    }}\n}}\n")


def _rs_enum(r, v):
    return (f"match on an enum of {v['noun']} states",
            "enum Status {\n    Pending,\n    Active { since: u64 },\n    Failed(String),\n}\n\n"
            "fn describe(s: &Status) -> String {\n    match s {\n        Status::Pending => \"pending\".into(),\n"
            "        Status::Active { since } => format!(\"active since {since}\"),\n"
            "        Status::Failed(reason) => format!(\"failed: {reason}\"),\n    }\n}\n")


def _rs_iter(r, v):
    return (f"filter and sum the {v['nf']} of a vector with iterators",
            f"fn main() {{\n    let {v['nouns']} = vec![{v['n']}, {v['k']}, {v['t']}, {v['n'] + v['k']}];\n"
            f"    let total: u32 = {v['nouns']}\n        .iter()\n        .filter(|&&x| x > {v['k'] - 1})\n"
            "        .map(|x| x * 2)\n        .sum();\n"
            f"    println!(\"total = {{}}\", total);\n}}\n")


def _rs_sort(r, v):
    return (f"sort a Vec of {v['nouns']} by a field",
            f"#[derive(Debug)]\nstruct {v['Noun']} {{\n    {v['sf']}: String,\n    {v['nf']}: i64,\n}}\n\n"
            f"fn sort_{v['nouns']}(v: &mut Vec<{v['Noun']}>) {{\n    v.sort_by_key(|x| std::cmp::Reverse(x.{v['nf']}));\n}}\n")


def _rs_borrow(r, v):
    return ("pass a vector to a function without moving it",
            f"fn total(v: &[u32]) -> u32 {{\n    v.iter().sum()\n}}\n\nfn main() {{\n"
            f"    let {v['nouns']} = vec![{v['n']}, {v['k']}, {v['t']}];\n    let t = total(&{v['nouns']});\n"
            f"    println!(\"{{}} {{:?}}\", t, {v['nouns']});\n}}\n")


def _rs_threads(r, v):
    return ("send results from worker threads over a channel",
            f"use std::sync::mpsc;\nuse std::thread;\n\nfn main() {{\n    let (tx, rx) = mpsc::channel();\n"
            f"    for id in 0..{v['k']} {{\n        let tx = tx.clone();\n        thread::spawn(move || {{\n"
            f"            tx.send(id * {v['n']}).unwrap();\n        }});\n    }}\n    drop(tx);\n"
            f"    let sum: u32 = rx.iter().sum();\n    println!(\"sum = {{sum}}\");\n}}\n")


def _rs_serde(r, v):
    return ("deserialize JSON into a struct with serde",
            f"use serde::Deserialize;\n\n#[derive(Debug, Deserialize)]\nstruct {v['Noun']} {{\n    id: u64,\n"
            f"    {v['sf']}: String,\n    #[serde(default)]\n    {v['nf']}: f64,\n}}\n\n"
            f"fn main() -> Result<(), Box<dyn std::error::Error>> {{\n"
            f"    let text = std::fs::read_to_string(\"{v['file']}.json\")?;\n"
            f"    let items: Vec<{v['Noun']}> = serde_json::from_str(&text)?;\n"
            "    println!(\"{} items\", items.len());\n    Ok(())\n}\n")


def _sh_venv(r, v):
    return ("set up a virtual environment and install dependencies",
            f"python3 -m venv .venv\nsource .venv/bin/activate\npython -m pip install --upgrade pip\n"
            f"pip install {v['pkg']}\npip freeze > requirements.txt\n")


def _sh_git(r, v):
    return ("create a branch, commit and push it",
            f"git switch -c {v['branch']}\ngit add -p\ngit commit -m \"{_cap(v['verb'])} {v['nouns']}\"\n"
            f"git push -u origin {v['branch']}\n")


def _sh_cargo(r, v):
    return ("create a new Rust project and add a dependency",
            f"cargo new {v['noun']}-tool\ncd {v['noun']}-tool\ncargo add {v['crate']}\ncargo run --release\n")


def _sh_npm(r, v):
    return ("start a Node project and add a package",
            f"mkdir {v['noun']}-api && cd {v['noun']}-api\nnpm init -y\nnpm install {v['npm']}\nnpm install --save-dev nodemon\n"
            f"npx nodemon index.js\n")


def _sh_find(r, v):
    return ("find every file that mentions a word",
            "find . -name \"*.py\" -not -path \"./.venv/*\" \\\n"
            f"  | xargs grep -n \"{v['verb']}_{v['noun']}\" \\\n  | sort | head -n {v['k'] * 5}\n")


def _sh_loop(r, v):
    return ("convert every file in a folder with a bash loop",
            f"for f in {v['file']}/*.csv; do\n  out=\"${{f%.csv}}.json\"\n  echo \"converting $f\"\n"
            f"  python convert.py \"$f\" > \"$out\" || echo \"failed: $f\" >&2\ndone\n")


SNIPPETS = {
    "python": [_py_json, _py_counter, _py_retry, _py_dataclass, _py_sort, _py_pandas, _py_argparse, _py_asyncio,
               _py_sqlite, _py_regex, _py_subprocess, _py_generator, _py_class, _py_pytest],
    "javascript": [_js_readjson, _js_express, _js_fetch, _js_groupby, _js_class, _js_events, _js_promise_all,
                   _js_debounce, _js_jest],
    "rust": [_rs_struct, _rs_readfile, _rs_hashmap, _rs_enum, _rs_iter, _rs_sort, _rs_borrow, _rs_threads, _rs_serde],
    "shell": [_sh_venv, _sh_git, _sh_cargo, _sh_npm, _sh_find, _sh_loop],
}
SETUP = {"python": _sh_venv, "javascript": _sh_npm, "rust": _sh_cargo}


def _error(r, lang: str, v: dict) -> str:
    """An error message or traceback as the asker pastes it."""
    if lang == "python":
        tail = r.choice([f"KeyError: '{v['sf']}'", "TypeError: 'NoneType' object is not subscriptable",
                         f"ModuleNotFoundError: No module named '{v['pkg'].replace('-', '_')}'",
                         f"AttributeError: 'list' object has no attribute '{v['sf']}'",
                         "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 14: invalid continuation byte",
                         f"ValueError: invalid literal for int() with base 10: '{v['noun']}'",
                         "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
                         "RuntimeError: This event loop is already running"])
        return (f"Traceback (most recent call last):\n  File \"/home/dev/{v['file']}.py\", line {v['line']}, in <module>\n"
                f"    main()\n  File \"/home/dev/{v['file']}.py\", line {v['col'] + 2}, in main\n"
                f"    {v['verb']}_{v['nouns']}(path)\n{tail}\n")
    if lang == "javascript":
        head = r.choice([f"TypeError: Cannot read properties of undefined (reading '{v['sf']}')",
                         f"ReferenceError: {v['noun']} is not defined",
                         "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
                         f"Error: Cannot find module '{v['npm']}'",
                         "SyntaxError: Cannot use import statement outside a module",
                         f"Error: listen EADDRINUSE: address already in use :::{v['port']}"])
        return (f"{head}\n    at {v['verb']}{v['Noun']} (/app/src/{v['nouns']}.js:{v['line']}:{v['col']})\n"
                f"    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n")
    if lang == "rust":
        code, msg, note = r.choice([
            ("E0382", f"borrow of moved value: `{v['nouns']}`", "value borrowed here after move"),
            ("E0308", "mismatched types", "expected `u32`, found `usize`"),
            ("E0502", f"cannot borrow `{v['nouns']}` as mutable because it is also borrowed as immutable",
             "mutable borrow occurs here"),
            ("E0106", "missing lifetime specifier", "expected named lifetime parameter"),
            ("E0277", f"`{v['Noun']}` doesn't implement `std::fmt::Display`", "the trait `Display` is not implemented"),
        ])
        return (f"error[{code}]: {msg}\n  --> src/main.rs:{v['line']}:{v['col']}\n   |\n"
                f"{v['line']:>2} |     let t = total({v['nouns']});\n   |             ^^^^^ {note}\n\n"
                f"For more information about this error, try `rustc --explain {code}`.\n")
    return r.choice([f"bash: {v['noun']}: command not found\n",
                     "Permission denied (publickey).\nfatal: Could not read from remote repository.\n",
                     "error: externally-managed-environment\n",
                     "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"])


def _output(r, lang: str, v: dict) -> str:
    cmd = {"python": f"$ python {v['file']}.py", "javascript": f"$ node {v['file']}.js", "rust": "$ cargo run",
           "shell": "$ ./run.sh"}[lang]
    lines = [f"{r.choice(STR_FIELDS)} {r.randint(1, 900)}" for _ in range(r.randint(2, 5))]
    return cmd + "\n" + "\n".join(lines) + "\n"


# ------------------------------------------------------------------ prose banks
Q_INTRO = [
    "I am trying to {desc} in {Lang}, but it does not work the way I expect.",
    "I have a small {Lang} script that should {desc}.", "I'm new to {Lang} and I want to {desc}.",
    "At work we need to {desc}, and my first attempt in {Lang} looks like this.",
    "For a side project I need to {desc}; this is what I have so far.",
    "I want to {desc}. I read the documentation and a few answers here, but I am still stuck.",
    "My task is to {desc} for a file with about {m} lines.", "Could someone explain how to {desc} properly in {Lang}?",
]
Q_CONTEXT = [
    "The input comes from an export of our {noun} database.", "It worked yesterday and I did not change anything.",
    "I am on {os} with {Lang} {ver}.", "I have simplified the code to the smallest example that still fails.",
    "I tried adding print statements, and the value is what I expect right before the failing line.",
    "The real program is bigger, but this is the part that matters.",
    "A colleague says I should not do it this way but could not tell me why.",
    "I searched for the error message but the answers I found are about older versions.",
]
Q_AFTER = [
    "When I run it I get this error:", "This fails with the following message:", "Running it prints:",
    "The traceback I get is:", "It stops with:", "And this is the output:",
]
Q_AFTER_NOERR = [
    "It runs without an error, but the result is empty.", "It works for small inputs, but on the real file it takes minutes.",
    "The output is correct, but it feels clumsy; is there a more idiomatic way?",
    "Sometimes the result is right and sometimes it is not, which confuses me.",
    "It prints the values in the wrong order.",
]
Q_END = [
    "What am I doing wrong?", "Is there a cleaner way to do this?", "Any help is appreciated.",
    "Why does this happen, and how do I fix it?", "Is this a bug in the library or in my code?",
    "Thanks in advance!", "What is the idiomatic way to write this?",
]
A_OPEN = [
    "The problem is on the line where you {desc2}.", "You are very close.", "This is a common surprise.",
    "The error message is telling you exactly what is wrong, even if it is hard to read at first.",
    "Short answer: you are mixing two different types.", "Your loop is fine; the bug is before it.",
    "I ran your example and can reproduce it.", "There are two separate issues here.",
]
A_EXPLAIN = {
    "python": [
        "`dict.get` returns `None` when the key is missing, so the next index fails.",
        "Pass `encoding=\"utf-8\"` to `open`, otherwise Python uses the platform default.",
        "A generator can only be consumed once, so the second loop sees nothing.",
        "The module is installed for a different interpreter than the one running your script; check `python -m pip --version`.",
        "Use a list comprehension instead of appending in a loop; it is shorter and usually faster.",
        "The default argument is evaluated once, when the function is defined, not on every call.",
        "Wrap the call in `try`/`except` and catch the specific exception rather than a bare `except`.",
        "`sort` sorts in place and returns `None`; use `sorted` if you need the new list.",
        "Inside a function, assigning to a name makes it local unless you declare it `nonlocal` or `global`.",
        "Read the file line by line instead of calling `read()`, then memory stays flat.",
    ],
    "javascript": [
        "`fetch` returns a promise, so you have to `await` it before you can read the body.",
        "The callback runs later, after your `console.log`, which is why you see `undefined`.",
        "Your server returned an HTML error page, and `JSON.parse` chokes on the first `<`.",
        "Arrow functions do not have their own `this`, so use a regular method here.",
        "`forEach` does not wait for async callbacks; use `for...of` with `await` or `Promise.all`.",
        "Add `\"type\": \"module\"` to package.json if you want to use `import` in Node.",
        "Optional chaining (`user?.address?.city`) avoids the crash when a field is missing.",
        "Another process is already listening on that port; stop it or pick another one.",
    ],
    "rust": [
        "Passing the vector by value moves it into the function; pass a reference with `&` instead.",
        "`len()` returns a `usize`, so either change the field type or convert with `as u32`.",
        "You cannot hold an immutable borrow and push to the vector at the same time; finish reading first.",
        "Return `Result` from `main` and use `?`, then the error is printed for you.",
        "Derive `Debug` on the struct, or implement `Display` if you want a custom format.",
        "`unwrap` panics on `None`; use `if let` or `match` to handle the missing case.",
        "Clone the value only if you really need two owners; most of the time a borrow is enough.",
        "The iterator is lazy: nothing happens until you call `collect` or `sum`.",
    ],
}
A_FIX_INTRO = ["Change it to:", "Something like this works:", "Here is a version that does what you want:",
               "Try this:", "I would write it like this:", "A minimal fix:"]
A_CLOSE = [
    "Hope this helps.", "That should fix it.", "See the official documentation for the details.",
    "This works on {Lang} {ver} and later.", "If it still fails, post the full error and your {Lang} version.",
    "The same pattern works for any {noun} field.", "Edit: fixed a typo in the example.",
]
DESC2 = ["read the file", "build the list", "call the function", "open the connection", "parse the input",
         "compare the values", "return the result", "loop over the keys"]


def _lang(r, weights=(0.45, 0.32, 0.23)) -> str:
    return r.choices(["python", "javascript", "rust"], weights)[0]


def _vals(r, lang: str, v: dict, desc: str) -> dict:
    return dict(v, desc=desc, Lang=LANG_NAME[lang], ver=r.choice(VERSIONS[lang]), os=r.choice(OSES),
                m=r.randint(200, 900000), desc2=r.choice(DESC2), name=name(r), city=r.choice(CITIES))


def code_q(r) -> dict:
    """A programming question with the asker's code (often an error) and one to three answers."""
    lang = _lang(r)
    v = _ids(r)
    desc, code = r.choice(SNIPPETS[lang])(r, v)
    w = _vals(r, lang, v, desc)
    err = _error(r, lang, v) if r.random() < 0.6 else None
    first = err.splitlines()[0] if err and lang != "python" else (err.strip().splitlines()[-1] if err else "")
    title = r.choice([f"How do I {desc} in {w['Lang']}?", f"Best way to {desc} in {w['Lang']}",
                      f"Trying to {desc}, what am I missing?", f"{w['Lang']}: {desc}"]
                     + ([f"{first[:90]} when I try to {desc}", f"Getting \"{first[:70]}\" in {w['Lang']}"] if err else []))
    blocks: list = [_para(r, Q_INTRO, 1, w), _para(r, Q_CONTEXT, r.randint(0, 2), w), ("pre", code, lang)]
    if err:
        blocks += [("p", [r.choice(Q_AFTER)]), ("pre", err, "text")]
    else:
        blocks.append(("p", [r.choice(Q_AFTER_NOERR)]))
    blocks.append(_para(r, Q_END, r.randint(1, 2), w))
    blocks.append(("p", ["Tags: " + ", ".join([lang] + r.sample(CODE_TAGS, 2))]))
    blocks = [b for b in blocks if b[0] != "p" or b[1]]
    answers = []
    for _ in range(r.randint(1, 3)):
        a: list = [_para(r, A_OPEN, 1, w), _para(r, A_EXPLAIN[lang], r.randint(1, 3), w)]
        if r.random() < 0.75:
            fix = _ids(r)
            fix.update({k: v[k] for k in ("noun", "nouns", "Noun", "sf", "nf", "file")})
            a += [("p", [r.choice(A_FIX_INTRO)]), ("pre", r.choice(SNIPPETS[lang])(r, fix)[1], lang)]
        a.append(_para(r, A_CLOSE, r.randint(0, 1), w))
        answers.append([b for b in a if b[0] != "p" or b[1]])
    return {"title": _cap(title), "blocks": blocks, "answers": answers, "math_segments": 0, "topic": "code_q"}


# "how do I configure X": (tool, title, command, what the asker tried / why, the answer's explanation)
HOWTO = [
    ("pytest", "How do I make pytest show the output of print()?", "pytest -s tests/",
     "My tests print debug values, but pytest swallows everything unless a test fails.",
     "Pytest captures stdout by default; `-s` (short for `--capture=no`) turns that off."),
    ("git", "How do I change the default branch name for new repositories?", "git config --global init.defaultBranch main",
     "Every `git init` still creates a master branch and I keep renaming it by hand.",
     "The setting is read by `git init`; existing repositories are not touched."),
    ("npm", "How do I install a package only as a development dependency?", "npm install --save-dev {npm}",
     "I only need {npm} while developing, but it ends up in the production image.",
     "Packages saved with `--save-dev` go to `devDependencies`, and `npm ci --omit=dev` skips them."),
    ("cargo", "How do I build a Rust project with optimisations?", "cargo build --release",
     "My program is much slower than the same thing in C, and someone said I am benchmarking a debug build.",
     "The optimised binary ends up in `target/release/` instead of `target/debug/`."),
    ("pip", "How can I list installed Python packages with their versions?", "python -m pip list --format=freeze",
     "I need to know which version of {pkg} is installed in this environment.",
     "Running pip through `python -m` makes sure you ask the interpreter you are actually using."),
    ("git", "How do I undo the last commit but keep my changes?", "git reset --soft HEAD~1",
     "I committed to the wrong branch and want the changes back in my working tree.",
     "A soft reset moves the branch back one commit and leaves the changes staged."),
    ("node", "How do I give a Node script more memory?", "node --max-old-space-size=4096 {file}.js",
     "The script that processes the {noun} export dies with a heap out of memory error.",
     "The value is in megabytes; you can also set it through `NODE_OPTIONS`."),
    ("python", "How do I activate a virtual environment on Windows?", ".venv\\Scripts\\activate",
     "The tutorial says `source .venv/bin/activate`, but that does not exist on my machine.",
     "On Windows the scripts live in `Scripts` instead of `bin`; in PowerShell run `Activate.ps1`."),
    ("bash", "How do I set an environment variable for a single command?", "APP_DEBUG=1 python app.py",
     "I do not want to export the variable for the whole session.",
     "The assignment before the command applies only to that process and its children."),
    ("rustup", "How do I update Rust to the latest stable version?", "rustup update stable",
     "A crate I want to use needs a newer compiler than the one I installed last year.",
     "Check the result with `rustc --version`; the toolchain is shared by all your projects."),
    ("lsof", "How do I see which process is using port {port}?", "lsof -i :{port}",
     "My dev server refuses to start and says the address is already in use.",
     "The second column is the process id; stop it with `kill` followed by that id."),
    ("git", "How do I delete a remote branch?", "git push origin --delete {branch}",
     "The branch was merged weeks ago but it still shows up for everyone.",
     "Others can clean their stale references with `git fetch --prune`."),
    ("nvm", "How can I pin the Node version for a project?", "echo \"20\" > .nvmrc",
     "Half of the team runs a different Node version and the lock file keeps changing.",
     "With the file in place, `nvm use` in the project folder picks the pinned version."),
    ("cargo", "How do I format every Rust file in a workspace?", "cargo fmt --all",
     "Our CI complains about formatting in crates I never touched.",
     "Add `cargo fmt --all -- --check` to CI so it fails instead of rewriting files."),
    ("pip", "How do I install a package from a Git branch with pip?", "pip install git+https://github.com/example/{pkg}.git@{branch}",
     "The fix I need is merged but not released yet.",
     "Pin the commit hash instead of the branch if you need reproducible installs."),
    ("vscode", "How do I make VS Code use my project's virtual environment?", "code --install-extension ms-python.python",
     "The editor keeps underlining imports that work fine in the terminal.",
     "After installing the extension, pick the interpreter inside `.venv` from the command palette."),
    ("python", "How do I run a module as a script from the project root?", "python -m app.{nouns}",
     "Running the file directly gives me an import error for my own package.",
     "With `-m` the project root is on the import path, so absolute imports of your package work."),
    ("npm", "How do I run an npm script with extra arguments?", "npm run test -- --watch",
     "I want to pass a flag through to Jest without editing package.json.",
     "Everything after the double dash is handed to the script unchanged."),
]
HOWTO_Q = [
    "I looked through the documentation but could not find the option.", "I am on {os}, in case that matters.",
    "Is there a setting for this, or do I have to write a wrapper script?", "Sorry if this is a basic question.",
    "I would prefer a solution that works for the whole team.", "This used to work on my old laptop.",
]
HOWTO_A = [
    "Run this from the project folder:", "There is an option for exactly that:", "You can do it with one command:",
    "This is what I use:",
]
HOWTO_A_INLINE = ["Just run `{cmd}` from the project folder.", "Use `{cmd}` and you are done.",
                  "The command you want is `{cmd}`.", "`{cmd}` does exactly this."]
HOWTO_MORE = [
    "I have been bitten by this more than once.", "It also works in CI.", "This has been the default behaviour for years.",
    "Note that the change applies to your user account, not the repository.", "Restart the terminal afterwards.",
    "The documentation hides this in a footnote, unfortunately.", "Upvoted, this saved me an afternoon.",
]


def code_howto(r) -> dict:
    """A configuration / tooling question: mostly prose, the answer one command (a block or inline)."""
    tool, title, cmd, why, expl = r.choice(HOWTO)
    v = _ids(r)
    w = _vals(r, "python", v, "")
    cmd = _fmt(cmd, w)
    blocks: list = [_para(r, [why], 1, w), _para(r, HOWTO_Q, r.randint(1, 3), w)]
    answers = []
    for k in range(r.randint(1, 2)):
        a: list = []
        if k == 0 and r.random() < 0.5:
            a += [("p", [r.choice(HOWTO_A)]), ("pre", cmd, "shell")]
        else:
            a.append(("p", _segs(_fmt(r.choice(HOWTO_A_INLINE), dict(w, cmd=cmd)))))
        a.append(("p", _segs(_fmt(expl, w))))
        a.append(_para(r, HOWTO_MORE, r.randint(0, 2), w))
        answers.append([b for b in a if b[1]])
    return {"title": _fmt(title, w), "blocks": [b for b in blocks if b[1]], "answers": answers, "math_segments": 0,
            "topic": "code_howto"}


TUT_TITLES = [
    "{Lang} for busy people: {desc}", "A practical guide: how to {desc} in {Lang}", "Building a tiny {noun} service in {Lang}",
    "{k} small {Lang} recipes I use every week", "Learning {Lang} by example, part {n}",
    "From zero to a working {noun} tool in {Lang}", "Notes from a {Lang} workshop: {desc}",
]
TUT_INTRO = [
    "In this tutorial we {desc} step by step, starting from an empty folder.",
    "This post assumes you know the basics of {Lang} but have not used it for real work yet.",
    "All the code below runs on {Lang} {ver}; older versions need small changes.",
    "A reader from {city} asked how I {desc}, so here is the long answer.",
    "We will keep the example small, but the pattern scales to real projects.",
    "The complete example is about {n}0 lines, and each part is explained on its own.",
]
TUT_STEP = [
    "The function below does one thing and returns early when the input is empty.",
    "Notice how the error is handled where it happens instead of being passed up silently.",
    "We keep the parsing separate from the printing so each part can be tested on its own.",
    "Names matter here: a {noun} is one row of the input, and the collection is called {nouns}.",
    "If you run this on a large input, the loop is the part that dominates the running time.",
    "The standard library already has what we need, so there are no extra dependencies.",
    "This is the only place where we touch the file system.", "Type annotations are optional, but they help the editor.",
    "Try changing the limit to see how the output changes.", "The next step builds on this function.",
]
TUT_OUT = ["Running it prints something like this:", "The output looks like this:", "On my machine this gives:"]
TUT_OUTRO = [
    "That is all for today; the next part adds tests and a small command-line interface.",
    "If something does not work for you, leave a comment with your {Lang} version.",
    "The pattern is the same in most languages, only the syntax changes.",
    "Thanks to {name} for reviewing a draft of this post.",
    "Next time we will look at error handling in more depth.",
]


def code_tutorial(r) -> dict:
    """A blog tutorial: prose and two to four multi-line code blocks, sometimes the program's output."""
    lang = _lang(r, (0.45, 0.3, 0.25))
    v = _ids(r)
    steps = r.sample(SNIPPETS[lang], r.randint(2, 4))
    desc0, _ = steps[0](r, v)
    w = _vals(r, lang, v, desc0)
    blocks: list = [_para(r, TUT_INTRO, r.randint(2, 3), w)]
    if r.random() < 0.5:
        setup = SETUP[lang](r, v)[1]
        blocks += [("h2", "Setup"), ("p", ["First create a project and install what we need:"]), ("pre", setup, "shell")]
    for k, fn in enumerate(steps, 1):
        desc, code = fn(r, v)
        blocks += [("h2", f"{k}. {_cap(desc)}"), _para(r, TUT_STEP, r.randint(1, 3), w), ("pre", code, lang)]
        if r.random() < 0.3:
            blocks += [("p", [r.choice(TUT_OUT)]), ("pre", _output(r, lang, v), "console")]
    blocks.append(_para(r, TUT_OUTRO, r.randint(1, 2), w))
    return {"title": _cap(_fmt(r.choice(TUT_TITLES), w)), "blocks": blocks, "math_segments": 0, "topic": "code_tutorial"}


ESSAY_TITLES = [
    "What I learned moving our {Lang} services to async", "Why we stopped catching every exception",
    "Naming things: a field guide for {Lang} developers", "How code review changed the way I write {Lang}",
    "Five habits that made our test suite faster", "The borrow checker is your friend (eventually)",
    "Stop writing clever code", "Logging that helps at three in the morning", "Lessons from a year of {Lang} in production",
]
ESSAY_SENT = [
    "Most of our bugs came from functions that did two things at once.",
    "We replaced every bare `except:` with the specific exception we expected.",
    "A function that returns `None` on failure pushes the error handling onto every caller.",
    "Once we added type hints, the editor started catching mistakes before the tests did.",
    "The borrow checker rejected my first design, and in hindsight it was right.",
    "Switching from callbacks to `async`/`await` made the control flow readable again.",
    "We now run the fast unit tests on every commit and the slow integration tests nightly.",
    "Refactoring is much less scary when each module has a small public interface.",
    "Global state made our tests depend on the order in which they ran.",
    "Code review is where juniors learn the codebase and seniors learn to explain it.",
    "A good error message names the input, the expectation and what to do next.",
    "We deleted {n} thousand lines of dead code and nothing broke.",
    "Our style guide is short: use the formatter, write tests, name things after what they mean.",
    "Profiling showed that the slow part was not the algorithm but the database calls inside the loop.",
    "Immutable data structures removed a whole class of concurrency bugs.",
    "Dependency updates are boring, which is exactly why we automated them.",
    "The compiler warnings we had ignored for months pointed at real bugs.",
    "Writing the documentation first forced us to simplify the interface.",
    "Nobody reads a pull request with two thousand changed lines carefully.",
    "We keep a list of the mistakes that reached production and what would have caught them.",
    "Retries without a limit turned a short outage into a long one.",
    "The team agreed to delete feature flags within a month of the launch.",
    "Pair programming felt slow at first and then saved us days of debugging.",
    "A flaky test is worse than no test, because people learn to ignore failures.",
    "Small pull requests get reviewed the same day; large ones wait a week.",
]


def code_essay(r) -> dict:
    """A programming article that is mostly prose (inline code, at most one short block)."""
    lang = _lang(r)
    v = _ids(r)
    w = _vals(r, lang, v, "")
    blocks: list = _paras(r, ESSAY_SENT, r.randint(3, 5), 2, 4, w)
    if r.random() < 0.35:
        snippet = r.choice(SNIPPETS[lang])(r, v)[1]
        short = "\n".join(snippet.splitlines()[: r.randint(3, 6)]) + "\n"
        blocks.insert(r.randint(1, len(blocks) - 1), ("pre", short, lang))
    return {"title": _cap(_fmt(r.choice(ESSAY_TITLES), w)), "blocks": blocks, "math_segments": 0, "topic": "code_essay"}


# ------------------------------------------------------------------ non-code pages about computers and programming
NEWS_TITLES = [
    "{Lang} {ver2} released with a faster compiler", "{co} open-sources its internal build system",
    "Developer survey: {Lang} is the most admired language again", "Security flaw found in a popular {pm} package",
    "{co} cuts {p}% of its engineering staff", "New web framework for {Lang} reaches version 1.0",
    "Conference recap: the talks everyone discussed in {city}", "{co} bets on {Lang} for its payment systems",
    "Package registry requires two-factor authentication from {month}",
]
NEWS_SENT = [
    "The release focuses on performance, with the maintainers reporting builds up to {p}% faster.",
    "More than {m} developers answered this year's survey, a record number.",
    "The vulnerability affects versions published in the last {n} months, according to the advisory.",
    "Maintainers urged users to upgrade as soon as possible.",
    "The project is run by volunteers and funded by donations from several companies.",
    "Critics say the change will break older code, while supporters point to years of warnings.",
    "The company said the move would save money on servers and make hiring easier.",
    "Attendance at the conference in {city} was the highest since {year}.",
    "The new version drops support for operating systems that are no longer maintained.",
    "Salaries for experienced engineers rose again, the report found, though more slowly than last year.",
    "Several large companies already run the framework in production, the announcement says.",
    "The steering council approved the proposal after a long public discussion.",
    "The registry has removed {n} malicious packages since the start of the year.",
    "The language's popularity keeps growing in data science and teaching.",
    "The team behind the tool announced a paid tier for companies and kept the open-source core free.",
    "Analysts expect the deal to close before the end of {month}.",
    "The foundation behind the project hired {n} full-time maintainers this year.",
    "A spokesperson declined to say how many customers were affected.",
    "Long-term support for the previous version ends in {month}.",
    "Open-source maintainers have long complained about burnout and a lack of funding.",
]
NEWS_INLINE = ["Users can upgrade with `{up}`.", "The fixed release is available through `{up}`."]
UPGRADE = {"python": "python -m pip install --upgrade {pkg}", "javascript": "npm update {npm}", "rust": "rustup update stable"}
PM = {"python": "Python", "javascript": "npm", "rust": "Rust crate"}


# release news lists what changed in the words of the documentation (a hard negative), but shows no code
RELEASE_NOTES = {
    "python": ["The new function itertools.batched() groups an iterable into tuples of a given size.",
               "asyncio.TaskGroup makes it easier to start several tasks and wait for all of them.",
               "Error messages now suggest the name you probably meant when a NameError is raised.",
               "The distutils module has been removed; projects should use setuptools instead.",
               "f-strings may now contain nested quotes, backslashes and comments.",
               "The tomllib module reads TOML files without a third-party package.",
               "Generic classes and functions can declare type parameters with a new, shorter syntax.",
               "An experimental build runs without the global interpreter lock.",
               "The interactive interpreter gains colour, multi-line editing and history browsing."],
    "javascript": ["The built-in test runner is now stable.", "fetch() is available globally without an experimental flag.",
                   "The new fs.glob() function returns the paths that match a pattern.",
                   "The --watch flag restarts the process when an imported file changes.",
                   "A permission model can restrict access to the file system and child processes.",
                   "Array methods findLast() and toSorted() are available without a polyfill.",
                   "require() can load ES modules synchronously behind a flag.",
                   "The bundled npm is upgraded to version 10.", "WebSocket client support is enabled by default."],
    "rust": ["Async functions in traits are now stable.",
             "The let-else statement returns early when a pattern does not match.",
             "New methods on Option and Result reduce boilerplate in error handling.",
             "Cargo can check that the lock file is up to date with the --locked flag.",
             "The IsTerminal trait tells whether output goes to a terminal.",
             "Lints about unused results are more precise and produce fewer false alarms.",
             "The minimum supported Linux kernel version is raised.",
             "Compile times improved by up to {p}% on large crates, according to the release team.",
             "Closures can now capture disjoint fields of a struct."],
}


RELEASE_SENT = [
    "Functions deprecated in the previous release now raise an error when they are called.",
    "The default value of the encoding parameter changes to UTF-8 on every platform.",
    "Library authors are asked to test their packages against the release candidate.",
    "Code that relied on the old iteration order of the module's functions may need small changes.",
    "The standard library's documentation has a new section on migrating from the previous version.",
    "Several methods now accept keyword arguments, and the old positional forms are deprecated.",
    "The compiler's error messages point at the exact argument that has the wrong type.",
]


def tech_news(r) -> dict:
    """News about languages, tools and the software industry: programming words, no code block."""
    lang = _lang(r)
    v = _ids(r)
    w = _vals(r, lang, v, "")
    w.update(co=r.choice(COMPANIES), pm=PM[lang], p=r.randint(5, 40), year=r.randint(2015, 2023), month=r.choice(MONTHS),
             ver2=r.choice(VERSIONS[lang]).replace("Node ", "Node.js "))
    release = r.random() < 0.4
    title = _fmt(NEWS_TITLES[0] if release else r.choice(NEWS_TITLES[1:]), w)
    blocks: list = _paras(r, NEWS_SENT, r.randint(2, 4), 2, 4, w)
    if release:
        blocks[1:1] = [("h2", "Highlights"),
                       ("ul", [_fmt(x, w) for x in r.sample(RELEASE_NOTES[lang], r.randint(3, 7))]),
                       _para(r, RELEASE_SENT, r.randint(1, 3), w)]
    if r.random() < 0.15:         # now and then one inline command, as release news has
        blocks.append(("p", _segs(_fmt(r.choice(NEWS_INLINE), dict(w, up=_fmt(UPGRADE[lang], w))))))
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "tech_news"}


ROLES = ["Backend Engineer", "Full-Stack Developer", "Data Engineer", "Platform Engineer", "Site Reliability Engineer",
         "Embedded Software Engineer", "Developer Advocate", "Machine Learning Engineer"]
JOB_DO = [
    "Design, build and run services used by {m} customers a day.", "Work with product managers to plan new features.",
    "Review code and mentor junior developers.", "Improve our deployment pipeline and monitoring.",
    "Take part in an on-call rotation, about one week in {n}.", "Write clear documentation for internal tools.",
    "Keep our APIs fast, reliable and well tested.", "Help migrate legacy systems to the cloud.",
]
JOB_NEED = [
    "{y}+ years of professional experience with {Lang}.", "Experience with PostgreSQL or another relational database.",
    "Familiarity with Docker and Kubernetes.", "Some experience with Rust or Go is a plus.",
    "Comfortable with Git, code review and continuous integration.", "Good written English.",
    "Experience with AWS, GCP or Azure.", "An interest in performance and observability.",
    "Knowledge of TypeScript and modern front-end frameworks is welcome.",
]


def dev_jobs(r) -> dict:
    """A developer job post: languages and tools named, no code."""
    lang = _lang(r)
    w = _vals(r, lang, _ids(r), "")
    w["y"] = r.randint(2, 7)
    co, role = r.choice(COMPANIES), r.choice(ROLES)
    senior = r.choice(["", "Senior ", "Junior ", "Lead "])
    what = f"{senior.lower()}{role.lower()}"
    blocks: list = [("p", [f"{co} is hiring {'an' if what[0] in 'aeiou' else 'a'} {what} to join our team in {r.choice(CITIES)} "
                           "or remotely. We build software for "
                           f"{r.choice(['logistics', 'healthcare', 'banking', 'energy', 'retail'])} "
                           f"companies and our stack is mostly {w['Lang']}."]),
                    ("h2", "What you will do"), ("ul", [_fmt(x, w) for x in r.sample(JOB_DO, r.randint(3, 5))]),
                    ("h2", "What we are looking for"), ("ul", [_fmt(x, w) for x in r.sample(JOB_NEED, r.randint(3, 5))]),
                    ("p", [f"Salary {r.randint(45, 120)},000 to {r.randint(121, 170)},000 depending on experience, "
                           f"{r.randint(25, 32)} days of holiday. Apply by {r.choice(MONTHS)} {r.randint(1, 28)}."])]
    return {"title": f"{senior}{role} ({w['Lang']})", "blocks": blocks, "math_segments": 0, "topic": "dev_jobs"}


BOOKS = {"python": ["Fluent Snakes", "Python the Practical Way", "Effective Scripting"],
         "javascript": ["Eloquent Callbacks", "Node in Depth", "You Might Know JS"],
         "rust": ["Rust for the Impatient", "Ownership Explained", "Systems Programming with Rust"]}
BOOK_SENT = {
    "python": ["The chapters on generators, decorators and context managers are the best part of the book.",
               "It explains how the interpreter looks up attributes, which finally made descriptors click for me.",
               "Type hints get a whole chapter, including protocols and generics.",
               "The section on packaging and virtual environments is already out of date."],
    "javascript": ["The explanation of closures, promises and the event loop is the clearest I have read.",
                   "It spends a lot of time on modules, both CommonJS and ES modules.",
                   "The chapter on streams and buffers is aimed at people who write servers.",
                   "TypeScript is mentioned only in the last chapter."],
    "rust": ["Ownership, borrowing and lifetimes are introduced slowly and with many diagrams.",
             "Traits and generics come before async, which is the right order.",
             "The chapter on error handling compares Result, the question mark operator and panics.",
             "The example project, a small command-line tool, grows chapter by chapter."],
}
BOOK_GENERAL = [
    "Each chapter ends with exercises, and the solutions are online.", "At {m} pages it is not a quick read.",
    "I would recommend it to someone who already knows one other programming language.",
    "The index is thin and a few examples no longer compile with the current version.",
    "The publisher, {co}, sent a review copy; the opinions are mine.", "Rating: {n} out of 5.",
    "Beginners may find the pace too fast after the first third.", "The prose is friendly without being chatty.",
]


def prog_book_review(r) -> dict:
    """A review of a programming book: the language's concepts named throughout, no code."""
    lang = _lang(r)
    w = _vals(r, lang, _ids(r), "")
    w.update(co=r.choice(COMPANIES), m=r.randint(240, 780), n=r.randint(2, 5))
    book = r.choice(BOOKS[lang])
    sents = r.sample(BOOK_SENT[lang], r.randint(2, 4)) + r.sample(BOOK_GENERAL, r.randint(2, 4))
    r.shuffle(sents)
    text = " ".join(_decorate(r, _fmt(x, w)) for x in sents)
    return {"title": f"Book review: {book}", "blocks": [("p", [f"{book} by {name(r)} is a book about {w['Lang']}."]),
                                                       ("p", [text])],
            "math_segments": 0, "topic": "prog_book_review"}


GADGET_TITLES = ["How to clean your laptop keyboard safely", "How to set up a mesh Wi-Fi network",
                 "How to move photos from your phone to a computer", "How to make your laptop battery last longer",
                 "How to back up your computer to an external drive", "How to choose a monitor for working from home",
                 "How to free up space on your phone", "How to connect a second screen"]
GADGET_STEPS = [
    "Turn the device off and unplug it before you start.", "Open the settings app and look for the storage section.",
    "Use a soft brush or compressed air to remove dust.", "Place the router in a central spot, away from thick walls.",
    "Choose a cable that supports the resolution of your screen.", "Lower the screen brightness and close apps you are not using.",
    "Plug in the external drive and let the backup assistant run.", "Delete old downloads and videos you no longer need.",
    "Install the latest system updates, then restart.", "Check the warranty before opening the case.",
    "Pair the devices through the companion app.", "Keep at least {n}% of the disk free.",
]


def gadget_howto(r) -> dict:
    """A computer how-to for users (settings, cables, backups): technical, not programming."""
    w = {"n": r.randint(10, 25)}
    steps = [_fmt(x, w) for x in r.sample(GADGET_STEPS, r.randint(4, 6))]
    intro = ["This guide takes about ten minutes.", "You do not need any special tools.",
             "Most of this works on any recent computer.", "We tested these steps on several models."]
    outro = ["If something goes wrong, ask the shop where you bought it.", "Repeat this every few months.",
             "That is it: no technical knowledge needed.", "Share your own tips in the comments."]
    blocks = [("p", [_decorate(r, r.choice(intro))]), ("ul", steps), ("p", [_decorate(r, r.choice(outro))])]
    return {"title": r.choice(GADGET_TITLES), "blocks": blocks, "math_segments": 0, "topic": "gadget_howto"}


DOCS = {"code_q": code_q, "code_howto": code_howto, "code_tutorial": code_tutorial, "code_essay": code_essay,
        "tech_news": tech_news, "dev_jobs": dev_jobs, "gadget_howto": gadget_howto, "prog_book_review": prog_book_review}

RELATED = ["reverse a list", "read a file line by line", "fix 'borrow of moved value'", "parse JSON", "merge two dicts",
           "await in a loop", "undo a git commit", "sort by two keys", "install a package globally",
           "format a date", "handle a missing key", "run tests in parallel", "debounce input", "split a string"]


def related(r) -> list[str]:
    return [f"{r.choice(['How to', 'Best way to', 'Why can I not', 'Fastest way to'])} {r.choice(RELATED)} "
            f"in {r.choice(list(LANG_NAME.values()))}?" for _ in range(r.randint(3, 6))]
