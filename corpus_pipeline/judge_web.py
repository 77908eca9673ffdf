"""The judging page: ``corpus-pipeline judge RUN --serve``.

Serves an iteration's drawn sample (``RUN/iter=NNN/judge_sample``) one page at a time: its extracted
text with maths shown as TeX, its URL and host; a person answers maths / not maths / unsure with a
key, and each answer is saved at once to ``RUN/judgements/judgements.jsonl`` (page, verdict, who,
when), so judging can stop and resume anywhere.  Pages come in rounds over the strata (every
stratum's first page, then every stratum's second, ...), so a half-judged sample is still a random
sample of every stratum.

The server is the annotation page's (:class:`annotate_web.AnnotateServer`, same checks: loopback by
default, the URL's token, the Host header, same-origin POSTs with the CSRF token, JSON only, 1 MB
bodies); only the page, its state, its items and the save differ.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass

from . import judging as jg
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

    def state(self) -> dict:
        js = jg.read_judgements(self.run)
        mine = {}
        others: dict = {}
        for j in sorted(js, key=lambda j: j["at"]):
            if j["judge"] == self.judge:
                mine[j["page_id"]] = j["verdict"]
            else:
                others.setdefault(j["page_id"], set()).add(j["judge"])
        pages = [{"id": k, "url": p["url"], "host": p["host"], "title": p.get("title") or "",
                  "score": p.get("score"), "stratum": p["stratum"], "verdict": mine.get(p["page_id"]),
                  "others": len(others.get(p["page_id"], ()))} for k, p in enumerate(self.pages)]
        prof = profile_of_label(self.positive)
        return {"run": self.run.uri, "iteration": self.iteration, "judge": self.judge,
                "file": jg.judgements_path(self.run), "pages": pages,
                "judged": sum(1 for p in pages if p["verdict"]),
                "verdicts": list(jg.verdicts(self.positive)), "noun": prof.noun, "question": prof.question,
                "criterion": prof.criterion}


def judging_order(rows: list[dict]) -> list[dict]:
    """Sample rows in rounds over the strata: rank 1 of every stratum, then rank 2, ..."""
    return sorted(rows, key=lambda r: (r["rank"], r["stratum"]))


def build_view(run, iteration: int, judge: str) -> JudgeView:
    got = jg.read_sample(run, iteration)
    if got is None:
        raise ValueError(f"iteration {iteration} has no judging sample")
    return JudgeView(run, iteration, judge, judging_order(got[1]), jg.run_positive(run))


def parse_verdicts(body: bytes, view: JudgeView) -> dict:
    """``{page index: verdict}`` from ``{"verdicts": {"<index>": "math" | "not-math" | "unsure"}}``
    (the run's profile's verdicts), or :class:`SaveError`."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SaveError(f"the request body is not JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), dict) or not data["verdicts"]:
        raise SaveError('expected a JSON object {"verdicts": {"<page number>": "' + "|".join(jg.verdicts(view.positive))
                        + '"}}')
    if len(data["verdicts"]) > MAX_VERDICTS:
        raise SaveError(f"at most {MAX_VERDICTS} verdicts per request")
    out = {}
    for k, v in data["verdicts"].items():
        if not (isinstance(k, str) and k.isdigit() and int(k) < len(view.pages)):
            raise SaveError(f"{k!r} is not a page number of this sample")
        allowed = jg.verdicts(view.positive)
        if v not in allowed:
            raise SaveError(f"page {k}: verdict must be one of {', '.join(allowed)}, got {v!r}")
        out[int(k)] = v
    return out


class JudgeServer(AnnotateServer):
    command = "judge"
    template = "judge_web.html"

    def page_state(self) -> dict:
        return self.view.state()

    def item(self, n: int):
        if n >= len(self.view.pages):
            return None
        p = self.view.pages[n]
        return {"id": n, "url": p["url"], "host": p["host"], "title": p.get("title") or "", "text": p.get("text") or "",
                "text_chars": p.get("text_chars"), "score": p.get("score"), "stratum": p["stratum"]}

    def apply_save(self, body: bytes) -> dict:
        verdicts = parse_verdicts(body, self.view)
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        new = [{"page_id": self.view.pages[k]["page_id"], "url": self.view.pages[k]["url"], "verdict": v,
                "judge": self.view.judge, "at": at} for k, v in sorted(verdicts.items())]
        rows = jg.merge(jg.read_judgements(self.view.run), new)
        path = jg.write_judgements(self.view.run, rows)
        self.log(f"saved {len(new)} verdicts")
        state = self.view.state()
        return {"saved": len(new), "file": path, "judged": state["judged"], "total": len(state["pages"])}
