"""The path step as a local web page: ``corpus-pipeline annotate RUN --serve``.

The page's data (flagged hosts ranked by impact, their prefix trees, sample pages from the crawl)
is computed once when the server starts (:func:`build_view`, from the worksheet index and the
numbers of ``spark/annotate_view.py``) and served from memory.  Saving goes through the marked
file's own validator (:func:`annotate.parse_marks`) and writes ``marked_paths.txt`` (with
``annotate.write_worksheet``, so the file keeps its candidates and can still be edited by hand)
plus ``rejected_paths.txt``; the text files stay the source of truth.

Security (the server runs on a person's machine, next to a browser):

* loopback only unless ``--host`` says otherwise;
* every request needs the random token of the printed URL (``?token=`` or the
  ``X-Annotate-Token`` header), compared in constant time;
* the ``Host`` header must name the bound address (DNS rebinding);
* a POST needs ``Origin`` equal to the page's own origin, ``Content-Type: application/json``
  and the per-server CSRF token in ``X-CSRF-Token``; bodies over 1 MB are refused;
* pages are served by a number only (``/api/sample/<n>``, an index into the in-memory samples),
  never by a path from the request;
* responses carry a Content-Security-Policy (scripts and styles by nonce only, fonts from the server
  itself, no framing), ``Referrer-Policy: no-referrer`` (the token is in the URL) and
  ``Cache-Control: no-store``;
* the maths renderer (KaTeX, vendored in ``vendor/katex`` with its MIT licence) is served from the
  package under ``/katex/`` without the token (public files; the Host header is still checked): a
  fixed list of file names, never a path from the request.
"""
from __future__ import annotations

import hmac
import ipaddress
import json
import re
import secrets
import socket
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Callable, Optional
from urllib.parse import parse_qs, urlsplit

from . import annotate
from . import fs as fsmod
from .config import AnnotateConfig
from .errors import InputFileError, UsageError

STATES = ("accept", "reject", "undecided")
MAX_BODY = 1 << 20
DRAIN_LIMIT = 8 * MAX_BODY   # an over-limit body up to this size is read and dropped before the 413
EXCERPT_CHARS = 400
_SAMPLE_PATH = re.compile(r"^/api/sample/(.*)$")
_SAMPLE_ID = re.compile(r"^[0-9]{1,9}$")
KATEX = "vendor/katex"          # KaTeX's files, inside the package
_KATEX_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".woff2": "font/woff2"}


def katex_files() -> dict:
    """``/katex/<name>`` -> the vendored file it serves (the script, its CSS and the fonts)."""
    root = resources.files("corpus_pipeline").joinpath(KATEX)
    out = {f"/katex/{n}": root.joinpath(n) for n in ("katex.min.js", "katex.min.css")}
    fonts = root.joinpath("fonts")
    if fonts.is_dir():
        out.update({f"/katex/fonts/{f.name}": f for f in fonts.iterdir() if f.name.endswith(".woff2")})
    return out


def is_loopback(host: str) -> bool:
    if host in ("localhost", "localhost.", ""):
        return host != ""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def needs_token(host: str) -> bool:
    """A server bound beyond loopback always needs the token."""
    return not is_loopback(host)


# ---------------------------------------------------------------- the view (pure)
@dataclass
class AnnotationView:
    run: str
    iteration: int
    adir: str
    rows: list                     # every prefix row of the worksheet index (what write_worksheet needs)
    known: set                     # (host, prefix) pairs the marked file may name
    carried: list                  # Mark: marks carried forward from earlier iterations (kept on save)
    file_marks: dict               # (host, prefix) -> Mark active in marked_paths.txt at start
    hosts: list                    # ranked host dicts with their prefixes (JSON-ready)
    samples: list                  # sample dicts; a sample's id is its index here
    max_listed: int = 40
    saved: dict = field(default_factory=dict)

    def prefix_keys(self) -> dict:
        return {p["path"]: (h["host"], p["prefix"]) for h in self.hosts for p in h["prefixes"]}

    def state(self) -> dict:
        return {"run": self.run, "iteration": self.iteration, "adir": self.adir,
                "marked_file": fsmod.join(self.adir, annotate.MARKED), "rejected_file": fsmod.join(self.adir, annotate.REJECTED),
                "hosts": self.hosts, "carried": [m.path for m in self.carried], "saved": self.saved}


def _excerpt(text: str, n: int = EXCERPT_CHARS) -> str:
    t = re.sub(r"\s+", " ", text or "").strip()
    if len(t) <= n:
        return t
    cut = t[:n]
    # do not end inside a TeX span: an odd number of '$' means one is open
    if cut.count("$") % 2 == 1:
        cut = cut[:cut.rfind("$")]
    return cut.rstrip() + " …"


def build_view(run: str, iteration: int, adir: str, index: dict, file_marks: list, rejected: list, proposed: list,
               joins: dict, samples: list, domains: Optional[list] = None, top_hosts: int = 50,
               max_listed: int = 40, cfg=None) -> AnnotationView:
    """The page's data: hosts ranked by impact, each with its prefix tree and samples.

    A prefix's starting state: ``reject`` when it is in the rejections file, ``accept`` when it is
    active in the marked file or the proposer picks it (labelled ``proposed``), else ``undecided``.
    Host impact: the pages the proposed prefixes would add to the seed; hosts without a proposal
    rank after those with one, by the most any one of their prefixes would add.  Each prefix carries
    the proposer's verdict on it (``why``, with ``cfg``: the annotate settings) and its ``evidence``
    (shares, maths markup and score histograms of its collected and uncollected pages).
    """

    cfg = cfg or AnnotateConfig()
    rows = [dict(r, examples=annotate._examples(r)) for r in annotate.with_host_folders(index.get("rows", []))]
    known = {tuple(k) for k in index.get("known", [])} or annotate.known_prefixes(rows)
    marks = {(m.host, m.prefix): m for m in file_marks}
    rej = {(m.host, m.prefix) for m in rejected}
    prop = {(m.host, m.prefix) for m in proposed}
    carried = [m for m in file_marks if m.decided_by == "carried"]
    dom = {d["host"]: d for d in (domains or [])}
    by_sample: dict = {}
    out_samples: list = []
    for s in samples:
        sid = len(out_samples)
        text = s.get("text") or ""
        out_samples.append({"id": sid, "url": s.get("url"), "title": s.get("title") or "", "text": text,
                            "text_chars": s.get("text_chars"), "score": s.get("score"),
                            "collected": bool(s.get("collected")), "fetched_at": s.get("fetched_at")})
        by_sample.setdefault((s["m_host"], s["m_prefix"]), []).append(
            {"id": sid, "title": s.get("title") or "", "url": s.get("url"), "score": s.get("score"),
             "collected": bool(s.get("collected")), "excerpt": _excerpt(text),
             "more": len(text) > EXCERPT_CHARS})
    per_host: dict = {}
    for r in rows:
        per_host.setdefault(r["host"], []).append(r)
    hosts = []
    for host, hr in per_host.items():
        listed = sorted(hr, key=lambda r: (-r["pages"], r["prefix"]))[:max_listed]
        prefixes = []
        for r in sorted(listed, key=lambda r: r["prefix"]):
            key = (host, r["prefix"])
            m = marks.get(key)
            if key in rej:
                st, who = "reject", "person"
            elif m is not None:
                st, who = "accept", m.decided_by
            elif key in prop:
                st, who = "accept", "proposer"
            else:
                st, who = "undecided", ""
            parent = max((p for p in (x["prefix"] for x in listed) if p != r["prefix"] and r["prefix"].startswith(p)),
                         key=len, default=None)
            prefixes.append({
                "path": host + r["prefix"], "prefix": r["prefix"], "parent": parent,
                "depth": int(r.get("depth") or r["prefix"].count("/") - 1),
                "pages": int(r["pages"]), "collected": int(r["collected"]),
                "share": (r["collected"] / r["pages"]) if r["pages"] else 0.0,
                "would_join": int(joins.get(key, r["pages"] - r["collected"])),
                "proposed": key in prop, "state": st, "decided_by": who,
                "why": annotate.judge(r, cfg)[1], "evidence": annotate.evidence(r),
                "hist_collected": annotate.hist(r, "hist_collected"), "hist_uncollected": annotate.hist(r, "hist_uncollected"),
                "samples": by_sample.get(key, [])})
        proposed_join = sum(p["would_join"] for p in prefixes if p["proposed"])
        best = max((p["would_join"] for p in prefixes), default=0)
        d = dom.get(host, {})
        hosts.append({"host": host, "pages": d.get("pages"), "collected": d.get("collected"),
                      "share": d.get("fraction"), "impact": proposed_join, "best_single": best,
                      "has_proposal": any(p["proposed"] for p in prefixes), "prefixes": prefixes})
    hosts.sort(key=lambda h: (not h["has_proposal"], -(h["impact"] if h["has_proposal"] else h["best_single"]),
                              h["host"]))
    for rank, h in enumerate(hosts, 1):
        h["rank"] = rank
    return AnnotationView(run, iteration, adir, rows, known, carried, marks, hosts[:max(top_hosts, 1)],
                          out_samples, max_listed)


# ---------------------------------------------------------------- saving (pure apart from the file writes)
class SaveError(ValueError):
    """A save request that cannot be applied; nothing was written."""


def parse_decisions(body: bytes, view: AnnotationView) -> dict:
    """``{(host, prefix): state}`` from a save request body, or :class:`SaveError`.

    Body: ``{"decisions": {"<host><prefix>": "accept" | "reject" | "undecided", ...}}``; every
    path must be a prefix listed on the page.
    """
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SaveError(f"the request body is not JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("decisions"), dict):
        raise SaveError('expected a JSON object {"decisions": {"<host><prefix>": "accept|reject|undecided"}}')
    listed = view.prefix_keys()
    out = {}
    for path, state in data["decisions"].items():
        if state not in STATES:
            raise SaveError(f"{path!r}: state must be one of {', '.join(STATES)}, got {state!r}")
        if path not in listed:
            key, _, err = annotate.parse_line(str(path))
            raise SaveError(f"{path!r}: {err}" if err else f"{path!r} is not a prefix listed on this page")
        out[listed[path]] = state
    return out


def save(view: AnnotationView, decisions: dict, spark=None) -> dict:
    """Validate with the marked file's own rules, then write the rejections and the marked file."""
    marked_path = fsmod.join(view.adir, annotate.MARKED)
    rejected_path = fsmod.join(view.adir, annotate.REJECTED)
    proposed = {(h["host"], p["prefix"]) for h in view.hosts for p in h["prefixes"] if p["proposed"]}
    accepted, rejected = [], []
    for (host, prefix), st in sorted(decisions.items()):
        old = view.file_marks.get((host, prefix))
        if st == "accept":
            if old is not None and old.decided_by == "carried":
                continue                                   # carried marks are kept as they are
            note = "accepted on the web page" + (" (the proposer's pick)" if (host, prefix) in proposed else "")
            if old is not None and old.note:
                note = old.note
            accepted.append(annotate.Mark(host, prefix, "person", note, "person", view.iteration))
        elif st == "reject":
            rejected.append(annotate.Mark(host, prefix, "person", "", "person", view.iteration))
    # marks already in the file that the page does not list (a hand-added known prefix of a host
    # beyond the top hosts) are kept, so saving never drops a decision it did not show
    shown = {(h["host"], p["prefix"]) for h in view.hosts for p in h["prefixes"]}
    kept = [m for k, m in view.file_marks.items() if k not in shown and m.decided_by != "carried"]
    active = list(view.carried) + kept + accepted
    rej_text = annotate.render_rejections(view.iteration, rejected)
    try:
        # the same validator as a hand-edited file, on the exact lines that will be written
        annotate.parse_marks("\n".join(m.path for m in active) + "\n", marked_path, view.known)
        annotate.parse_marks(rej_text, rejected_path, view.known)
    except InputFileError as e:
        raise SaveError(str(e)) from None
    both = {(m.host, m.prefix) for m in active} & {(m.host, m.prefix) for m in rejected}
    if both:
        raise SaveError(f"{sorted(h + p for h, p in both)[0]} is a mark carried from an earlier iteration; "
                        f"to drop it, delete its line in {marked_path} by hand")
    fs = fsmod.get_fs(view.adir, spark)
    fs.write_text(rejected_path, rej_text)
    annotate.write_worksheet(view.adir, view.rows, active, view.iteration, max_listed=view.max_listed, spark=spark)
    written = annotate.read_marks(marked_path, view.known, spark)          # what the loop will read
    view.file_marks = {(m.host, m.prefix): m for m in written}
    rej_keys = {(m.host, m.prefix) for m in rejected}
    for h in view.hosts:                                   # a reload shows what was saved
        for p in h["prefixes"]:
            m = view.file_marks.get((h["host"], p["prefix"]))
            p["state"] = "reject" if (h["host"], p["prefix"]) in rej_keys else "accept" if m else "undecided"
            p["decided_by"] = m.decided_by if m else ("person" if p["state"] == "reject" else "")
    view.saved = {"marked": len(written), "rejected": len(rejected), "marked_file": marked_path,
                  "rejected_file": rejected_path}
    return dict(view.saved, marks=[m.path for m in written], rejections=[m.path for m in rejected])


# ---------------------------------------------------------------- the server
def _template(name: str = "annotate_web.html") -> str:
    """A page template with the shared script (``web_common.js``: ``el``, ``texNodes``) and the shared
    layout (``web_common.css``) inlined."""
    pkg = resources.files("corpus_pipeline")
    return (pkg.joinpath(name).read_text("utf-8")
            .replace("{{COMMON_JS}}", pkg.joinpath("web_common.js").read_text("utf-8"))
            .replace("{{COMMON_CSS}}", pkg.joinpath("web_common.css").read_text("utf-8")))


class AnnotateServer:
    """A ThreadingHTTPServer over one :class:`AnnotationView` (read-only apart from saves, which hold a lock).

    The page, its state, its items and its saves are the four methods below; the judging page
    (``judge_web.JudgeServer``) overrides them and keeps every check of the handler."""

    command = "annotate"
    template = "annotate_web.html"

    def __init__(self, view: AnnotationView, host: str = "127.0.0.1", port: int = 0, token: Optional[str] = None,
                 spark=None, log: Callable[[str], None] = lambda m: None):
        self.view = view
        self.host = host
        self.token = token or secrets.token_urlsafe(24)
        self.csrf = secrets.token_urlsafe(24)
        self.spark = spark
        self.log = log
        self.lock = threading.Lock()
        self.httpd = (_Server6 if ":" in host else ThreadingHTTPServer)((host, port), _handler(self))
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        h = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{h}:{self.port}/?token={self.token}"

    def allowed_hosts(self) -> Optional[set]:
        """Host header values accepted (None: any, when bound to every interface)."""
        if self.host in ("0.0.0.0", "::", ""):
            return None
        names = {self.host, f"[{self.host}]"}
        if is_loopback(self.host):
            names |= {"127.0.0.1", "localhost", "[::1]"}
        return {f"{n}:{self.port}" for n in names}

    def page_state(self, query: Optional[dict] = None) -> dict:
        """The page's state (``query``: the request's parameters, for a page that takes some)."""
        return self.view.state()

    def item(self, n: int) -> Optional[dict]:
        """The item ``/api/sample/<n>`` serves (None: no such item)."""
        return self.view.samples[n] if n < len(self.view.samples) else None

    def apply_save(self, body: bytes) -> dict:
        """Validate and write a save request body (raises :class:`SaveError`, having written nothing)."""
        result = save(self.view, parse_decisions(body, self.view), self.spark)
        self.log(f"saved {result['marked']} marks, {result['rejected']} rejections")
        return result

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> "AnnotateServer":
        self._thread = threading.Thread(target=self.serve_forever, name="annotate-web", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def serve_until_interrupted(make: Callable[[], "AnnotateServer"], host: str, port: int, command: str,
                            ready: Callable[["AnnotateServer"], list]) -> None:
    """Start a server (``make()``), print ``ready(server)`` as ``<command>: <line>`` lines, serve until
    Ctrl-C, stop.  A server that cannot listen is a usage error; beyond loopback a warning says the
    token is required."""

    try:
        server = make()
    except OSError as e:
        raise UsageError(f"--host {host} --port {port}: cannot listen there ({e.strerror or e})") from None
    if needs_token(host):
        print(f"{command}: warning: bound to {host}, beyond loopback; the token in the URL is required",
              file=sys.stderr)
    for line in ready(server):
        print(f"{command}: {line}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    print(f"{command}: stopped", flush=True)


class _Server6(ThreadingHTTPServer):
    address_family = socket.AF_INET6


def _handler(server: AnnotateServer):
    class Handler(BaseHTTPRequestHandler):
        server_version = f"corpus-pipeline-{server.command}"
        sys_version = ""

        def log_message(self, fmt, *args):   # noqa: D401 - quiet by default
            server.log(fmt % args)

        # ------------------------------------------------ responses
        def _send(self, status: int, body: bytes, ctype: str, nonce: str = "") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")
            src = f"'nonce-{nonce}'" if nonce else "'none'"
            self.send_header("Content-Security-Policy",
                             f"default-src 'none'; script-src {src}; style-src {src}; connect-src 'self'; "
                             "img-src 'self' data:; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
                             "form-action 'none'")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, data) -> None:
            self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json; charset=utf-8")

        def _error(self, status: int, msg: str) -> None:
            self._json(status, {"error": msg})

        # ------------------------------------------------ checks
        def _checked(self) -> Optional[tuple]:
            """(path, query) when the Host header and the token are right, else None (error sent)."""
            allowed = server.allowed_hosts()
            host = self.headers.get("Host", "")
            if allowed is not None and host not in allowed:
                self._error(403, f"Host {host!r} is not this server's address; open {server.url}")
                return None
            u = urlsplit(self.path)
            q = parse_qs(u.query)
            given = self.headers.get("X-Annotate-Token") or (q.get("token") or [""])[0]
            if not hmac.compare_digest(given.encode(), server.token.encode()):
                self._error(403, f"bad or missing token: open the URL printed by `corpus-pipeline {server.command} --serve`")
                return None
            return u.path, q

        def _same_origin(self) -> bool:
            origin = self.headers.get("Origin")
            expected = f"http://{self.headers.get('Host', '')}"
            if origin != expected:
                self._error(403, f"cross-site request refused: Origin {origin!r} is not {expected!r}")
                return False
            site = self.headers.get("Sec-Fetch-Site")
            if site not in (None, "same-origin"):
                self._error(403, f"cross-site request refused (Sec-Fetch-Site: {site})")
                return False
            csrf = self.headers.get("X-CSRF-Token", "")
            if not hmac.compare_digest(csrf.encode(), server.csrf.encode()):
                self._error(403, "missing or wrong X-CSRF-Token: reload the page")
                return False
            return True

        def _katex(self) -> None:
            """A vendored KaTeX file, by its exact name (no token: public files; the Host is checked)."""
            allowed = server.allowed_hosts()
            if allowed is not None and self.headers.get("Host", "") not in allowed:
                self._error(403, "Host is not this server's address")
                return
            f = katex_files().get(urlsplit(self.path).path)
            if f is None:
                self._error(404, "no such file")
                return
            self._send(200, f.read_bytes(), _KATEX_TYPES[f.name[f.name.rindex("."):]])

        # ------------------------------------------------ routes
        def do_GET(self):  # noqa: N802
            if self.path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")
                return
            if self.path.startswith("/katex/"):
                self._katex()
                return
            got = self._checked()
            if got is None:
                return
            path, q = got
            if path in ("/", "/index.html"):
                nonce = secrets.token_urlsafe(16)
                state = json.dumps(server.page_state(), ensure_ascii=False).replace("<", "\\u003c")
                page = (_template(server.template).replace("{{NONCE}}", nonce).replace("{{CSRF}}", server.csrf)
                        .replace("{{STATE}}", state))
                self._send(200, page.encode("utf-8"), "text/html; charset=utf-8", nonce)
            elif path == "/api/state":
                self._json(200, server.page_state(q))
            elif (m := _SAMPLE_PATH.match(path)) is not None:
                sid = m.group(1)
                if not _SAMPLE_ID.match(sid):
                    self._error(400, f"sample id must be a number, got {sid!r} (pages are served by id only)")
                    return
                item = server.item(int(sid))
                if item is None:
                    self._error(404, f"no sample {int(sid)}")
                    return
                self._json(200, item)
            else:
                self._error(404, f"no such page {path!r}")

        do_HEAD = do_GET

        def do_POST(self):  # noqa: N802
            got = self._checked()
            if got is None or not self._same_origin():
                return
            path, _ = got
            if path != "/api/save":
                self._error(404, f"no such endpoint {path!r}")
                return
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                self._error(415, f"Content-Type must be application/json, got {ctype or 'none'!r}")
                return
            try:
                n = int(self.headers.get("Content-Length", ""))
            except ValueError:
                self._error(411, "Content-Length required")
                return
            if n < 0 or n > MAX_BODY:
                # read (and drop) a body of a few times the limit first: a client still sending it
                # would otherwise meet a closed connection (broken pipe) instead of this answer
                if 0 < n <= DRAIN_LIMIT:
                    left = n
                    while left > 0:
                        chunk = self.rfile.read(min(left, 1 << 16))
                        if not chunk:
                            break
                        left -= len(chunk)
                self.close_connection = True
                self._error(413, f"request body over {MAX_BODY} bytes")
                return
            body = self.rfile.read(n)
            with server.lock:
                try:
                    result = server.apply_save(body)
                except SaveError as e:
                    self._error(400, f"not saved, nothing was written: {e}")
                    return
            self._json(200, result)

        def do_PUT(self):  # noqa: N802
            self._error(405, "method not allowed")

        do_DELETE = do_PATCH = do_PUT

    return Handler
