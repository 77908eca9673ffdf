"""Page text for the mini-crawl, assembled at random from word banks (pure).

Everything here was written for the generator.  A document is a dict:
``title``, ``blocks`` (the main content) and optionally ``answers`` (Q&A
pages).  Blocks are tuples: ``("h2", text)``, ``("p", [segment, ...])`` where a
segment is a string or ``("m", tex, display)``, ``("ul", [text, ...])``,
``("table", header, rows)``, ``("pre", code)``.  ``doc["math_segments"]``
counts formulas so the manifest can tell TeX-heavy from prose maths.
"""
from __future__ import annotations

import re

from .formulas import formula, small_symbol

# ------------------------------------------------------------------ shared banks
FIRST = ["Ana", "Ben", "Chloe", "Dmitri", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kofi", "Lena",
         "Mateo", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma", "Victor", "Wen",
         "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Carmen", "Dara", "Emil", "Fatima", "Gustav", "Hana"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Castillo", "Novak", "Haddad", "Fischer", "Rossi",
        "Kowalski", "Nguyen", "Mensah", "Ivanova", "Byrne", "Duarte", "Sato", "Kaur", "Petrov", "Walsh", "Abebe"]
CITIES = ["Lisbon", "Tampere", "Accra", "Valparaiso", "Osaka", "Gdansk", "Leeds", "Porto Alegre", "Nairobi",
          "Halifax", "Graz", "Cork", "Tbilisi", "Adelaide", "Bilbao", "Utrecht", "Kraków", "Dunedin", "Quito"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def name(r) -> str:
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


_SLOT = re.compile(r"\{(\w+)[^{}]*\}")
OPENERS = ["In fact, ", "As {name} pointed out, ", "On {wd}, ", "Interestingly, ", "For what it is worth, ",
           "To be fair, ", "Last {wd}, ", "By most accounts, ", "Put simply, ", "As usual, ", "Even so, ",
           "According to {name}, ", "At first sight, ", "Honestly, ", "Since {month}, ", "Once again, ",
           "In {city}, ", "Back in {year}, ", "For the record, ", "Still, ", "Of course, ", "Frankly, ",
           "Meanwhile, ", "By contrast, ", "As a reminder, ", "In short, ", "Admittedly, ", "Oddly enough, "]
TAILS = [", as {name} noted", ", at least in {city}", ", or so it seems", ", which surprised a few readers",
         ", as expected", ", according to the notes from {month}", " this time", ", to everyone's relief",
         ", once again", ", if memory serves", ", as {name} put it in {year}", ", says {name}",
         " for the {ord} time", ", as of {month} {day}", " in the end", ", by the way"]
_GEN = {"name": lambda r: name(r), "wd": lambda r: r.choice(WEEKDAYS), "month": lambda r: r.choice(MONTHS),
        "city": lambda r: r.choice(CITIES), "year": lambda r: r.randint(1987, 2025), "day": lambda r: r.randint(1, 28),
        "ord": lambda r: r.choice(["second", "third", "fourth", "fifth"]), "n": lambda r: r.randint(2, 99),
        "m": lambda r: r.randint(100, 9999)}


def _decorate(r, s: str, p_open: float = 0.35, p_tail: float = 0.25) -> str:
    """Random discourse opener / tail so sentences from the same bank differ between pages."""
    if s.endswith((".", "!", "?")) and r.random() < p_tail:
        s = s[:-1] + _fill(r, r.choice(TAILS), {}) + s[-1]
    if r.random() < p_open:
        first = s.split(" ", 1)[0].rstrip(",.;:'s")
        keep = first in _PROPER or s[:2].isupper() or any(ch.isdigit() for ch in first)
        s = _fill(r, r.choice(OPENERS), {}) + (s if keep else s[:1].lower() + s[1:])
    return s


def _proper() -> set:
    words = set(FIRST) | set(LAST) | set(MONTHS) | set(WEEKDAYS) | {"I", "Euler", "Fermat", "Newton's", "Ohm's",
                                                                    "Einstein's", "Brent", "Bees", "Tomatoes"}
    for group in (CITIES,):
        words |= {c.split()[0] for c in group}
    return words


_PROPER = _proper()


def _sentences(r, bank, n, **slots) -> list[str]:
    picks = r.sample(bank, n) if n <= len(bank) else [r.choice(bank) for _ in range(n)]
    return [_decorate(r, _fill(r, t, slots)) for t in picks]


def _vary(r, paragraph: str) -> str:
    """Decorate each sentence of a fixed paragraph so it reads differently on every page."""
    parts = re.split(r"(?<=[.?!]) ", paragraph)
    return " ".join(_decorate(r, p, 0.3, 0.2) for p in parts)


def _fill(r, t: str, slots: dict) -> str:
    vals = {}
    for k in _SLOT.findall(t):
        if k in vals:
            continue
        v = slots.get(k, _GEN.get(k))
        if v is None:
            continue
        vals[k] = v(r) if callable(v) else v
    try:
        return _cap(t.format(**vals))
    except (KeyError, IndexError, ValueError):
        return _cap(t)


# ------------------------------------------------------------------ maths banks
TOPIC_WORDS = {
    "algebra": ["polynomial", "quadratic equation", "root", "coefficient", "discriminant", "factorisation",
                "inequality", "identity", "logarithm", "exponent", "linear system", "rational function",
                "inverse function", "absolute value", "binomial expansion"],
    "calculus": ["derivative", "integral", "limit", "series", "Taylor expansion", "continuous function",
                 "antiderivative", "chain rule", "integration by parts", "improper integral",
                 "differential equation", "power series", "critical point", "Riemann sum", "mean value theorem"],
    "number_theory": ["prime", "divisor", "congruence", "modular inverse", "greatest common divisor",
                      "Euler's totient", "quadratic residue", "Diophantine equation", "perfect number",
                      "Fermat's little theorem", "Chinese remainder theorem", "prime factorisation",
                      "Mersenne prime", "residue class", "Legendre symbol"],
    "geometry": ["triangle", "circle", "angle", "polygon", "tangent line", "inscribed angle", "similar triangles",
                 "Pythagorean theorem", "area", "perpendicular bisector", "circumcircle", "convex polygon",
                 "law of cosines", "sphere", "Euler characteristic"],
    "probability": ["random variable", "expected value", "variance", "conditional probability", "Bayes' theorem",
                    "binomial distribution", "normal distribution", "independent events", "Markov chain",
                    "law of large numbers", "central limit theorem", "sample space", "Chebyshev's inequality",
                    "Poisson process", "generating function"],
    "linear_algebra": ["matrix", "eigenvalue", "eigenvector", "determinant", "vector space", "basis", "kernel",
                       "linear map", "inner product", "orthogonal projection", "rank", "diagonalisation",
                       "Gram-Schmidt process", "characteristic polynomial", "change of basis"],
    "combinatorics": ["binomial coefficient", "permutation", "pigeonhole principle", "recurrence relation",
                      "Catalan number", "graph", "spanning tree", "inclusion-exclusion", "Fibonacci sequence",
                      "bijection", "double counting", "colouring", "partition of an integer", "lattice path",
                      "generating function"],
}
TOPIC_LABEL = {"algebra": "algebra", "calculus": "calculus", "number_theory": "number theory",
               "geometry": "geometry", "probability": "probability", "linear_algebra": "linear algebra",
               "combinatorics": "combinatorics"}

MQ_TITLES = [
    "How to prove that {F} holds", "Why is {F} true?", "Evaluating {F}", "Question about the {w} in {F}",
    "Is there a simple proof of {F}?", "Showing {F} without the {w2}", "{W} problem: {F}",
    "Counterexample for {F}?", "Understanding the {w} when {S}", "Help with a {w} exercise involving {S}",
    "Generalising {F} to higher dimensions", "Bound on {S} using the {w}",
]
MQ_SENT = [
    "I am trying to show that {F} for every {S}.", "My textbook states {F} but gives no argument for it.",
    "Using the {w} I get as far as {F}, and then I am stuck.", "Is it enough to check the case {S}?",
    "I tried induction on {S} but the step from {S} does not obviously work.",
    "Here is what I have so far: {D}", "The hint says to consider the {w}.",
    "It seems that {F} should follow from the {w2}, but I cannot see how.",
    "Any hint would be appreciated; I do not want a full solution.",
    "For small values I checked numerically that {F}.", "Where does the assumption {S} enter?",
    "We want to compute {D}", "Does the same argument work for the {w2}?",
    "I know that {F}, so it remains to bound {S}.",
    "Let {S} be as above and suppose that {F}. Then I want to conclude {D}",
    "Assume that {S}. Is it true that {F} for all {S}?", "Here {S} denotes the {w} and {S} is fixed.",
    "In particular, if {S} then {F}, but what happens when {S}?", "Define {S} by {D} where {S} is the {w}.",
    "Suppose {F}. Show that there exists {S} such that {F}.", "We have {F} and hence {F}.",
]
MA_SENT = [
    "Write {F} and apply the {w}.", "The key observation is that {F}.", "Consider {D}",
    "By the {w2} we have {F}, hence {D}", "Now let {S} and compare both sides.",
    "This gives {F}, which is what you wanted.", "It suffices to treat the case {S}; the general case follows by symmetry.",
    "Substituting back, {D}", "Your attempt is close: the error is in the step where {S}.",
    "Alternatively, use the {w} directly: {F}.", "Equality holds exactly when {S}.",
    "Taking limits on both sides yields {F}.", "Summing over all {S} we obtain {D}",
    "Note that {F} by the previous line.", "The claim now follows from the {w2}.",
    "Let {S} be arbitrary. Then {D} where {S} is the {w}.", "Since {F}, we have {F} for all {S}.",
    "In particular {F}, so {S} is bounded.", "Assume {S}. By the {w} there exists {S} such that {F}.",
    "Hence {D} and the right hand side tends to zero.", "Conversely, if {F} then {S}.",
]
ML_SENT = [
    "Recall the definition of the {w}: {D}", "Theorem. If {S}, then {F}.",
    "Proof. Fix {S}. By the {w2} we have {F}.", "Example. Let {S}. Then {D}",
    "Remark. The condition {S} cannot be dropped, as the example {F} shows.",
    "Exercise. Prove that {F}.", "In this lecture we study the {w} and its relation to the {w2}.",
    "Lemma. For all {S}, {F}.", "Combining the two estimates gives {D}",
    "We now turn to the {w}, which generalises {F}.", "Definition. A {w} is called regular if {F}.",
    "Corollary. In particular {F}.", "The following identity will be used repeatedly: {D}",
    "Let {S} be a {w} and let {S}. Then {F}.", "Suppose that {F}. Then {S} and {D}",
    "Proposition. Let {S}. If {F}, then {F}.", "Here {S} is the {w} and {S} the {w2}.",
]

PROSE_PROBLEM = [
    "A {shop} sells {item}s in boxes of {a} and boxes of {b}. {name} wants exactly {c} {item}s. "
    "How many boxes of each size should be bought, and is there more than one way to do it?",
    "A train leaves {city} at {a} kilometres per hour and a second train leaves two hours later at {b} kilometres "
    "per hour on the same track. After how many hours does the second train catch up with the first?",
    "{name} has {c} marbles, some red and some blue. There are {a} more red marbles than blue ones. "
    "How many marbles of each colour are there?",
    "A rectangular garden is {a} metres longer than it is wide, and its perimeter is {c} metres. "
    "Find the length and the width of the garden and then its area.",
    "Two dice are thrown. What is the chance that the two numbers shown add up to {d}? "
    "Explain why the answer is not simply one in eleven.",
    "In a class of {c} students, {a} play chess and {b} play football, while every student plays at least one of "
    "the two. How many students play both games?",
    "A ladder {a} metres long leans against a wall with its foot {b} metres from the wall. "
    "How high up the wall does the ladder reach, and how far does the top slide if the foot moves out one more metre?",
    "The sum of three consecutive odd numbers is {e}. What are the numbers, and why can the sum of three "
    "consecutive odd numbers never be even?",
    "A tank is filled by one pipe in {a} hours and emptied by another in {b} hours. If both are open, "
    "how long does it take to fill the empty tank?",
    "How many different ways can {a} people sit around a round table if only the order around the table matters?",
    "A bag holds {a} white and {b} black balls. Two balls are drawn without putting the first one back. "
    "What is the probability that both are black?",
    "{name} saves a fixed amount each week. After {a} weeks there are {c} coins in the jar and after {b} weeks "
    "there are {e}. How many coins were in the jar at the start?",
]
PROSE_SOLVE = [
    "Start by giving a name to the unknown quantity and writing down what the problem tells us about it.",
    "Let the smaller number be the unknown; then the larger one is that number plus the difference given.",
    "Adding the two conditions eliminates one unknown, and what remains is a single equation in one unknown.",
    "Subtracting the same amount from both sides and then dividing by the coefficient gives the answer.",
    "It is worth checking the answer by putting it back into the original description of the problem.",
    "Count the favourable outcomes first and then divide by the number of equally likely outcomes.",
    "Drawing a picture helps: the wall, the ground and the ladder form a right angle triangle.",
    "Since the hypotenuse is the longest side, its square equals the sum of the squares of the other two sides.",
    "Because the two events are not independent, the probability of the second draw depends on the first one.",
    "The answer must be a whole number, so any fractional solution tells us that we made an arithmetic slip.",
    "Fixing one person's seat removes the rotations, and the remaining people can be arranged in the usual way.",
    "The rates of the two pipes add, with the emptying pipe counted as a negative rate.",
    "Every odd number is one more than an even number, so three of them add up to an odd total.",
    "Trying a few small cases by hand often reveals the pattern that the general argument needs.",
]
PROSE_PROOF = [
    "Suppose, for the sake of contradiction, that there were only finitely many primes. Multiply all of them "
    "together and add one. The new number leaves remainder one when divided by any prime on our list, so it has a "
    "prime factor missing from the list, which is impossible.",
    "Take any two odd numbers. Each is one more than an even number, so their sum is two more than an even number, "
    "and therefore even. The product, on the other hand, is odd, because the product of the two odd parts is odd.",
    "Imagine placing more pigeons than there are holes. However we distribute them, some hole must receive at "
    "least two pigeons, since otherwise the number of pigeons could not exceed the number of holes.",
    "Draw the diagonal of a square. The two triangles it creates are congruent, since they share the diagonal and "
    "the other two sides are equal in pairs; hence the diagonal cuts the area exactly in half.",
    "If the square root of two were a fraction in lowest terms, squaring would show that the numerator is even, "
    "then that the denominator is even too, contradicting the assumption that the fraction was in lowest terms.",
    "Arrange the numbers from one to one hundred in two rows, the second row reversed. Each column then adds up "
    "to one hundred and one, and there are one hundred columns, so twice the total is ten thousand one hundred.",
    "A continuous function that is negative at one end of an interval and positive at the other must cross zero "
    "somewhere in between, because it cannot jump over the value zero.",
    "Every angle inscribed in a semicircle is a right angle: join the vertex to the centre, and the two isosceles "
    "triangles formed have base angles that together make half of the straight angle.",
    "Colour the chessboard in the usual way. Every domino covers one black and one white square, but removing two "
    "opposite corners removes two squares of the same colour, so the remaining board cannot be tiled.",
    "Consider the smallest counterexample. Removing one element produces a smaller case, for which the statement "
    "holds, and adding the element back preserves the property, so no smallest counterexample exists.",
]
PROSE_CONCEPT = [
    "The {w} can be understood without any symbols at all.", "Think of the {w} as a way of measuring change.",
    "Historically, the {w} grew out of practical questions about {practice}.",
    "In the {century} century, {mathematician} described the {w} in words, long before modern notation existed.",
    "Students often confuse the {w} with the {w2}, but the two ideas answer different questions.",
    "A good way to build intuition is to work through a small example by hand and watch what happens.",
    "The surprising part is that the same pattern appears whether we start with small numbers or large ones.",
    "What makes the {w} useful is that it turns a question about infinitely many cases into a single argument.",
    "One can picture the {w} as {picture}.", "The idea was later made rigorous, but the original intuition survives.",
    "{mathematician} noticed that the {w} behaves the same way under every change of scale.",
    "Teachers often introduce the {w} through {practice}, which makes the abstract definition feel natural.",
    "The converse is false, and finding an example that shows this is a good exercise.",
    "Once the {w} is understood, the {w2} becomes a short step rather than a separate topic.",
    "Why should this be true? Because each step of the argument keeps the total unchanged.",
    "The proof is by induction: the statement holds for the first case, and each case implies the next one.",
    "An even number of odd terms always adds up to an even number, a fact that settles many puzzles quickly.",
]
MATHEMATICIANS = ["Euclid", "Archimedes", "Brahmagupta", "al-Khwarizmi", "Fibonacci", "Cardano", "Fermat",
                  "Pascal", "Euler", "Gauss", "Sophie Germain", "Cauchy", "Riemann", "Emmy Noether",
                  "Ramanujan", "Kovalevskaya", "Hilbert", "Liu Hui", "Zu Chongzhi", "Omar Khayyam"]
CENTURY = ["third", "ninth", "twelfth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"]
PRACTICE = ["land surveying", "dividing inheritances", "predicting eclipses", "gambling with dice",
            "navigation at sea", "building cathedrals", "calculating interest on loans", "measuring fields",
            "astronomical tables", "accounting for merchants"]
PICTURE = ["a staircase whose steps get smaller and smaller", "a balance with equal weights on both sides",
           "a rubber band stretched around nails on a board", "water flowing into a tank at a changing rate",
           "a map that sends every point to exactly one other point", "a tree whose branches split again and again",
           "a clock whose hand returns to the start after a fixed number of hours"]
PROSE_TITLE = [
    "How many boxes does {name} need?", "A word problem about {item}s", "Why is the {w} true? An explanation in words",
    "The {w}, explained without formulas", "A puzzle about {item}s and how to solve it",
    "How did {mathematician} think about the {w}?", "Proof without words: the {w}",
    "Intuition for the {w}", "A classic argument about the {w}", "Where does the {w} come from?",
    "Is my reasoning about the {w} correct?", "Explaining the {w} to a friend",
]
SHOPS = ["bakery", "hardware shop", "stationery store", "market stall", "toy shop", "garden centre"]
ITEMS = ["pencil", "apple", "tile", "notebook", "battery", "cupcake", "screw", "sticker", "candle", "plant pot"]


def _mslots(r, topic: str, allow_display=True) -> dict:
    words = TOPIC_WORDS[topic]
    return {
        "w": lambda r: r.choice(words), "w2": lambda r: r.choice(words),
        "W": lambda r: _cap(r.choice(words)),
    }


_MSLOT = re.compile(r"(\{[FSD]\})")


def _math_segments(r, t: str, topic: str) -> list:
    """Text with ``{F}`` (inline formula), ``{S}`` (short inline) and ``{D}`` (display) -> segments."""
    segs: list = []
    for part in _MSLOT.split(t):
        if part == "{F}":
            segs.append(("m", formula(r, topic), False))
        elif part == "{S}":
            segs.append(("m", small_symbol(r, topic), False))
        elif part == "{D}":
            segs.append(("m", formula(r, topic), True))
        elif part:
            segs.append(part)
    return segs


def _math_sentence(r, bank, topic: str) -> list:
    """One sentence as segments: text with inline ``{F}``/``{S}`` and display ``{D}`` formulas."""
    t = r.choice(bank)
    words = TOPIC_WORDS[topic]
    t = t.replace("{w}", r.choice(words)).replace("{w2}", r.choice(words))
    segs = _math_segments(r, t, topic)
    if segs and isinstance(segs[0], str):
        segs[0] = _cap(segs[0])
        if r.random() < 0.1 and not segs[0].split(" ", 1)[0].endswith("."):
            segs[0] = _fill(r, r.choice(OPENERS), {}) + segs[0][:1].lower() + segs[0][1:]
    return segs


def _para(r, bank, topic, k) -> tuple:
    segs: list = []
    for j in range(k):
        s = _math_sentence(r, bank, topic)
        if segs:
            segs.append(" ")
        segs.extend(s)
    return ("p", segs)


def _count_math(blocks) -> int:
    n = 0
    for b in blocks:
        if b[0] == "p":
            n += sum(1 for s in b[1] if isinstance(s, tuple))
    return n


def math_tex_question(r, topic: str) -> dict:
    """A Q&A question with TeX formulas and one to three answers."""
    title = _title_with_formula(r, MQ_TITLES, topic)
    blocks = [_para(r, MQ_SENT, topic, r.randint(2, 4)) for _ in range(r.randint(1, 3))]
    answers = []
    for _ in range(r.randint(1, 3)):
        answers.append([_para(r, MA_SENT, topic, r.randint(2, 5)) for _ in range(r.randint(1, 3))])
    n = _count_math(blocks) + sum(_count_math(a) for a in answers)
    return {"title": title, "blocks": blocks, "answers": answers, "math_segments": n, "topic": topic}


def math_tex_lecture(r, topic: str) -> dict:
    """Lecture notes / blog post with definitions, theorems and displayed formulas."""
    w = r.choice(TOPIC_WORDS[topic])
    title = r.choice([f"Lecture {r.randint(1, 24)}: the {w}", f"Notes on the {w}", f"{_cap(w)} revisited",
                      f"A short introduction to the {w}", f"Week {r.randint(1, 14)}: {TOPIC_LABEL[topic]}",
                      f"Three facts about the {w}"])
    blocks: list = []
    for s in range(r.randint(2, 4)):
        blocks.append(("h2", f"{s + 1}. {_cap(r.choice(TOPIC_WORDS[topic]))}"))
        for _ in range(r.randint(1, 3)):
            blocks.append(_para(r, ML_SENT, topic, r.randint(2, 4)))
    return {"title": title, "blocks": blocks, "math_segments": _count_math(blocks), "topic": topic}


def _title_with_formula(r, bank, topic) -> list:
    t = r.choice(bank)
    words = TOPIC_WORDS[topic]
    t = t.replace("{w}", r.choice(words)).replace("{w2}", r.choice(words)).replace("{W}", _cap(r.choice(words)))
    # titles keep TeX as plain $...$ text (as Q&A sites do in <title>)
    t = t.replace("{F}", "$" + formula(r, topic) + "$").replace("{S}", "$" + small_symbol(r, topic) + "$")
    return _cap(t)


def math_prose(r, topic: str) -> dict:
    """Maths in plain prose: word problems, proofs in words, history-flavoured explanations. No formulas."""
    kind = r.choice(["problem", "proof", "concept", "concept"])
    words = TOPIC_WORDS[topic]
    slots = {
        "w": lambda r: r.choice(words), "w2": lambda r: r.choice(words),
        "mathematician": lambda r: r.choice(MATHEMATICIANS), "century": lambda r: r.choice(CENTURY),
        "practice": lambda r: r.choice(PRACTICE), "picture": lambda r: r.choice(PICTURE),
        "shop": lambda r: r.choice(SHOPS), "item": lambda r: r.choice(ITEMS),
        "a": lambda r: r.randint(3, 15), "b": lambda r: r.randint(2, 12), "c": lambda r: r.randint(20, 140),
        "d": lambda r: r.randint(3, 11), "e": lambda r: r.randint(21, 399),
    }
    title = _fill(r, r.choice(PROSE_TITLE), slots)
    blocks: list = []
    if kind == "problem":
        for _ in range(r.randint(1, 2)):
            blocks.append(("p", [_vary(r, _fill(r, r.choice(PROSE_PROBLEM), slots))]))
        blocks.append(("p", [" ".join(_sentences(r, PROSE_SOLVE, r.randint(3, 6), **slots))]))
        blocks.append(("p", [" ".join(_sentences(r, PROSE_CONCEPT, r.randint(1, 3), **slots))]))
    elif kind == "proof":
        blocks.append(("p", [" ".join(_sentences(r, PROSE_CONCEPT, r.randint(2, 3), **slots))]))
        for _ in range(r.randint(1, 2)):
            blocks.append(("p", [_vary(r, r.choice(PROSE_PROOF))]))
        blocks.append(("p", [" ".join(_sentences(r, PROSE_SOLVE + PROSE_CONCEPT, r.randint(2, 4), **slots))]))
    else:
        for _ in range(r.randint(2, 4)):
            blocks.append(("p", [" ".join(_sentences(r, PROSE_CONCEPT, r.randint(3, 5), **slots))]))
        if r.random() < 0.5:
            blocks.append(("p", [_vary(r, r.choice(PROSE_PROOF))]))
    answers = []
    if r.random() < 0.6:
        answers = [[("p", [" ".join(_sentences(r, PROSE_SOLVE + PROSE_CONCEPT, r.randint(2, 5), **slots))])]
                   for _ in range(r.randint(1, 2))]
    return {"title": title, "blocks": blocks, "answers": answers, "math_segments": 0, "topic": topic,
            "prose_kind": kind}


# ------------------------------------------------------------------ Chinese
ZH_TOPIC = {
    "algebra": ["一元二次方程", "多项式", "因式分解", "不等式", "对数函数", "二次函数"],
    "calculus": ["导数", "定积分", "极限", "泰勒展开", "函数的单调性", "微分方程"],
    "number_theory": ["质数", "同余", "最大公约数", "欧拉函数", "整除", "中国剩余定理"],
    "geometry": ["三角形", "圆", "勾股定理", "相似三角形", "正弦定理", "立体几何"],
    "probability": ["概率", "期望", "方差", "条件概率", "二项分布", "正态分布"],
    "linear_algebra": ["矩阵", "特征值", "行列式", "向量空间", "线性变换", "秩"],
    "combinatorics": ["排列组合", "二项式系数", "递推关系", "图论", "鸽巢原理", "斐波那契数列"],
}
ZH_MATH = [
    "已知{F}，求{S}的取值范围。", "证明：对任意{S}，都有{F}。", "设{S}，则{D}", "由{w}可得{F}。",
    "这道题的关键是利用{w}。", "我们先讨论{S}的情形。", "因此{F}，原命题得证。", "解：由题意得{D}",
    "同学们在学习{w}时经常忽略{S}这个条件。", "下面给出{w}的一个简单例子：{D}",
    "注意到{F}，所以只需证明{S}。", "综上所述，{F}。",
]
ZH_PROSE_MATH = [
    "一个长方形的长比宽多{a}米，周长是{c}米，求这个长方形的面积。",
    "小明有{c}元钱，买了{a}本笔记本后还剩{b}元，每本笔记本多少元？",
    "从{a}名同学中选出两名代表，一共有多少种不同的选法？",
    "甲乙两人同时从两地出发相向而行，甲每小时走{a}千米，乙每小时走{b}千米，几小时后相遇？",
    "{w}是中学数学的重要内容，理解它的几何意义非常重要。",
    "古代数学家{zh_m}在研究{w}时，用文字而不是符号描述了这个方法。",
    "解这类应用题时，先设未知数，再根据等量关系列出方程。",
    "如果一个数能被二和三整除，那么它一定能被六整除，这个结论可以用质因数分解来解释。",
    "掷两枚骰子，点数之和为七的概率是多少？请说明理由。",
    "一个水池有两个进水管，单开甲管{a}小时注满，单开乙管{b}小时注满，两管同时开需要几小时？",
    "把{c}个苹果平均分给{a}个小朋友，每人最多能分到几个？还剩几个？",
    "用一根长{c}厘米的铁丝围成一个正方形，这个正方形的面积是多少平方厘米？",
    "一个三角形的三条边分别是{a}、{b}和{c}，它能不能构成三角形？为什么？",
    "老师在课堂上讲解了{w}的来历，并用一个生活中的例子说明它的用处。",
    "我们可以这样理解{w}：把一个复杂的问题拆成几个简单的小问题，逐一解决。",
    "{zh_m}在他的著作中用文字描述了求解这类问题的步骤，被后人称为经典方法。",
    "很多同学觉得{w}很抽象，其实只要多画图、多举例，就会发现其中的规律。",
    "连续三个自然数的和一定是三的倍数，请用文字说明其中的道理。",
    "某商店把一件商品先提价百分之{a}，再降价百分之{a}，现在的价格和原价相比是高了还是低了？",
    "一本书共有{c}页，小红第一天看了全书的几分之几，第二天看了剩下的一半，还剩多少页没看？",
    "证明的思路是反证法：先假设结论不成立，再推出矛盾，从而说明原结论正确。",
]
ZH_OPEN = ["据报道，", "记者了解到，", "值得注意的是，", "另外，", "同时，", "老师指出，", "有网友表示，", "总的来说，",
           "首先，", "其次，", "事实上，", "需要说明的是，", "此外，", "据了解，", "近日，", "我们注意到，"]
ZH_M = ["刘徽", "祖冲之", "秦九韶", "杨辉", "贾宪", "华罗庚", "陈景润"]
ZH_TITLE_MATH = ["关于{w}的一道题", "{w}的证明方法总结", "如何理解{w}？", "高考数学：{w}专题", "{w}练习题及解析",
                 "求助：{w}问题"]
ZH_NEWS = [
    "本市今年第三季度地区生产总值同比增长{p}%，其中服务业增加值达到{m}亿元。",
    "据气象台预报，明天白天多云转晴，最高气温{a}摄氏度，最低气温{b}摄氏度。",
    "昨晚的比赛中，主队以{a}比{b}战胜客队，取得三连胜。",
    "地铁{a}号线将于下月{b}日起调整运营时间，首班车提前至早上五点半。",
    "这家餐厅的招牌菜是红烧肉，选用五花肉{c}克，冰糖{a}克，小火慢炖一个小时。",
    "新款手机配备{a}英寸屏幕和{m}毫安时电池，售价{c}99元起。",
    "景区国庆期间共接待游客{m}人次，门票收入同比增长{p}%。",
    "专家提醒，春季是流感高发期，市民应注意勤洗手、多通风。",
    "图书馆周末开放时间为上午九点到晚上八点，借书需要携带读者证。",
    "本次招聘共提供{c}个岗位，报名截止日期为{a}月{b}日。",
    "该小区将于{a}月{b}日进行停水检修，请居民提前做好储水准备。",
    "博物馆新展览展出文物{c}件，预约参观每天限额{m}人。",
    "这款电动汽车续航里程达到{c}公里，充电{a}分钟可以行驶两百公里。",
    "马拉松比赛将于本周日举行，届时部分道路实行交通管制。",
    "新开业的商场共有{c}家商户入驻，周末客流量超过{m}人次。",
    "市民反映公交车班次太少，有关部门表示将增加{a}辆新车。",
    "今年小麦平均亩产{c}公斤，比去年增加{a}公斤。",
    "这道菜需要先把鸡蛋打散，再加入少许盐和葱花，用中火炒{a}分钟。",
    "音乐节共吸引了{m}名观众，{a}支乐队登台演出。",
    "机场航站楼扩建工程预计于{a}月完工，届时年旅客吞吐量将达到{c}万人次。",
]
ZH_NEWS_TITLE = ["本地新闻：{t}", "今日要闻", "体育快讯", "美食推荐：家常红烧肉", "城市交通调整通知", "数码产品评测",
                 "旅游资讯", "健康提醒"]


def zh_math(r, topic: str, prose: bool = False) -> dict:
    words = ZH_TOPIC[topic]
    title = r.choice(ZH_TITLE_MATH).replace("{w}", r.choice(words))
    blocks: list = []
    if prose:
        for _ in range(r.randint(2, 4)):
            sents = []
            for _ in range(r.randint(2, 4)):
                t = r.choice(ZH_PROSE_MATH)
                t = t.format(a=r.randint(3, 15), b=r.randint(2, 12), c=r.randint(20, 140),
                             w=r.choice(words), zh_m=r.choice(ZH_M))
                sents.append((r.choice(ZH_OPEN) if r.random() < 0.4 else "") + t)
            blocks.append(("p", ["".join(sents)]))
        return {"title": title, "blocks": blocks, "math_segments": 0, "topic": topic, "lang": "zh"}
    for _ in range(r.randint(2, 4)):
        segs: list = []
        for _ in range(r.randint(2, 4)):
            t = r.choice(ZH_MATH).replace("{w}", r.choice(words))
            segs.extend(_math_segments(r, t, topic))
        blocks.append(("p", segs))
    return {"title": title, "blocks": blocks, "math_segments": _count_math(blocks), "topic": topic, "lang": "zh"}


def zh_nonmath(r) -> dict:
    blocks = []
    for _ in range(r.randint(2, 5)):
        sents = [(r.choice(ZH_OPEN) if r.random() < 0.4 else "") +
                 r.choice(ZH_NEWS).format(p=round(r.uniform(0.5, 12), 1), m=r.randint(100, 9999),
                                          a=r.randint(1, 30), b=r.randint(1, 28), c=r.randint(10, 900))
                 for _ in range(r.randint(2, 4))]
        blocks.append(("p", ["".join(sents)]))
    title = r.choice(ZH_NEWS_TITLE).replace("{t}", r.choice(["城市建设", "交通出行", "文化活动", "经济数据"]))
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "zh_news", "lang": "zh"}


# ------------------------------------------------------------------ non-maths
COMPANIES = ["Northwind Traders", "Helix Biotech", "Carrow Energy", "Bluefin Logistics", "Quarry Minerals",
             "Solano Foods", "Vantage Semiconductors", "Ridgeway Retail", "Orchid Telecom", "Meridian Bank",
             "Kestrel Airlines", "Tidewater Shipping", "Granite Insurance", "Lumen Software", "Alder Pharma"]
FIN_SENT = [
    "Shares of {co} rose {p}% to ${price} in early trading after quarterly revenue of ${b} billion beat forecasts.",
    "{co} reported net income of ${mm} million, or ${eps} per share, compared with ${mm2} million a year earlier.",
    "The benchmark index closed {dir} {p}% at {idx}, its {ord} {dir2} session in a row.",
    "Ten-year bond yields climbed {bp} basis points to {y}%, the highest level since {month}.",
    "Analysts at {co2} cut their price target to ${price} from ${price2}, citing weaker margins.",
    "The central bank held its policy rate at {y}% and signalled that cuts were unlikely before {month}.",
    "Trading volume reached {vol} million shares, about {p}% above the thirty-day average.",
    "Gross margin narrowed to {pp}% from {pp2}% as freight and energy costs increased.",
    "The company raised its full-year guidance to between ${b} billion and ${b2} billion.",
    "Brent crude slipped to ${oil} a barrel while gold gained {p}% to ${gold} an ounce.",
    "The dividend of ${eps} per share will be paid on {month} {day} to holders of record.",
    "Consumer prices rose {p}% from a year earlier, slightly below the {y}% economists had expected.",
]
TEAMS = ["Riverside Rovers", "Eastfield United", "Harbour City", "Northgate Athletic", "Valley Wanderers",
         "Kingsport FC", "Redhill Rangers", "Lakeside Lions", "Summit Stars", "Old Town Albion",
         "Coastal Comets", "Ironbridge Town"]
SPORT_SENT = [
    "{t1} beat {t2} {s1}-{s2} on {wd}, with {name} scoring twice in the second half.",
    "{name} finished the {km} kilometre race in {mi}:{sec:02d}, {sec2} seconds ahead of the defending champion.",
    "After {g} games {t1} sit {ord} in the table on {pts} points, {d} behind the leaders.",
    "The visitors had {pos}% of possession and {sh} shots, but only {sot} on target.",
    "{name} scored {pts2} points with {reb} rebounds as {t1} won {sc1}-{sc2}.",
    "A crowd of {crowd} watched {t2} come back from {s1}-0 down to draw.",
    "The coach said the squad would rotate ahead of {wd}'s cup tie against {t2}.",
    "{name} has now kept {cs} clean sheets in {g} league appearances this season.",
    "Innings total: {runs} for {wk} in {ov} overs, with {name} making {hs} not out.",
    "The transfer fee is reported to be around {mm} million, rising to {mm2} million with add-ons.",
]
DISHES = ["lentil soup", "banana bread", "chicken curry", "vegetable lasagne", "lemon tart", "mushroom risotto",
          "beef stew", "pancakes", "tomato salsa", "apple crumble", "fish tacos", "chickpea salad"]
INGR = ["flour", "sugar", "butter", "eggs", "milk", "onions", "garlic cloves", "olive oil", "salt", "tomatoes",
        "red lentils", "rice", "cumin", "lemons", "carrots", "stock", "cream", "baking powder", "chicken thighs"]
UNITS = ["g", "ml", "tbsp", "tsp", "cups", "", "kg"]
RECIPE_STEPS = [
    "Preheat the oven to {temp}°C (gas mark {gas}).", "Melt the butter in a large pan over a medium heat.",
    "Add the onions and cook for {mins} minutes until soft.", "Stir in the spices and cook for another minute.",
    "Whisk the eggs with the milk, then fold in the flour.", "Simmer for {mins} minutes, stirring occasionally.",
    "Bake for {mins2} minutes or until golden and a skewer comes out clean.",
    "Season to taste and serve with crusty bread.", "Leave to cool in the tin for {mins} minutes.",
    "Blend until smooth, adding a splash of water if it is too thick.",
    "Serves {serves}. Each portion has about {kcal} kcal.", "Keeps in the fridge for up to {days} days.",
]
STATIONS = ["Central", "Harbour Road", "Millbrook", "West Junction", "Airport", "University", "Old Market",
            "Riverside", "North Park", "Castle Hill", "Docklands", "Elm Grove"]
CODE_TOPICS = [("parse_config", "path, strict=False", "dict"), ("retry", "fn, attempts=3, backoff=0.5", "Any"),
               ("chunked", "iterable, size", "Iterator[list]"), ("read_csv", "path, sep=',', header=True", "Table"),
               ("connect", "host, port=5432, timeout=10", "Connection"), ("hash_file", "path, algo='sha256'", "str"),
               ("paginate", "query, page=1, per_page=50", "Page"), ("render", "template, **context", "str"),
               ("schedule", "job, every=60", "Handle"), ("merge_sorted", "a, b, key=None", "list")]
CODE_SENT = [
    "Returns {ret} or raises ValueError when the input is malformed.",
    "The default of {n} was chosen to keep memory use below {m} MB on typical inputs.",
    "Since version {v1}.{v2} the function accepts any path-like object.",
    "Set the environment variable APP_DEBUG=1 to log every call.", "This call is thread-safe.",
    "Timeouts are measured in seconds; a value of 0 disables the limit.",
    "The result is cached for {n} seconds unless cache=False is passed.",
    "Complexity is linear in the number of items, with a constant of about {n} microseconds per item.",
    "Deprecated parameters emit a warning and will be removed in {v1}.0.",
    "If x is None the loop exits early and returns the accumulated value y = x + offset.",
]
SCIENCE_SENT = [
    "The team measured a signal of {p} sigma at an energy of {n} GeV, above the usual discovery threshold.",
    "Using Einstein's famous equation E = mc², the researchers estimated the energy released in the collision.",
    "The probe will travel {m} million kilometres before reaching orbit in {month}.",
    "Water expands by about nine percent when it freezes, which is why pipes burst in winter.",
    "The new battery chemistry stores {n}0 watt-hours per kilogram, roughly {p}% more than current cells.",
    "According to Newton's second law, force equals mass times acceleration, so a heavier car needs more braking.",
    "Global average temperature was {y} degrees above the pre-industrial baseline last year.",
    "The telescope's mirror is {n} metres across and is cooled to minus {m} degrees.",
    "Researchers at the University of {city} published their results in a peer-reviewed journal on {wd}.",
    "The vaccine trial enrolled {m} volunteers across {n} sites and reported efficacy of {pp}%.",
    "Ohm's law relates voltage, current and resistance, and the engineers used it to size the cables.",
    "The reactor reached a plasma temperature of {m} million degrees for {n} seconds.",
]
GENERAL_SENT = {
    "travel": ["We arrived in {city} just after sunrise and walked to the old harbour.",
               "The ferry to the islands leaves twice a day and costs about {n} euros.",
               "Our guesthouse was a converted mill with a garden full of fig trees.",
               "The market sells smoked fish, cheese and bread baked in wood ovens.",
               "A local guide told us the cathedral took two centuries to finish.",
               "If you only have one day, skip the museum and climb the hill at dusk.",
               "The hiking trail is {n} kilometres long and well marked with red signs.",
               "Dinner at the family-run tavern was the highlight of the trip."],
    "garden": ["Sow the seeds in trays in early spring and keep them on a sunny windowsill.",
               "Tomatoes need a sheltered spot and regular watering once the fruit sets.",
               "Mulch the beds with compost to keep the soil moist and suppress weeds.",
               "Prune roses in late winter, cutting just above an outward-facing bud.",
               "Slugs love young lettuce; a ring of grit around each plant helps.",
               "Dahlias can be lifted after the first frost and stored in dry sand.",
               "Plant garlic cloves {n} centimetres apart with the pointed end up.",
               "Bees are drawn to lavender, borage and open-flowered dahlias."],
    "health": ["Regular walking lowers blood pressure and improves sleep quality.",
               "Adults should aim for at least {n}0 minutes of moderate activity each week.",
               "Drinking enough water matters more in hot weather and during exercise.",
               "Talk to your doctor before starting any new supplement.",
               "Stretching after a run can reduce stiffness the next day.",
               "A balanced breakfast with protein keeps you full until lunch.",
               "Screen time before bed makes it harder for many people to fall asleep.",
               "The clinic offers free flu vaccinations on {wd} mornings."],
    "tech": ["The laptop weighs {n}00 grams and the battery lasted {n2} hours in our video test.",
             "The camera struggles in low light, but daylight photos are sharp and natural.",
             "At {m} it is not cheap, yet the build quality justifies most of the price.",
             "The keyboard is comfortable, with {n2} millimetres of key travel.",
             "Setup took ten minutes and the companion app is refreshingly simple.",
             "Charging from empty to full takes about {n} minutes with the bundled adapter.",
             "The screen reaches {m} nits, bright enough for use outdoors.",
             "Fans stay quiet during office work but become loud when gaming."],
    "local": ["The council approved the new cycle lane on {wd} after a long debate.",
              "Residents of {city} gathered at the town hall to discuss the plans for the library.",
              "The bridge will close for repairs for {n} weeks starting next month.",
              "Volunteers collected {m} kilograms of litter from the beach.",
              "The school choir won first prize at the regional festival.",
              "A new bakery opened on the high street, run by two sisters.",
              "Police asked drivers to avoid the ring road during the marathon.",
              "The summer fair returns with music, food stalls and a dog show."],
    "film": ["The film runs {n}0 minutes and never feels too long.",
             "Its director, {name}, keeps the camera close to the actors.",
             "The score, mostly strings and piano, carries the quieter scenes.",
             "The second act drags, but the final twenty minutes are gripping.",
             "{name} gives the best performance of her career as the grieving sister.",
             "It opens in cinemas on {wd} and streams from next month.",
             "The novel it is based on was a bestseller in {city}.",
             "Some jokes land, others feel borrowed from older comedies."],
    "careers": ["We are hiring a warehouse supervisor for our site in {city}.",
                "The role involves planning shifts for a team of {n} people.",
                "Salary starts at {m}0 per year plus benefits.",
                "Apply online with a CV and a short cover letter.",
                "Experience with forklifts and stock systems is an advantage.",
                "Interviews will take place in the week of {month} {day}.",
                "We offer flexible hours and {n2} days of annual leave.",
                "Our office is five minutes from the train station."],
}


def _numslots() -> dict:
    return {
        "co": lambda r: r.choice(COMPANIES), "co2": lambda r: r.choice(COMPANIES),
        "p": lambda r: round(r.uniform(0.1, 14.9), 1), "price": lambda r: round(r.uniform(5, 480), 2),
        "price2": lambda r: r.randint(5, 500), "b": lambda r: round(r.uniform(0.4, 60), 1),
        "b2": lambda r: round(r.uniform(60, 90), 1), "mm": lambda r: r.randint(3, 950), "mm2": lambda r: r.randint(3, 950),
        "eps": lambda r: round(r.uniform(0.05, 9.9), 2), "dir": lambda r: r.choice(["up", "down"]),
        "dir2": lambda r: r.choice(["winning", "losing"]), "idx": lambda r: f"{r.randint(3000, 42000):,}",
        "ord": lambda r: r.choice(["second", "third", "fourth", "fifth", "sixth"]),
        "bp": lambda r: r.randint(1, 25), "y": lambda r: round(r.uniform(0.5, 6.5), 2),
        "month": lambda r: r.choice(MONTHS), "vol": lambda r: round(r.uniform(1, 90), 1),
        "pp": lambda r: round(r.uniform(20, 60), 1), "pp2": lambda r: round(r.uniform(20, 60), 1),
        "oil": lambda r: round(r.uniform(55, 110), 2), "gold": lambda r: f"{r.randint(1700, 2600):,}",
        "day": lambda r: r.randint(1, 28), "t1": lambda r: r.choice(TEAMS), "t2": lambda r: r.choice(TEAMS),
        "s1": lambda r: r.randint(0, 5), "s2": lambda r: r.randint(0, 4), "wd": lambda r: r.choice(WEEKDAYS),
        "km": lambda r: r.choice([5, 10, 21, 42]), "mi": lambda r: r.randint(14, 150), "sec": lambda r: r.randint(0, 59),
        "sec2": lambda r: r.randint(1, 59), "g": lambda r: r.randint(5, 38), "pts": lambda r: r.randint(5, 90),
        "d": lambda r: r.randint(1, 15), "pos": lambda r: r.randint(35, 70), "sh": lambda r: r.randint(4, 25),
        "sot": lambda r: r.randint(1, 10), "pts2": lambda r: r.randint(8, 45), "reb": lambda r: r.randint(2, 18),
        "sc1": lambda r: r.randint(80, 130), "sc2": lambda r: r.randint(75, 125),
        "crowd": lambda r: f"{r.randint(2000, 75000):,}", "cs": lambda r: r.randint(1, 20),
        "runs": lambda r: r.randint(120, 420), "wk": lambda r: r.randint(2, 10), "ov": lambda r: r.randint(20, 50),
        "hs": lambda r: r.randint(40, 180), "n2": lambda r: r.randint(2, 30),
        "v1": lambda r: r.randint(1, 5), "v2": lambda r: r.randint(0, 12), "ret": lambda r: r.choice(
            ["None", "a list of rows", "the parsed value", "a new Connection", "an iterator"]),
    }


NUM = _numslots()


def finance(r) -> dict:
    co = r.choice(COMPANIES)
    title = r.choice([f"{co} shares jump after results", f"Markets: stocks {r.choice(['edge higher', 'slide', 'steady'])} "
                      f"as yields rise", f"{co} Q{r.randint(1, 4)} earnings: what to know", "Weekly market wrap",
                      f"{co} raises dividend"])
    blocks: list = [("p", [" ".join(_sentences(r, FIN_SENT, r.randint(3, 5), **NUM))]) for _ in range(r.randint(2, 4))]
    if r.random() < 0.6:
        rows = [[c, f"{r.uniform(5, 500):.2f}", f"{r.uniform(-6, 6):+.2f}%", f"{r.randint(1, 900)}M"]
                for c in r.sample(COMPANIES, r.randint(4, 8))]
        blocks.append(("table", ["Company", "Price", "Change", "Volume"], rows))
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "finance"}


def sports(r) -> dict:
    t1, t2 = r.sample(TEAMS, 2)
    title = r.choice([f"{t1} {r.randint(0, 5)}-{r.randint(0, 4)} {t2}: match report", f"{t1} climb to {r.choice(['second', 'third'])}",
                      "Weekend results round-up", f"{t2} sign midfielder", "League table after matchday " + str(r.randint(3, 38))])
    blocks: list = [("p", [" ".join(_sentences(r, SPORT_SENT, r.randint(3, 5), **NUM))]) for _ in range(r.randint(2, 4))]
    if r.random() < 0.7:
        rows = []
        for pos, t in enumerate(r.sample(TEAMS, 8), 1):
            w, d, l = r.randint(0, 20), r.randint(0, 10), r.randint(0, 15)
            rows.append([str(pos), t, str(w + d + l), str(w), str(d), str(l), str(3 * w + d)])
        blocks.append(("table", ["Pos", "Team", "P", "W", "D", "L", "Pts"], rows))
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "sports"}


def recipe(r) -> dict:
    dish = r.choice(DISHES)
    items = [f"{r.choice([50, 100, 150, 200, 250, 300, 400, 500, 1, 2, 3])}{r.choice(UNITS)} {i}"
             for i in r.sample(INGR, r.randint(5, 10))]
    steps = _sentences(r, RECIPE_STEPS, r.randint(4, 8), temp=lambda r: r.choice([160, 180, 190, 200, 220]),
                       gas=lambda r: r.randint(3, 7), mins=lambda r: r.randint(5, 25), mins2=lambda r: r.randint(20, 60),
                       serves=lambda r: r.randint(2, 8), kcal=lambda r: r.randint(180, 720), days=lambda r: r.randint(2, 5))
    blocks = [("p", [f"This {dish} takes about {r.randint(20, 90)} minutes and serves {r.randint(2, 8)}."]),
              ("h2", "Ingredients"), ("ul", items), ("h2", "Method"), ("p", [" ".join(steps)])]
    return {"title": f"{_cap(dish)} recipe", "blocks": blocks, "math_segments": 0, "topic": "recipe"}


def timetable(r) -> dict:
    line = r.choice(["Line 1", "Line 4", "Coastal Line", "Express 12", "Bus 73", "Night bus N5"])
    stops = r.sample(STATIONS, r.randint(5, 8))
    h0 = r.randint(5, 9)
    rows = []
    for s_i, s in enumerate(stops):
        rows.append([s] + [f"{(h0 + k) % 24:02d}:{(7 * s_i + 13 * k + r.randint(0, 3)) % 60:02d}" for k in range(5)])
    blocks = [("p", [f"Timetable valid from {r.choice(MONTHS)} {r.randint(1, 28)}. "
                     f"Trains run every {r.choice([10, 15, 20, 30])} minutes on weekdays and every "
                     f"{r.choice([30, 60])} minutes on Sundays."]),
              ("table", ["Stop", "Dep 1", "Dep 2", "Dep 3", "Dep 4", "Dep 5"], rows),
              ("p", [f"Tickets cost {r.uniform(1.5, 9):.2f} for a single and {r.uniform(4, 25):.2f} for a day pass. "
                     "Engineering works may cause delays at weekends."])]
    return {"title": f"{line} timetable", "blocks": blocks, "math_segments": 0, "topic": "timetable"}


def code_doc(r) -> dict:
    fn, args, ret = r.choice(CODE_TOPICS)
    mod = r.choice(["utils", "io", "net", "core", "tasks", "db"])
    code = (f"from mylib.{mod} import {fn}\n\nresult = {fn}({args.split(',')[0]})\n"
            f"for i in range({r.randint(2, 50)}):\n    total = total + i * {r.randint(2, 9)}\nprint(result, total)\n")
    blocks = [("p", [f"{fn}({args}) -> {ret}"]),
              ("p", [" ".join(_sentences(r, CODE_SENT, r.randint(3, 5), **NUM))]),
              ("h2", "Example"), ("pre", code),
              ("p", [" ".join(_sentences(r, CODE_SENT, r.randint(2, 4), **NUM))])]
    return {"title": f"mylib.{mod}.{fn} — API reference", "blocks": blocks, "math_segments": 0, "topic": "code"}


def science(r) -> dict:
    title = r.choice(["Physicists report new measurement", "Probe reaches orbit", "Battery breakthrough?",
                      "Why pipes burst in winter", "Record heat last year", "Fusion experiment sets record",
                      "How brakes turn motion into heat"])
    blocks = [("p", [" ".join(_sentences(r, SCIENCE_SENT, r.randint(3, 5), **NUM))]) for _ in range(r.randint(2, 4))]
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "science"}


PHYSICS_TEX = ["E = mc^2", "F = ma", "P = \\frac{W}{t}", "v = \\lambda f", "PV = nRT", "E = h f",
               "\\Delta x \\, \\Delta p \\ge \\frac{h}{4\\pi}", "V = IR", "F = G \\frac{m_1 m_2}{r^2}",
               "E_k = \\frac{1}{2} m v^2", "p = mv", "T = 2\\pi \\sqrt{\\frac{L}{g}}"]


def science_eq(r) -> dict:
    """Science news that quotes one equation with maths markup (a hard negative)."""
    d = science(r)
    i = r.randrange(len(d["blocks"]))
    text = d["blocks"][i][1][0]
    d["blocks"][i] = ("p", [text + " " + r.choice(["The relation at work is ", "Engineers rely on the familiar ",
                                                     "The article's key formula is ", "As the textbook puts it, "]),
                            ("m", r.choice(PHYSICS_TEX), False), "."])
    d["math_segments"] = 1
    d["topic"] = "science_eq"
    return d


EDU_SENT = [
    "Pass rates in the maths exam rose to {p}% this year, the exam board said.",
    "The school will hire {n2} new maths teachers before the autumn term.",
    "Parents complained that the algebra homework took more than an hour each night.",
    "The curriculum review recommends more time for arithmetic in primary schools.",
    "A maths competition for teenagers in {city} drew {m} entries.",
    "Calculators remain banned in the first of the three exam papers.",
    "Universities report {p}% fewer applicants for mathematics degrees.",
    "The statistics course will move online from {month}.",
    "Teachers say the new geometry textbooks arrived late.",
    "Tutoring companies charge up to {n}0 an hour for exam preparation.",
    "The minister promised that every pupil would study maths until the age of eighteen.",
    "Girls outperformed boys in the probability and statistics paper for the {ord} year running.",
]


def education(r) -> dict:
    """News about maths education: maths words, no maths content (a hard negative)."""
    blocks = [("p", [" ".join(_sentences(r, EDU_SENT, r.randint(3, 5), **NUM))]) for _ in range(r.randint(2, 3))]
    return {"title": r.choice(["Maths exam results improve", "Schools struggle to hire maths teachers",
                               "Curriculum review published", "Fewer students choose mathematics"]),
            "blocks": blocks, "math_segments": 0, "topic": "education"}


def general(r, kind: str) -> dict:
    bank = GENERAL_SENT[kind]
    titles = {"travel": f"Three days in {r.choice(CITIES)}", "garden": f"{r.choice(MONTHS)} jobs in the garden",
              "health": r.choice(["Simple habits for better sleep", "Walking for health", "Flu season advice"]),
              "tech": r.choice(["Review: the new ultrabook", "Hands-on with the budget phone", "Best earbuds this year"]),
              "local": r.choice(["Council backs cycle lane", "Bridge to close for repairs", "Summer fair returns"]),
              "film": r.choice(["Review: a quiet family drama", "This week's new releases", "The thriller everyone is watching"]),
              "careers": r.choice(["Warehouse supervisor", "Customer service adviser", "Delivery driver"])}
    blocks = [("p", [" ".join(_sentences(r, bank, r.randint(3, 6), **NUM))]) for _ in range(r.randint(2, 5))]
    return {"title": titles[kind], "blocks": blocks, "math_segments": 0, "topic": kind}


def user_profile(r, tags: list[str]) -> dict:
    who = name(r)
    blocks = [("p", [f"Member since {r.choice(MONTHS)} {r.randint(2009, 2024)}. Last seen {r.randint(2, 59)} minutes ago."]),
              ("p", [f"Reputation {r.randint(1, 90000):,}; {r.randint(0, 900)} answers; {r.randint(0, 200)} questions; "
                     f"reached about {r.randint(1, 900)}k people."]),
              ("p", [r.choice(["Software engineer in ", "Retired teacher living in ", "Student from ", "Hobbyist in ",
                               "Bookseller in "]) + r.choice(CITIES) + ". " +
                     r.choice(["I like hiking and chess.", "Coffee first.", "Opinions are my own.", "Learning every day."])]),
              ("h2", "Top tags"), ("ul", [f"{t} — score {r.randint(1, 800)}" for t in r.sample(tags, min(4, len(tags)))]),
              ("h2", "Badges"), ("ul", [r.choice(["Nice Answer", "Autobiographer", "Supporter", "Yearling", "Curious",
                                                  "Editor", "Critic", "Teacher"]) for _ in range(3)])]
    return {"title": f"User {who}", "blocks": blocks, "math_segments": 0, "topic": "profile"}


def tag_page(r, tags: list[str]) -> dict:
    rows = [[t, f"{r.randint(10, 90000):,}", f"{r.randint(0, 80)} asked today"] for t in r.sample(tags, min(8, len(tags)))]
    blocks = [("p", ["A tag is a keyword or label that categorises your question with other, similar questions. "
                     "Using the right tags makes it easier for others to find and answer your question."]),
              ("table", ["Tag", "Questions", "Activity"], rows),
              ("p", [f"Showing page {r.randint(1, 40)} of {r.randint(40, 90)}. Sort by popularity, name or newest."])]
    return {"title": "Tags", "blocks": blocks, "math_segments": 0, "topic": "tags"}


HELP_SENT = ["You can edit your profile from the settings page.", "Reputation is earned when other users vote on your posts.",
             "Please search before asking a new question.", "Questions that are unclear may be closed by the community.",
             "To reset your password, follow the link in the email we send you.",
             "Moderators are elected once a year.", "Comments are temporary and may be deleted.",
             "You need {n} reputation points to vote down.", "Accepting an answer gives you two points.",
             "The site is run by volunteers and funded by advertising.", "Read our privacy policy for details on cookies.",
             "Contact us through the form if your account was suspended.", "Images must be under {n} MB."]


def help_page(r) -> dict:
    title = r.choice(["Help center", "How do I ask a good question?", "Privacy policy", "About reputation",
                      "Account recovery", "Code of conduct", "Frequently asked questions"])
    blocks = [("p", [" ".join(_sentences(r, HELP_SENT, r.randint(3, 6), **NUM))]) for _ in range(r.randint(2, 4))]
    return {"title": title, "blocks": blocks, "math_segments": 0, "topic": "help"}


DEPT_SENT = ["The department welcomes {name}, who joins us as a lecturer this autumn.",
             "Applications for the summer research programme close on {month} {day}.",
             "The annual prize-giving will be held in the main hall at {n2}:00.",
             "Our students organised a charity run that raised {m} for the food bank.",
             "The library will be closed during the building works.",
             "Congratulations to {name}, whose thesis was shortlisted for the faculty award.",
             "Seminar rooms can be booked through the online calendar.",
             "Parking permits for the new term are available from the front office.",
             "Please send your timetable requests to the undergraduate office by {wd}."]


def dept_news(r) -> dict:
    blocks = [("p", [" ".join(_sentences(r, DEPT_SENT, r.randint(3, 5), **NUM))]) for _ in range(r.randint(2, 3))]
    return {"title": r.choice(["Department news", "Welcome to our new staff", "Term dates and events", "Open day"]),
            "blocks": blocks, "math_segments": 0, "topic": "dept_news"}


def book_review(r, topic: str) -> dict:
    """A review of a maths book: talks about maths but is mostly about the book (label: ambiguous)."""
    w = r.choice(TOPIC_WORDS[topic])
    sents = [f"This book on the {w} is aimed at undergraduates and curious readers.",
             f"The author, {name(r)}, writes clearly and the exercises are well chosen.",
             f"At {r.randint(180, 620)} pages it is not short, and the price of {r.randint(20, 90)} is steep.",
             "The later chapters assume more background than the preface admits.",
             f"Compared with older texts on {TOPIC_LABEL[topic]}, it has more pictures and fewer proofs.",
             "I would recommend it for a reading group rather than for self-study.",
             "The index is thin and the typesetting of the tables could be better.",
             f"I read it over {r.randint(2, 9)} weekends in {r.choice(CITIES)} and enjoyed most of it.",
             f"The publisher, {r.choice(COMPANIES)}, sent a review copy; the opinions are mine.",
             f"The {r.choice(['second', 'third', 'new'])} edition fixes {r.randint(10, 80)} misprints of the first.",
             f"Chapter {r.randint(2, 12)} is the highlight, chapter {r.randint(13, 20)} the weak spot.",
             "The cover is ugly, but do not let that put you off.",
             f"Rating: {r.randint(2, 5)} out of 5."]
    r.shuffle(sents)
    sents = [_decorate(r, x) for x in sents[: r.randint(4, 7)]]
    return {"title": f"Book review: {_cap(w)} for everyone", "blocks": [("p", [" ".join(sents)])],
            "math_segments": 0, "topic": "book_review"}


_PROPER |= {w.split()[0] for w in TEAMS + COMPANIES + MATHEMATICIANS}
