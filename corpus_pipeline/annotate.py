"""Path worksheet, marked-path file, proposer and carry-forward (pure; no Spark).

Step 4 of the DeepSeekMath loop: a person (``--annotate manual``) or the
proposer (``--annotate auto``, the default) marks URL path prefixes of
flagged domains whose pages are mathematical; uncollected pages under marked
prefixes join the next iteration's seed (``spark/domains.py``).

Files written into ``RUN/iter=NNN/annotations/`` by :func:`write_worksheet`:

``worksheet.md``
    Readable worksheet: per host, its prefixes with pages, collected,
    fraction, whether marked, and example pages (title and URL), collected and
    not collected.
``marked_paths.txt``
    The file to edit.  UTF-8 text, one marked path ``<host><prefix>`` per line,
    for example ``mathoverflow.net/questions/``.  ``#`` starts a comment (to
    the end of the line); blank lines are ignored.  It holds, in this order:
    * marks carried forward from earlier iterations, active, tagged
      ``# carried: <who first decided>, since iter <n>``;
    * the proposer's marks, active, tagged ``# proposer: <stats>``;
    * every other listed prefix as a commented-out candidate
      ``# mathoverflow.net/users/   # 40 pages, 1 collected (2.5%)``.

    To mark a candidate, delete the leading ``# ``; to add a path, write a new
    line; to unmark, delete the line or comment it out.  A line's decider is
    read from its tag: ``# carried`` -> carried, ``# proposer`` -> proposer,
    anything else (no tag, a free note, or the candidate's stats) -> person.
``prefixes.json``
    Machine-readable index: iteration, the prefix rows, the previous and
    proposed marks and the set of known ``(host, prefix)`` pairs the marked
    file is validated against (``corpus-pipeline annotate`` reads it).

Validation (:func:`read_marks`): every active line must be ``<host><prefix>``
with a non-empty host (no scheme, port or user info), a prefix that starts
and ends with ``/`` and no whitespace inside; with ``known`` given, the host
must be one of the known hosts and the pair a known one (the flagged hosts'
listed prefixes plus the marks carried forward).  Any bad line raises
:class:`errors.InputFileError` naming the file and the first bad line (and
counting the others) before anything is returned, so nothing from an
invalid file is ever applied.  A duplicate line is kept once (first wins).

Proposer defaults (``[annotate]``, ``AnnotateConfig``): a prefix is proposed
when ``fraction >= propose_min_fraction`` (0.5), ``pages >=
propose_min_pages`` (5) and ``collected >= propose_min_collected`` (3), its
last segment is a topical folder (not a date, pagination, tag, author,
archive or id segment: ``domains.structural_reason``) and its share beats the
rest of its host by ``propose_min_lift`` (0.3; a prefix with fewer than
``propose_min_rest_pages`` (5) other pages on its host needs
``propose_whole_host_fraction``, 0.9) - see :func:`judge`; the
shallowest passing prefix wins and deeper prefixes it covers are not marked.
``worksheet_max_prefixes`` (40) candidates are listed per host (most pages
first); marks and proposals are always written.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Iterable, Optional

from . import fs as fsmod
from .config import AnnotateConfig
from .domains import structural_reason
from .errors import InputFileError

WORKSHEET = "worksheet.md"
MARKED = "marked_paths.txt"
INDEX = "prefixes.json"
REJECTED = "rejected_paths.txt"     # prefixes a person rejected: never offered again in later iterations

@dataclass(frozen=True)
class Mark:
    """One marked path.

    ``decided_by``: who put the line in this iteration's file ("person",
    "proposer", or "carried" forward from an earlier iteration).  ``origin``:
    who first decided (person or proposer; equals ``decided_by`` unless
    carried).  ``since``: the iteration it was first marked in (None: unknown).
    """

    host: str
    prefix: str
    decided_by: str = "person"
    note: str = ""
    origin: str = ""
    since: Optional[int] = field(default=None, compare=False)

    @property
    def path(self) -> str:
        return f"{self.host}{self.prefix}"

    @property
    def first_decider(self) -> str:
        return self.origin or (self.decided_by if self.decided_by != "carried" else "person")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Mark":
        return cls(d["host"], d["prefix"], d.get("decided_by", "person"), d.get("note", "") or "",
                   d.get("origin", "") or "", d.get("since"))


# ---------------------------------------------------------------- proposer
def _fraction(row: dict) -> float:
    f = row.get("fraction")
    if f is None:
        return (row["collected"] / row["pages"]) if row["pages"] else 0.0
    return float(f)


def _stats(row: dict) -> str:
    return f"{row['pages']} pages, {row['collected']} collected ({_fraction(row):.1%})"


def covered_by(prefix: str, host: str, marks: Iterable[Mark]) -> Optional[Mark]:
    """The first mark of ``host`` whose prefix is a prefix of ``prefix`` (itself included)."""
    for m in marks:
        if m.host == host and prefix.startswith(m.prefix):
            return m
    return None


def _rest(row: dict) -> Optional[tuple[int, int]]:
    """(pages, collected) of the prefix's host outside the prefix; None when the row has no host totals."""
    hp, hc = row.get("host_pages"), row.get("host_collected")
    if hp is None or hc is None:
        return None
    return max(int(hp) - int(row["pages"]), 0), max(int(hc) - int(row["collected"]), 0)


def hist(row: dict, key: str) -> list[int]:
    """A score histogram of a prefix row (``hist_collected`` / ``hist_uncollected``; JSON in Spark rows)."""
    h = row.get(key)
    if isinstance(h, str):
        try:
            h = json.loads(h)
        except ValueError:
            h = None
    return [int(x or 0) for x in h] if isinstance(h, list) else []


_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(h: list[int]) -> str:
    """``▁▁▂▇█``: a score histogram (low scores left) in one line of text."""
    top = max(h, default=0)
    return "".join(_BARS[0 if not v else 1 + int((len(_BARS) - 2) * v / top)] for v in h) if top else ""


def _markup_shares(row: dict) -> Optional[tuple[float, float]]:
    """(collected, uncollected) shares of pages with maths markup; None without the columns."""
    mc, mu = row.get("markup_collected"), row.get("markup_uncollected")
    if mc is None or mu is None:
        return None
    c, u = int(row["collected"]), int(row["pages"]) - int(row["collected"])
    return (int(mc) / c if c else 0.0), (int(mu) / u if u else 0.0)


def near_share(row: dict, near_score: float) -> Optional[float]:
    """Share of the prefix's uncollected pages scoring at least ``near_score`` (None: no histogram)."""
    h = hist(row, "hist_uncollected")
    if not h or not sum(h):
        return None
    k = min(int(near_score * len(h) + 1e-9), len(h))
    return sum(h[k:]) / sum(h)


def look_alike(row: dict, cfg: AnnotateConfig) -> tuple[bool, str]:
    """Do the prefix's uncollected pages look like its collected ones?  Their maths markup share is
    at least ``propose_markup_ratio`` of the collected pages' share, and at least
    ``propose_near_share`` of them score ``propose_near_score`` or more (just under the threshold,
    not like pages the classifier is sure are not maths)."""
    m = _markup_shares(row)
    near = near_share(row, cfg.propose_near_score)
    if m is None or near is None:
        return False, "no evidence on the uncollected pages"
    mc, mu = m
    if mc > 0 and mu < cfg.propose_markup_ratio * mc:
        return False, f"uncollected pages carry less maths markup ({mu:.0%} against {mc:.0%} collected)"
    if near < cfg.propose_near_share:
        return False, (f"only {near:.0%} of the uncollected pages score {cfg.propose_near_score:g} or more: "
                       "most look unlike the collected ones")
    return True, f"uncollected pages look alike: markup {mu:.0%} (collected {mc:.0%}), {near:.0%} score >= {cfg.propose_near_score:g}"


def evidence(row: dict) -> str:
    """The numbers a proposal rests on: the prefix's share against the rest of its host, maths markup
    and score histograms of its collected and uncollected pages."""
    text = _stats(row)
    rest = _rest(row)
    if rest is not None:
        rp, rc = rest
        text += f"; rest of host {rp} pages, {rc} collected ({rc / rp:.1%})" if rp else "; the whole host"
    m = _markup_shares(row)
    if m is not None:
        text += f"; maths markup {m[0]:.0%} collected, {m[1]:.0%} not"
    hc, hu = hist(row, "hist_collected"), hist(row, "hist_uncollected")
    if sum(hc) or sum(hu):
        text += f"; scores collected |{sparkline(hc)}| not |{sparkline(hu)}|"
    return text


def judge(row: dict, cfg: AnnotateConfig) -> tuple[bool, str]:
    """(proposable, reason) for one prefix row: the proposer's rule, with the reason a person reads.

    Every proposal needs ``propose_min_pages`` pages and ``propose_min_collected`` collected, and a
    topical folder or the host's root (not a date, page number, tag, author, archive or id segment:
    ``domains.structural_reason``).  Then one of:
    * the whole host (the root ``/``, or a folder with fewer than ``propose_min_rest_pages`` pages
      outside it): its collected pages dominate (a share of ``propose_whole_host_fraction``) and
      its uncollected pages look like the collected ones (:func:`look_alike`) or sit where they do
      (``row["host_folders"] == 0``: the host files every page by id or date, in no topical folder,
      so no folder can be marked instead; the seed-addition check, ``annotate.seed_min_score``,
      keeps the pages the classifier is sure are not maths out of the seed);
    * a folder that stands out: a share of ``propose_min_fraction`` that beats the rest of its host
      by ``propose_min_lift`` (a folder of a maths host that only inherits the host's rate is not
      evidence);
    * a folder that holds the host's maths: ``propose_min_host_share`` of the host's collected
      pages, a share of ``propose_min_folder_fraction``, its uncollected pages alike.
    """

    f = _fraction(row)
    if row["pages"] < cfg.propose_min_pages:
        return False, f"fewer than {cfg.propose_min_pages} pages"
    if row["collected"] < cfg.propose_min_collected:
        return False, f"fewer than {cfg.propose_min_collected} collected"
    why = structural_reason(row["prefix"])
    if why is not None:
        return False, f"{why} segment: files pages, not a topic"
    rest = _rest(row)
    whole = row["prefix"] == "/" or (rest is not None and rest[0] < cfg.propose_min_rest_pages)
    if whole:
        if f < cfg.propose_whole_host_fraction:
            return False, f"whole host: collected share below {cfg.propose_whole_host_fraction:.0%}"
        ok, how = look_alike(row, cfg)
        if ok:
            return True, "whole host; " + how
        if row["prefix"] == "/" and row.get("host_folders") == 0:
            return True, "whole host, every page filed by id or date (no topical folder)"
        return False, "whole host: " + how
    if rest is None:
        return (True, "share") if f >= cfg.propose_min_fraction else (False, f"share below {cfg.propose_min_fraction:.0%}")
    rp, rc = rest
    lift = f - rc / rp
    if f >= cfg.propose_min_fraction and lift >= cfg.propose_min_lift:
        return True, f"+{lift * 100:.0f} points over the rest of its host"
    host_c = int(row.get("host_collected") or 0)
    held = row["collected"] / host_c if host_c else 0.0
    if held >= cfg.propose_min_host_share and f >= cfg.propose_min_folder_fraction:
        ok, how = look_alike(row, cfg)
        if ok:
            return True, f"holds {held:.0%} of the host's collected pages; " + how
        return False, f"holds {held:.0%} of the host's collected pages, but " + how
    if f < cfg.propose_min_fraction:
        return False, f"share below {cfg.propose_min_fraction:.0%}"
    return False, f"does not stand out from the rest of its host (+{lift * 100:.0f} points)"


def with_host_folders(prefix_rows: list[dict]) -> list[dict]:
    """The rows, each with ``host_folders``: how many topical folders (prefixes other than the root)
    its host has in the statistics."""
    n: dict = {}
    for r in prefix_rows:
        if r["prefix"] != "/":
            n[r["host"]] = n.get(r["host"], 0) + 1
    return [dict(r, host_folders=n.get(r["host"], 0)) for r in prefix_rows]


def propose(prefix_rows: list[dict], cfg: AnnotateConfig) -> list[Mark]:
    """Proposer marks (decided_by "proposer"), sorted by host then prefix: the shallowest
    prefix :func:`judge` accepts; deeper prefixes it covers are not proposed again.  Each
    mark's note is its :func:`evidence`."""
    passing = [r for r in with_host_folders(prefix_rows) if judge(r, cfg)[0]]
    passing.sort(key=lambda r: (r["host"], r["prefix"].count("/"), r["prefix"]))
    chosen: list[Mark] = []
    for r in passing:
        if covered_by(r["prefix"], r["host"], chosen):
            continue
        chosen.append(Mark(r["host"], r["prefix"], "proposer", evidence(r), "proposer"))
    return sorted(chosen, key=lambda m: (m.host, m.prefix))


# ---------------------------------------------------------------- carry-forward
def carry_forward(previous_marks: Iterable[Mark], iteration: int) -> list[Mark]:
    """Earlier iterations' marks as "carried" marks, keeping who first decided and since when."""
    out, seen = [], set()
    for m in previous_marks:
        key = (m.host, m.prefix)
        if key in seen:
            continue
        seen.add(key)
        since = m.since if m.since is not None else max(iteration - 1, 1)
        out.append(Mark(m.host, m.prefix, "carried", _user_note(m.note), m.first_decider, since))
    return out


def carried(m: Mark, since: Optional[int] = None) -> Mark:
    """``m`` as a mark carried forward (keeps who first decided and since when)."""
    if m.decided_by == "carried":
        return m
    return Mark(m.host, m.prefix, "carried", _user_note(m.note), m.first_decider,
                m.since if m.since is not None else since)


def known_prefixes(prefix_rows: Iterable[dict], previous_marks: Iterable[Mark] = ()) -> set:
    """The (host, prefix) pairs a marked file may name: listed prefixes plus carried marks."""
    known = {(r["host"], r["prefix"]) for r in prefix_rows}
    known.update((m.host, m.prefix) for m in previous_marks)
    return known


# ---------------------------------------------------------------- writing
def _examples(row: dict) -> list[dict]:
    ex = row.get("examples") or []
    if isinstance(ex, str):
        try:
            ex = json.loads(ex)
        except ValueError:
            ex = []
    return [e for e in ex if isinstance(e, dict)]


def _md(text: str) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ").replace("[", "\\[").replace("]", "\\]").strip()


def write_worksheet(
    dir_uri: str,
    prefix_rows: list[dict],
    previous_marks: list[Mark],
    iteration: int,
    proposed: Optional[list[Mark]] = None,
    domains: Optional[list[dict]] = None,
    max_listed: Optional[int] = None,
    spark=None,
    cfg: Optional[AnnotateConfig] = None,
) -> dict:
    """Write ``worksheet.md``, ``marked_paths.txt`` and ``prefixes.json`` into ``dir_uri``.

    ``previous_marks`` (the marks read from the previous iteration's file) are
    written as active "carried" lines; ``proposed`` (for example
    ``propose(prefix_rows, cfg)`` in auto mode) as active "proposer" lines,
    except where already carried.  ``domains`` (DOMAINS rows) adds domain
    totals to the worksheet; ``cfg`` (the proposer's rule) gives each prefix its verdict
    and reason in the worksheet.  Returns ``{"worksheet", "marked", "index"}``
    paths plus counts.
    """
    max_listed = max_listed or AnnotateConfig().worksheet_max_prefixes
    fs = fsmod.get_fs(dir_uri, spark)
    prefix_rows = with_host_folders(prefix_rows)
    rows = sorted(prefix_rows, key=lambda r: (r["host"], r.get("depth") or r["prefix"].count("/") - 1,
                                              r["prefix"]))
    # marks of earlier iterations are carried; a mark decided in this iteration (decided_by person or
    # proposer and not older than this iteration) passed in previous_marks keeps its decider
    old = [m for m in previous_marks if m.decided_by == "carried" or (m.since is not None and m.since < iteration)]
    fresh = [m for m in previous_marks if m not in old] + list(proposed or [])
    carried_marks = carry_forward(old, iteration)
    active: list[Mark] = list(carried_marks)
    active_keys = {(m.host, m.prefix) for m in active}
    for m in fresh:
        if (m.host, m.prefix) not in active_keys:
            who = m.decided_by if m.decided_by in ("person", "proposer") else "person"
            active.append(Mark(m.host, m.prefix, who, m.note, who, iteration))
            active_keys.add((m.host, m.prefix))
    by_host: dict[str, list[dict]] = {}
    for r in rows:
        by_host.setdefault(r["host"], []).append(r)
    listed: dict[str, list[dict]] = {}
    for host, hr in by_host.items():
        top = sorted(hr, key=lambda r: (-r["pages"], r["prefix"]))[:max_listed]
        listed[host] = sorted(top, key=lambda r: (r["prefix"].count("/"), r["prefix"]))
    dom_by_host = {d["host"]: d for d in (domains or [])}

    marked_text = _render_marked(iteration, rows, listed, active)
    worksheet_text = _render_worksheet(iteration, listed, by_host, active, dom_by_host, cfg)
    known = sorted(known_prefixes(rows, previous_marks))
    index = {
        "iteration": iteration,
        "rows": [dict(r, examples=_examples(r)) for r in rows],
        "previous_marks": [m.to_dict() for m in previous_marks],
        "proposed": [m.to_dict() for m in (proposed or [])],
        "known": [list(k) for k in known],
        "files": {"worksheet": WORKSHEET, "marked": MARKED},
    }
    fs.mkdirs(dir_uri)
    paths = {"worksheet": fsmod.join(dir_uri, WORKSHEET), "marked": fsmod.join(dir_uri, MARKED),
             "index": fsmod.join(dir_uri, INDEX)}
    fs.write_text(paths["index"], json.dumps(index, indent=1, ensure_ascii=False, sort_keys=True))
    fs.write_text(paths["worksheet"], worksheet_text)
    fs.write_text(paths["marked"], marked_text)
    return dict(paths, hosts=len(by_host), prefixes=len(rows), carried=len(carried_marks),
                proposed=sum(m.decided_by == "proposer" for m in active),
                person=sum(m.decided_by == "person" for m in active))


def _render_marked(iteration, rows, listed, active) -> str:
    by_key = {(r["host"], r["prefix"]): r for r in rows}
    width = max([len(m.path) for m in active] + [len(r["host"] + r["prefix"]) for hr in listed.values()
                                                 for r in hr] + [30]) + 4
    out = [
        f"# corpus_pipeline marked paths: iteration {iteration}",
        "#",
        "# One marked path per line: <host><prefix>, for example  mathoverflow.net/questions/",
        "# Pages under a marked path that were not collected join the next iteration's seed.",
        "# Mark a candidate: delete its leading '# '.  Add a path: write a new line.",
        "# Unmark: delete the line or put '# ' in front.  '#' starts a comment; keep the tags",
        "# '# carried: ...' and '# proposer: ...' to record who decided (no tag: you).",
        "# Only hosts and prefixes listed in worksheet.md (or carried forward) are accepted.",
        "",
    ]
    active_keys = {(m.host, m.prefix) for m in active}
    carried_lines = [m for m in active if m.decided_by == "carried"]
    proposer_lines = [m for m in active if m.decided_by == "proposer"]
    if carried_lines:
        out.append("# --- marked in earlier iterations (carried forward) ---")
        for m in carried_lines:
            tag = f"carried: {m.first_decider}, since iter {m.since}" if m.since else f"carried: {m.first_decider}"
            if m.note:
                tag += f"; {m.note}"
            out.append(f"{m.path:<{width}}# {tag}")
        out.append("")
    if proposer_lines:
        out.append("# --- proposed automatically (delete or comment out to reject) ---")
        for m in proposer_lines:
            r = by_key.get((m.host, m.prefix))
            out.append(f"{m.path:<{width}}# proposer: {evidence(r) if r else m.note}")
        out.append("")
    person_lines = [m for m in active if m.decided_by == "person"]
    if person_lines:
        out.append("# --- marked by a person in this iteration ---")
        for m in person_lines:
            out.append(f"{m.path:<{width}}# {m.note}" if m.note else m.path)
        out.append("")
    for host, hr in listed.items():
        cands = [r for r in hr if (host, r["prefix"]) not in active_keys]
        if not cands:
            continue
        out.append(f"# --- candidates: {host} ---")
        for r in cands:
            under = covered_by(r["prefix"], host, active)
            extra = f"; under marked {under.prefix}" if under is not None else ""
            out.append(f"# {host + r['prefix']:<{width - 2}}# {_stats(r)}{extra}")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _render_worksheet(iteration, listed, by_host, active, dom_by_host, cfg=None) -> str:
    cfg = cfg or AnnotateConfig()
    out = [
        f"# Path worksheet: iteration {iteration}",
        "",
        "Flagged domains have more than the configured fraction of their pages collected by this",
        "iteration's classifier. Mark the URL path prefixes whose pages are mathematical by editing",
        f"`{MARKED}` in this folder (one `<host><prefix>` per line, e.g. `mathoverflow.net/questions/`).",
        "Uncollected pages under a marked prefix become training positives of the next iteration.",
        "",
        f"Hosts: {len(by_host)}. Prefixes: {sum(len(v) for v in by_host.values())}. "
        f"Marked now: {len(active)} "
        f"({sum(m.decided_by == 'carried' for m in active)} carried, "
        f"{sum(m.decided_by == 'proposer' for m in active)} proposed).",
        "",
    ]
    for host in sorted(listed):
        d = dom_by_host.get(host)
        head = f"## {host}"
        if d:
            head += f" (domain: {d['pages']} pages, {d['collected']} collected, {float(d['fraction']):.1%})"
        out += [head, "", "| prefix | depth | pages | collected | fraction | rest of host | maths markup (collected / not) "
                "| scores collected / not | marked | proposer |",
                "|---|---:|---:|---:|---:|---:|---|---|---|---|"]
        for r in listed[host]:
            m = covered_by(r["prefix"], host, active)
            mk = ""
            if m is not None:
                mk = m.decided_by if m.prefix == r["prefix"] else f"under {m.prefix}"
            rest = _rest(r)
            rest_txt = f"{rest[1]}/{rest[0]}" if rest is not None else ""
            ok, why = judge(r, cfg)
            ms = _markup_shares(r)
            mtxt = f"{ms[0]:.0%} / {ms[1]:.0%}" if ms is not None else ""
            hc, hu = hist(r, "hist_collected"), hist(r, "hist_uncollected")
            htxt = f"`{sparkline(hc) or '-'}` / `{sparkline(hu) or '-'}`" if (sum(hc) or sum(hu)) else ""
            out.append(f"| `{r['prefix']}` | {r.get('depth') if r.get('depth') is not None else r['prefix'].count('/') - 1} | "
                       f"{r['pages']} | {r['collected']} | {_fraction(r):.1%} | {rest_txt} | {mtxt} | {htxt} | {mk} | "
                       f"{'yes: ' if ok else 'no: '}{_md(why)} |")
        hidden = len(by_host[host]) - len(listed[host])
        if hidden > 0:
            out.append(f"\n({hidden} smaller prefixes not listed; see {INDEX})")
        out.append("")
        for r in listed[host]:
            ex = _examples(r)
            if not ex:
                continue
            out.append(f"- `{r['prefix']}`")
            for e in ex:
                kind = "collected" if e.get("collected") else "not collected"
                out.append(f"  - {kind}: [{_md(e.get('title') or e.get('url') or '')}](<{e.get('url', '')}>)")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------- reading
_TAG = re.compile(r"^(carried|proposer)\b\s*:?\s*(.*)$", re.S)
_CARRIED = re.compile(r"^(person|proposer)?\s*(?:,\s*since iter\s*(\d+))?\s*(?:;\s*(.*))?$", re.S)
_STATS = re.compile(r"^\d+ pages, \d+ collected \([\d.]+%\)\s*"
                    r"(?:;\s*(?:rest of host \d+ pages, \d+ collected \([\d.]+%\)|the whole host))?\s*"
                    r"(?:;\s*maths markup \d+% collected, \d+% not)?\s*"
                    r"(?:;\s*scores collected \|[^|]*\| not \|[^|]*\|)?\s*"
                    r"(?:;\s*under marked \S*)?\s*;?\s*")
_HOST = re.compile(r"^[^\s/:@?#]+$")


def _user_note(note: str) -> str:
    return _STATS.sub("", (note or "").strip()).strip()


def parse_line(text: str) -> tuple[Optional[tuple[str, str]], str, Optional[str]]:
    """``(host, prefix) | None, tail comment, error | None`` for one line of a marked file."""
    body, _, tail = text.partition("#")
    body = body.strip()
    tail = tail.strip()
    if not body:
        return None, tail, None
    if any(ch.isspace() for ch in body):
        return None, tail, f"expected one <host><prefix> per line, got {body!r}"
    if "://" in body:
        return None, tail, f"write <host><prefix> without the scheme, e.g. mathoverflow.net/questions/ (got {body!r})"
    if "/" not in body:
        return None, tail, f"{body!r} has no path prefix: the prefix must start with '/' (e.g. {body}/questions/)"
    host, _, rest = body.partition("/")
    prefix = "/" + rest
    if not host:
        return None, tail, f"{body!r} has no host: expected <host><prefix>, e.g. mathoverflow.net/questions/"
    if not _HOST.match(host):
        return None, tail, f"{host!r} is not a host name (no scheme, port, user info or spaces)"
    if "?" in prefix:
        return None, tail, f"{prefix!r}: a prefix is a URL path, without a query string"
    if not prefix.endswith("/"):
        return None, tail, f"prefix {prefix!r} must end with '/' (a directory, e.g. {prefix}/)"
    return (host.lower().rstrip("."), prefix), tail, None


def _mark_from(host: str, prefix: str, tail: str, iteration: Optional[int]) -> Mark:
    m = _TAG.match(tail)
    if not m:
        return Mark(host, prefix, "person", _user_note(tail), "person", iteration)
    tag, rest = m.group(1), m.group(2).strip()
    if tag == "proposer":
        return Mark(host, prefix, "proposer", _user_note(rest), "proposer", iteration)
    c = _CARRIED.match(rest)
    if c:
        origin = c.group(1) or "person"
        since = int(c.group(2)) if c.group(2) else None
        return Mark(host, prefix, "carried", _user_note(c.group(3) or ""), origin, since)
    return Mark(host, prefix, "carried", _user_note(rest), "person", None)


_HEADER = re.compile(r"^#\s*corpus_pipeline marked paths: iteration (\d+)")


def parse_marks(text: str, path_uri: str, known: Optional[set]) -> list[Mark]:
    """Parse and validate the text of a marked file (see the module docstring)."""
    iteration = None
    errors: list[tuple[int, str]] = []
    marks: list[Mark] = []
    seen: set = set()
    known_hosts = {h for h, _ in known} if known is not None else None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.lstrip("\ufeff")
        h = _HEADER.match(line.strip())
        if h and iteration is None:
            iteration = int(h.group(1))
        key, tail, err = parse_line(line)
        if err:
            errors.append((lineno, err))
            continue
        if key is None:
            continue
        host, prefix = key
        if known is not None:
            if host not in known_hosts:
                errors.append((lineno, f"unknown host {host!r}: not a flagged host of this worksheet"))
                continue
            if key not in known:
                segs = prefix.strip("/").split("/")
                first = "/" + segs[0] + "/" if segs[0] else "/"
                near = sorted(p for hh, p in known if hh == host and p.startswith(first)) or \
                    sorted(p for hh, p in known if hh == host and p.count("/") == 2)
                hint = ""
                if near:
                    hint = f" (known prefixes of this host: {', '.join(near[:5])}{' ...' if len(near) > 5 else ''})"
                errors.append((lineno, f"unknown prefix {prefix!r} for host {host!r}{hint}"))
                continue
        if key in seen:
            continue
        seen.add(key)
        marks.append(_mark_from(host, prefix, tail, iteration))
    if errors:
        first_line, first_msg = errors[0]
        more = ""
        if len(errors) > 1:
            more = f" (and {len(errors) - 1} more bad line{'s' if len(errors) > 2 else ''}: " + \
                   ", ".join(str(n) for n, _ in errors[1:6]) + (" ..." if len(errors) > 6 else "") + ")"
        raise InputFileError(path_uri, f"{first_msg}{more}; nothing was applied from this file", first_line)
    return marks


def read_marks(path_uri: str, known: Optional[set] = None, spark=None) -> list[Mark]:
    """Marks of a marked-path file, validated against ``known`` (a set of (host, prefix); None: no check).

    Raises :class:`InputFileError` (file and line) on the first bad line; no
    mark is returned from an invalid file.
    """
    fs = fsmod.get_fs(path_uri, spark)
    if not fs.exists(path_uri):
        raise InputFileError(path_uri, "marked-path file not found")
    try:
        text = fs.read_bytes(path_uri).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(path_uri, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return parse_marks(text, path_uri, known)


def read_index(dir_uri: str, spark=None) -> Optional[dict]:
    """The ``prefixes.json`` index of an annotations folder (None when absent)."""
    fs = fsmod.get_fs(dir_uri, spark)
    p = fsmod.join(dir_uri, INDEX)
    if not fs.exists(p):
        return None
    return json.loads(fs.read_text(p))


def read_worksheet_marks(dir_uri: str, spark=None) -> list[Mark]:
    """Read and validate ``marked_paths.txt`` of an annotations folder against its index's known pairs."""
    index = read_index(dir_uri, spark)
    known = {tuple(k) for k in index["known"]} if index is not None else None
    return read_marks(fsmod.join(dir_uri, MARKED), known, spark)


# ---------------------------------------------------------------- rejections
def render_rejections(iteration: int, rejected: Iterable[Mark]) -> str:
    """Text of ``rejected_paths.txt``: same line format as the marked file (one ``<host><prefix>``)."""
    out = [f"# corpus_pipeline rejected paths: iteration {iteration}",
           "#",
           "# Path prefixes a person rejected (not maths). Later iterations do not list them as candidates",
           "# again and the proposer skips them. Delete a line to have the prefix offered again.",
           ""]
    out += [f"{m.path}   # rejected" + (f"; {m.note}" if m.note else "") for m in rejected]
    return "\n".join(out) + "\n"


def read_rejections(dir_uri: str, known: Optional[set] = None, spark=None) -> list[Mark]:
    """Rejected prefixes recorded in an annotations folder (``[]`` when it has no rejections file)."""
    p = fsmod.join(dir_uri, REJECTED)
    if not fsmod.get_fs(dir_uri, spark).exists(p):
        return []
    return read_marks(p, known, spark)


def without_rejected(prefix_rows: list[dict], rejected: Iterable[tuple]) -> list[dict]:
    """Prefix rows minus the (host, prefix) pairs rejected in earlier iterations."""
    rej = set(rejected)
    return [r for r in prefix_rows if (r["host"], r["prefix"]) not in rej]
