"""The maths profile (the default): DeepSeekMath's corpus."""
from __future__ import annotations

from . import Profile


class MathProfile(Profile):
    name = "math"
    positive = "math"
    markup_column = "has_math_markup"
    starter_seed = "starter_seed.jsonl.gz"
    benchmarks = None                   # every known maths benchmark found under --benchmarks
    about = "mathematics: the starter seed of maths texts, maths markup, the maths benchmarks"
    noun = "maths"
    question = "Is this page mathematical?"
    criterion = "maths: the page is about mathematics, with formulas, problems, proofs or their explanation"

    def markup(self, html: str, extracted) -> bool:
        # the extractor found maths markup (MathJax, KaTeX, MathML, formula images, TeX delimiters)
        return bool(getattr(extracted, "math_kinds", None))
