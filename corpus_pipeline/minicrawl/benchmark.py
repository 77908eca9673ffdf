"""A small made-up benchmark for the mini-crawl, some of whose items are planted in its pages, so a
run with ``--benchmarks DIR/benchmarks`` shows decontamination at work.

``DIR/benchmarks/gsm8k/test.jsonl`` holds :data:`N_ITEMS` GSM8K-style word problems written by a
seeded generator (no real benchmark text).  :data:`PLANTED_LONG` long items are each appended as
one paragraph to an English maths page (a 10-gram match: that line is removed) and one short
item (under 10 words) to another (an exact short-question match: the page is removed).  The
other items appear nowhere.  Its own ``random.Random`` keeps every other draw of the generator,
so planting changes the text of a few pages and nothing else.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

FILE = "benchmarks/gsm8k/test.jsonl"
N_ITEMS = 8
PLANTED_LONG = 3
PLANT_EVERY = 5              # plant into every 5th eligible page until the planted items are used
ELIGIBLE_KINDS = ("math_tex_q", "math_prose")

_NAMES = ["Mara", "Tobias", "Ines", "Kofi", "Lena", "Ravi", "Yuki", "Omar", "Sofia", "Jonas"]
_THINGS = [("apples", "basket"), ("marbles", "jar"), ("stickers", "album"), ("pencils", "box"),
           ("stamps", "folder"), ("shells", "bucket")]


def make_items(random_seed: int) -> list[dict]:
    r = random.Random(f"minicrawl-benchmark-{random_seed}")
    items = []
    for k in range(N_ITEMS - 1):
        name, other = r.sample(_NAMES, 2)
        thing, box = r.choice(_THINGS)
        a, b, c = r.randint(12, 60), r.randint(2, 9), r.randint(3, 11)
        q = (f"{name} puts {a} {thing} in each {box} and fills {b} of them, then gives {c} {thing} "
             f"to {other}. How many {thing} does {name} keep?")
        items.append({"id": f"minicrawl-{random_seed}-{k}", "question": q, "answer": f"#### {a * b - c}"})
    x, y = r.randint(13, 29), r.randint(13, 29)
    items.append({"id": f"minicrawl-{random_seed}-{N_ITEMS - 1}", "question": f"Compute {x} times {y} exactly.",
                  "answer": f"#### {x * y}"})
    return items


class Planter:
    """Decides which pages get a benchmark item (deterministic: the n-th eligible page)."""

    def __init__(self, random_seed: int):
        self.items = make_items(random_seed)
        self.queue = self.items[:PLANTED_LONG] + [self.items[-1]]
        self.seen = 0
        self.planted: list[dict] = []

    def maybe_plant(self, e: dict) -> None:
        if not self.queue or e["kind"] not in ELIGIBLE_KINDS or e["doc"].get("lang") == "zh":
            return
        self.seen += 1
        if self.seen % PLANT_EVERY:
            return
        item = self.queue.pop(0)
        e["doc"]["blocks"].append(("p", [item["question"]]))
        self.planted.append({"url": e["url"], "item_id": item["id"],
                             "rule": "short_exact" if item is self.items[-1] else "ngram"})

    def write(self, out: Path) -> None:
        p = Path(out) / FILE
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="\n") as f:
            for it in self.items:
                f.write(json.dumps(it, ensure_ascii=False) + "\n")

    def manifest(self) -> dict:
        return {"file": FILE, "items": len(self.items), "planted": list(self.planted)}
