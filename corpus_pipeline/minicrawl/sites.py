"""The hosts of the mini-crawl: sections (URL path prefixes), what they hold, maths markup (pure data).

A section's ``kinds`` maps a document kind (see :data:`KIND_LABEL`) to its
weight inside the section.  Site and section weights set the mix; change them
here (or pass other sites to the generator) to tune the crawl.
"""
from __future__ import annotations

from dataclasses import dataclass, field

MATH_KINDS = {"math_tex_q", "math_tex_lecture", "math_prose", "zh_math", "zh_math_prose"}
PROSE_MATH_KINDS = {"math_prose", "zh_math_prose"}
KIND_LABEL = {k: "math" for k in MATH_KINDS}
KIND_LABEL.update({"book_review": "ambiguous"})


def label_of(kind: str) -> str:
    return KIND_LABEL.get(kind, "non-math")


# The code domain ("programming tutorials and Q&A"): the same pages, labelled a second way.
# Programming pages: the API-reference pages (kind "code": signature, prose, a code example) and, on the
# code sites (CODE_SITES, only with --code-sites), programming questions ("code_q"), tooling how-to
# questions answered with one command ("code_howto"), tutorials ("code_tutorial") and mostly-prose
# programming articles ("code_essay").  "tech" (gadget reviews), "tech_news" (language releases,
# advisories), "dev_jobs" (job posts), "prog_book_review" (reviews of programming books),
# "gadget_howto" (computer how-tos for users), help pages and
# profiles or tag lists that name a language talk about computers but teach no programming: non-code.
# A maths page is labelled by its main topic, so it stays non-code even where it shows a formula in a
# monospace block (no maths kind emits a code block today); a page that teaches an algorithm with code
# as its main content would be code.
CODE_KINDS = {"code", "code_q", "code_howto", "code_tutorial", "code_essay"}
CODE_LABELS = ("code", "non-code")


def code_label_of(kind: str) -> str:
    return "code" if kind in CODE_KINDS else "non-code"


# label domain -> (labels file name, kind -> label, the labels it uses); "math" is the crawl's own labels.jsonl
LABEL_DOMAINS = {"code": ("labels_code.jsonl", code_label_of, CODE_LABELS)}


@dataclass(frozen=True)
class Section:
    prefix: str                 # URL path prefix, e.g. "/questions/"
    weight: float               # share of the site's pages
    kinds: dict                 # document kind -> weight
    url: str = "{prefix}{id}/{slug}"   # path pattern below the prefix


@dataclass(frozen=True)
class Site:
    host: str
    name: str
    weight: float               # share of the whole crawl
    sections: tuple
    markup: dict = field(default_factory=lambda: {"mathjax": 1.0})   # maths markup -> weight
    delim: str = "dollar"       # MathJax delimiters: "dollar" ($..$, $$..$$) or "paren" (\(..\), \[..\])
    lang: str = "en"
    legacy_charset: str = "windows-1252"   # used for the few non-UTF-8 pages of this host
    sidebar_title: str = "Related"
    nav: tuple = (("/", "Home"), ("/about/", "About"))
    category: str = "non-math"  # "mixed-math", "math-only", "general", "non-math", "mirror" (for the manifest)


S = Section
SITES: tuple[Site, ...] = (
    # ---- maths Q&A and maths blog / lecture sites where only some prefixes hold maths
    Site("askmaths.net", "AskMaths", 10.0, (
        S("/questions/", 0.62, {"math_tex_q": 0.62, "math_prose": 0.38}),
        S("/users/", 0.18, {"profile": 1.0}),
        S("/tags/", 0.10, {"tags": 1.0}, "{prefix}{slug}"),
        S("/help/", 0.10, {"help": 1.0}, "{prefix}{slug}")),
        {"mathjax": 1.0}, "dollar", sidebar_title="Hot Network Questions", category="mixed-math",
        nav=(("/questions/", "Questions"), ("/tags/", "Tags"), ("/users/", "Users"), ("/help/", "Help"))),
    Site("theoremtalk.org", "Theorem Talk", 6.0, (
        S("/t/", 0.55, {"math_tex_q": 0.62, "math_prose": 0.38}),
        S("/u/", 0.25, {"profile": 1.0}),
        S("/faq/", 0.10, {"help": 1.0}, "{prefix}{slug}"),
        S("/c/off-topic/", 0.10, {"travel": 0.4, "film": 0.3, "tech": 0.3})),
        {"katex": 1.0}, sidebar_title="Suggested Topics", category="mixed-math",
        nav=(("/latest", "Latest"), ("/categories", "Categories"), ("/faq/", "FAQ"))),
    Site("math.northfield.edu", "Northfield Mathematics", 6.0, (
        S("/courses/", 0.55, {"math_tex_lecture": 0.65, "math_prose": 0.35}, "{prefix}ma{id}/notes/{slug}.html"),
        S("/news/", 0.20, {"dept_news": 1.0}, "{prefix}{year}/{slug}.html"),
        S("/people/", 0.15, {"profile": 1.0}, "{prefix}{slug}.html"),
        S("/events/", 0.10, {"dept_news": 1.0}, "{prefix}{slug}.html")),
        {"mathml": 0.6, "img": 0.4}, sidebar_title="In this course", category="mixed-math",
        nav=(("/courses/", "Teaching"), ("/people/", "People"), ("/news/", "News"), ("/events/", "Events"))),
    Site("numbercraft.blog", "Numbercraft", 4.0, (
        S("/posts/", 0.65, {"math_tex_lecture": 0.6, "math_prose": 0.4}, "{prefix}{year}/{month}/{slug}/"),
        S("/reviews/", 0.15, {"book_review": 1.0}, "{prefix}{slug}/"),
        S("/about/", 0.10, {"help": 1.0}, "{prefix}{slug}/"),
        S("/shop/", 0.10, {"tech": 1.0}, "{prefix}{slug}/")),
        {"katex": 0.7, "mathjax": 0.3}, "paren", sidebar_title="Recent posts", category="mixed-math",
        nav=(("/posts/", "Blog"), ("/reviews/", "Reviews"), ("/shop/", "Shop"), ("/about/", "About"))),
    Site("shuxue-wenda.cn", "数学问答", 4.0, (
        S("/wenti/", 0.60, {"zh_math": 0.65, "zh_math_prose": 0.35}),
        S("/yonghu/", 0.25, {"zh_news": 1.0}),
        S("/bangzhu/", 0.15, {"zh_news": 1.0}, "{prefix}{slug}")),
        {"mathjax": 1.0}, lang="zh", legacy_charset="gbk", sidebar_title="相关问题", category="mixed-math",
        nav=(("/wenti/", "问题"), ("/yonghu/", "用户"), ("/bangzhu/", "帮助"))),
    Site("oldmathforum.org", "Old Math Forum", 3.0, (
        S("/viewtopic/", 0.60, {"math_tex_q": 0.65, "math_prose": 0.35}, "{prefix}t{id}-{slug}.html"),
        S("/memberlist/", 0.20, {"profile": 1.0}, "{prefix}u{id}.html"),
        S("/rules/", 0.20, {"help": 1.0}, "{prefix}{slug}.html")),
        {"img": 1.0}, sidebar_title="Who is online", category="mixed-math",
        nav=(("/index.html", "Board index"), ("/memberlist/", "Members"), ("/rules/", "Rules"))),
    # ---- a maths blog filed by date: every year folder mixes maths posts with other posts
    # (like real personal maths blogs), so no archive folder is a maths folder
    Site("proofsandpuzzles.blog", "Proofs and Puzzles", 2.0, (
        S("/", 0.85, {"math_tex_lecture": 0.4, "math_prose": 0.25, "travel": 0.15, "film": 0.1, "book_review": 0.1},
          "{prefix}{year}/{month}/{slug}/"),
        S("/about/", 0.15, {"help": 1.0}, "{prefix}{slug}/")),
        {"mathjax": 1.0}, sidebar_title="Archives", category="archive-blog",
        nav=(("/", "Blog"), ("/about/", "About"))),
    # ---- maths-only sites
    Site("calctutor.com", "CalcTutor", 2.0, (
        S("/lessons/", 1.0, {"math_tex_lecture": 0.7, "math_prose": 0.3}, "{prefix}{slug}"),),
        {"mathjax": 1.0}, category="math-only", nav=(("/lessons/", "Lessons"),)),
    Site("olympiad-archive.org", "Olympiad Archive", 1.5, (
        S("/problems/", 1.0, {"math_tex_q": 0.6, "math_prose": 0.4}, "{prefix}{year}/p{id}"),),
        {"mathjax": 1.0}, category="math-only", nav=(("/problems/", "Problems"),)),
    # ---- general sites with a few maths pages
    Site("dailyherald-news.com", "The Daily Herald", 8.0, (
        S("/business/", 0.30, {"finance": 1.0}, "{prefix}{year}/{month}/{slug}"),
        S("/sport/", 0.30, {"sports": 1.0}, "{prefix}{year}/{month}/{slug}"),
        S("/local/", 0.20, {"local": 0.5, "education": 0.5}, "{prefix}{year}/{month}/{slug}"),
        S("/science/", 0.20, {"science": 0.8, "math_prose": 0.12, "math_tex_lecture": 0.08},
          "{prefix}{year}/{month}/{slug}")),
        {"mathjax": 1.0}, sidebar_title="Most read", category="general",
        nav=(("/business/", "Business"), ("/sport/", "Sport"), ("/local/", "Local"), ("/science/", "Science"))),
    Site("worldpedia.org", "Worldpedia", 6.0, (
        S("/wiki/", 1.0, {"science": 0.25, "travel": 0.2, "film": 0.1, "local": 0.1, "sports": 0.1, "finance": 0.1,
                          "math_tex_lecture": 0.1, "math_prose": 0.02, "code": 0.03}, "{prefix}{Slug}"),),
        {"mathml": 0.5, "img": 0.5}, sidebar_title="Navigation", category="general",
        nav=(("/wiki/Main_Page", "Main page"), ("/wiki/Special:Random", "Random article"))),
    # ---- sites with no maths (several are hard negatives: numbers, code, equations in science news)
    Site("marketpulse.com", "MarketPulse", 5.0, (S("/markets/", 1.0, {"finance": 1.0}, "{prefix}{year}/{slug}"),),
         category="non-math", sidebar_title="Trending tickers"),
    Site("scoreline.net", "Scoreline", 5.0, (S("/match/", 1.0, {"sports": 1.0}),), category="non-math",
         sidebar_title="Live scores"),
    Site("kitchenjournal.com", "Kitchen Journal", 4.0, (S("/recipes/", 1.0, {"recipe": 1.0}, "{prefix}{slug}"),),
         category="non-math", sidebar_title="Popular recipes"),
    Site("railtimes.org", "RailTimes", 3.0, (S("/timetables/", 1.0, {"timetable": 1.0}, "{prefix}{slug}"),),
         category="non-math", sidebar_title="Service updates"),
    Site("pydocs-hub.dev", "PyDocs Hub", 4.0, (S("/api/", 1.0, {"code": 1.0}, "{prefix}{slug}.html"),),
         category="non-math", sidebar_title="Modules"),
    Site("physicsnews.today", "Physics News Today", 4.0, (S("/stories/", 1.0, {"science": 0.7, "science_eq": 0.3}, "{prefix}{year}/{slug}"),),
         category="non-math", sidebar_title="Latest stories"),
    Site("wanderlog-travel.com", "Wanderlog", 3.0, (S("/trips/", 1.0, {"travel": 1.0}, "{prefix}{slug}"),),
         category="non-math", sidebar_title="More trips"),
    Site("greenthumb.org", "Green Thumb", 2.5, (S("/guides/", 1.0, {"garden": 1.0}, "{prefix}{slug}"),),
         category="non-math", sidebar_title="Seasonal jobs"),
    Site("wellness-daily.com", "Wellness Daily", 2.5, (S("/articles/", 1.0, {"health": 1.0}, "{prefix}{slug}"),),
         category="non-math"),
    Site("gadgetbench.com", "GadgetBench", 3.0, (S("/reviews/", 1.0, {"tech": 1.0}, "{prefix}{slug}"),),
         category="non-math", sidebar_title="Best buys"),
    Site("cityreel.net", "CityReel", 2.0, (S("/film/", 1.0, {"film": 1.0}, "{prefix}{slug}"),), category="non-math"),
    Site("jobsboard.co.uk", "JobsBoard", 2.0, (S("/vacancy/", 1.0, {"careers": 1.0}),), category="non-math"),
    Site("xinwen-ribao.cn", "新闻日报", 4.0, (S("/news/", 1.0, {"zh_news": 0.95, "zh_math": 0.05}, "{prefix}{year}/{id}.html"),),
         lang="zh", legacy_charset="gbk", category="general", sidebar_title="热门新闻"),
    Site("meishi-jia.cn", "美食家", 1.5, (S("/caipu/", 1.0, {"zh_news": 1.0}, "{prefix}{id}.html"),),
         lang="zh", legacy_charset="gbk", category="non-math", sidebar_title="推荐"),
)

# A mirror that republishes Q&A pages with its own boilerplate (near-duplicates); it has no own pages.
MIRROR = Site("maths-mirror.info", "Maths Mirror", 0.0, (S("/q/", 1.0, {}),), {"mathjax": 1.0},
              sidebar_title="Archive", category="mirror", nav=(("/q/", "Archive"),))


# ---- code sites (``generate(..., code_sites=True)``, ``minicrawl --code-sites``): hosts where only some
# prefixes hold programming pages, the code domain's counterpart of the mixed maths sites above.  They
# are appended to the site table only when asked for, so the default crawl is unchanged.
CODE_CATEGORIES = ("mixed-code", "tech-general")
CODE_SITES: tuple[Site, ...] = (
    Site("askcode.dev", "AskCode", 12.0, (
        S("/questions/", 0.70, {"code_q": 0.7, "code_howto": 0.3}),
        S("/users/", 0.12, {"profile": 1.0}),
        S("/tags/", 0.07, {"tags": 1.0}, "{prefix}{slug}"),
        S("/help/", 0.06, {"help": 1.0}, "{prefix}{slug}"),
        S("/jobs/", 0.05, {"dev_jobs": 1.0})),
        {}, sidebar_title="Hot Network Questions", category="mixed-code",
        nav=(("/questions/", "Questions"), ("/tags/", "Tags"), ("/users/", "Users"), ("/jobs/", "Jobs"),
             ("/help/", "Help"))),
    Site("devnotes.io", "DevNotes", 8.0, (
        S("/tutorials/", 0.65, {"code_tutorial": 0.8, "code_essay": 0.2}, "{prefix}{year}/{slug}/"),
        S("/news/", 0.26, {"tech_news": 0.8, "prog_book_review": 0.2}, "{prefix}{year}/{month}/{slug}/"),
        S("/about/", 0.09, {"help": 1.0}, "{prefix}{slug}/")),
        {}, sidebar_title="Recent posts", category="mixed-code",
        nav=(("/tutorials/", "Tutorials"), ("/news/", "News"), ("/about/", "About"))),
    # a technology magazine: only /howto/ holds programming pages, and only about half of them
    Site("techweekly.net", "TechWeekly", 4.0, (
        S("/howto/", 0.35, {"code_howto": 0.55, "gadget_howto": 0.45}, "{prefix}{slug}"),
        S("/reviews/", 0.30, {"tech": 0.75, "prog_book_review": 0.25}, "{prefix}{slug}"),
        S("/news/", 0.25, {"tech_news": 1.0}, "{prefix}{year}/{month}/{slug}"),
        S("/jobs/", 0.10, {"dev_jobs": 1.0}, "{prefix}{id}")),
        {}, sidebar_title="Most read", category="tech-general",
        nav=(("/news/", "News"), ("/reviews/", "Reviews"), ("/howto/", "How-to"), ("/jobs/", "Jobs"))),
)
