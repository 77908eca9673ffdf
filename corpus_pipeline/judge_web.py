"""The judging page: ``corpus-pipeline judge RUN --serve``.

Serves an iteration's drawn sample (``RUN/iter=NNN/judge_sample``) one page at a time: its extracted
text with its maths rendered (KaTeX, served by the page's own server), its URL and host -- blind: the
classifier's score and the page's stratum are hidden unless the judge asks to see them (judges anchor on
a score, and the estimates assume verdicts on content alone); a person answers maths / not maths / unsure with a
key, and each answer is saved at once to ``RUN/judgements/judgements.jsonl`` (page, verdict, who,
when), so judging can stop and resume anywhere.  Pages come in rounds over the strata (every
stratum's first page, then every stratum's second, ...), so a half-judged sample is still a random
sample of every stratum; the page shows the progress per stratum.  Without ``--judge`` the page asks
the judge's name once and the browser keeps it (``localStorage``), instead of taking the account's name.

The server is the annotation page's (:class:`annotate_web.AnnotateServer`, same checks: loopback by
default, the URL's token, the Host header, same-origin POSTs with the CSRF token, JSON only, 1 MB
bodies); only the page, its state, its items and the save differ.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Optional

from . import judging
from .profiles import by_label as profile_of_label
from .annotate_web import MAX_BODY as MAX_BODY_BYTES  # noqa: F401 - the shared limit, named for the tests
from .annotate_web import AnnotateServer, SaveError

MAX_VERDICTS = 1000     # verdicts in one save request


@dataclass
class JudgeView:
    run: object          # RunFolder
    iteration: int
    judge: str
    pages: list          # sample rows in judging order; a page's id is its index here
    positive: str = "math"   # the run's profile label: the verdicts are it, not-<it>, unsure
    ask_name: bool = False   # no --judge: the page asks the judge's name once (kept by the browser)

    def state(self, judge: Optional[str] = None) -> dict:
        """The page's state for ``judge`` (default: the command's): the sample with this judge's verdicts."""
        judge = judge or self.judge
        js = judging.read_judgements(self.run)
        mine = {}
        others: dict = {}
        for j in sorted(js, key=lambda j: j["at"]):
            if j["judge"] == judge:
                mine[j["page_id"]] = j["verdict"]
            else:
                others.setdefault(j["page_id"], set()).add(j["judge"])
        pages = [{"id": k, "url": p["url"], "host": p["host"], "title": p.get("title") or "",
                  "score": p.get("score"), "stratum": p["stratum"], "verdict": mine.get(p["page_id"]),
                  "others": len(others.get(p["page_id"], ()))} for k, p in enumerate(self.pages)]
        prof = profile_of_label(self.positive)
        return {"run": self.run.uri, "iteration": self.iteration, "judge": judge, "ask_name": self.ask_name,
                "file": judging.judgements_path(self.run), "pages": pages,
                "judged": sum(1 for p in pages if p["verdict"]),
                "verdicts": list(judging.verdicts(self.positive)), "noun": prof.noun, "question": prof.question,
                "criterion": prof.criterion}


def judging_order(rows: list[dict]) -> list[dict]:
    """Sample rows in rounds over the strata: rank 1 of every stratum, then rank 2, ..."""
    return sorted(rows, key=lambda r: (r["rank"], r["stratum"]))


def build_view(run, iteration: int, judge: str, ask_name: bool = False) -> JudgeView:
    got = judging.read_sample(run, iteration)
    if got is None:
        raise ValueError(f"iteration {iteration} has no judging sample")
    return JudgeView(run, iteration, judge, judging_order(got[1]), judging.run_positive(run), ask_name)


MAX_NAME = 64


def judge_name(name) -> str:
    """A judge's name as the page sends it: 1-64 printable characters, trimmed; else :class:`SaveError`."""
    if not isinstance(name, str) or not name.strip():
        raise SaveError("the judge's name must be a non-empty string")
    name = name.strip()
    if len(name) > MAX_NAME or any(not c.isprintable() for c in name):
        raise SaveError(f"the judge's name must be at most {MAX_NAME} printable characters")
    return name


def parse_verdicts(body: bytes, view: JudgeView) -> dict:
    """``{page index: verdict}`` from ``{"verdicts": {"<index>": "math" | "not-math" | "unsure"}}``
    (the run's profile's verdicts), or :class:`SaveError`."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SaveError(f"the request body is not JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), dict) or not data["verdicts"]:
        raise SaveError('expected a JSON object {"verdicts": {"<page number>": "' + "|".join(judging.verdicts(view.positive))
                        + '"}}')
    if len(data["verdicts"]) > MAX_VERDICTS:
        raise SaveError(f"at most {MAX_VERDICTS} verdicts per request")
    out = {}
    for k, v in data["verdicts"].items():
        if not (isinstance(k, str) and k.isdigit() and int(k) < len(view.pages)):
            raise SaveError(f"{k!r} is not a page number of this sample")
        allowed = judging.verdicts(view.positive)
        if v not in allowed:
            raise SaveError(f"page {k}: verdict must be one of {', '.join(allowed)}, got {v!r}")
        out[int(k)] = v
    return out


class JudgeServer(AnnotateServer):
    command = "judge"
    template = "judge_web.html"

    def page_state(self, query: Optional[dict] = None) -> dict:
        name = ((query or {}).get("judge") or [None])[0]
        if name is not None and self.view.ask_name:
            try:
                return self.view.state(judge_name(name))
            except SaveError:
                pass
        return self.view.state()

    def item(self, n: int):
        if n >= len(self.view.pages):
            return None
        p = self.view.pages[n]
        return {"id": n, "url": p["url"], "host": p["host"], "title": p.get("title") or "", "text": p.get("text") or "",
                "text_chars": p.get("text_chars"), "score": p.get("score"), "stratum": p["stratum"]}

    def apply_save(self, body: bytes) -> dict:
        verdicts = parse_verdicts(body, self.view)
        judge = self.view.judge
        if self.view.ask_name:           # the name the page asked for (--judge, when given, wins)
            name = json.loads(body.decode("utf-8")).get("judge")
            judge = judge_name(name) if name is not None else judge
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        new = [{"page_id": self.view.pages[k]["page_id"], "url": self.view.pages[k]["url"], "verdict": v,
                "judge": judge, "at": at} for k, v in sorted(verdicts.items())]
        rows = judging.merge(judging.read_judgements(self.view.run), new)
        path = judging.write_judgements(self.view.run, rows)
        self.log(f"saved {len(new)} verdicts")
        state = self.view.state(judge)
        return {"saved": len(new), "file": path, "judged": state["judged"], "total": len(state["pages"])}
