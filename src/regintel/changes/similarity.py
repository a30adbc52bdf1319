"""How alike two provisions are, by their words.

Two measures, each where it is right: TF-IDF cosine over word unigrams and bigrams to pair
whole sections (the words every section of a regulation shares — "the firm", "shall" — weigh
little, so two unrelated sections do not look alike), and the Dice overlap of word multisets
for two paragraphs already known to be neighbours (cheap, and exact enough at that size).
No embedding model: a provision is renumbered, moved or amended with most of its words
kept, which word overlap sees; a paraphrase with other words is rightly a replacement."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

_WORD = re.compile(r"\w+")
_TOKENS = r"(?u)\b\w+\b"  # every word, one letter too ("(a)", "A is a citizen")


@lru_cache(maxsize=65536)
def bag(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def dice(a: str, b: str) -> float:
    """2·|common words| / (|a| + |b|), counting repeats: 1.0 for the same words."""
    ba, bb = bag(a), bag(b)
    total = sum(ba.values()) + sum(bb.values())
    if total == 0:
        return 1.0
    return 2 * sum((ba & bb).values()) / total


def contained(part: str, whole: str) -> float:
    """The share of ``part``'s words that ``whole`` has (a split-off piece is inside the
    paragraph it came from)."""
    bp = bag(part)
    size = sum(bp.values())
    return sum((bp & bag(whole)).values()) / size if size else 0.0


def words(text: str) -> int:
    return len(_WORD.findall(text))


def cosine_matrix(old: Sequence[str], new: Sequence[str]) -> np.ndarray:
    """Cosine of every old text against every new one (rows old, columns new)."""
    if not old or not new:
        return np.zeros((len(old), len(new)))
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, lowercase=True,
                                 token_pattern=_TOKENS)
    try:
        matrix = vectorizer.fit_transform([*old, *new])
    except ValueError:  # no words at all (every text a bare label)
        return np.zeros((len(old), len(new)))
    product = matrix[: len(old)] @ matrix[len(old):].T
    return np.asarray(product.todense())
