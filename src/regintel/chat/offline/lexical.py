"""A small TF-IDF model over unit texts: cheap lexical similarity between obligations and
policy clauses, used to choose which obligations are worth embedding."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
_STOP_WORDS = """
the and for that with from this into such which where when whether there their them they
these those have has had been being will shall must should would could may might can than
then also under upon other each every either within without about after before including
include includes any all its not are was were our your who whom whose what one two per via
out only more most less least same own
"""
STOP = frozenset(_STOP_WORDS.split())


# An audit stems about 120,000 words, most of them many times over (the same rule and policy
# texts are read by each step): remembering them saves most of the 0.4 s the profiler gave
# the stemmer in an audit of the Kestrel policy.
@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude suffix stripper; "complete", "completes" and "completed" are one stem."""
    word = word.lower()
    for suffix in ("ications", "ication", "ations", "ation", "ments", "ment", "ings", "ing",
                   "ies", "ied", "ers", "er", "es", "ed", "ly", "s", "y", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


# "Rule 4.1.1(4)", "clause 17.1", "Article 6": a reference, not what the text is about.
_REFERENCE = re.compile(r"\b(?:rules?|articles?|sections?|chapters?|clauses?|paragraphs?|parts?)"
                        r"\s+[\u200e\d][\w.()\u200e]*", re.I)


# Abbreviations a policy writes for what a rule spells out.
_PO_BOX = re.compile(r"\bP\.?\s?O\.?\s?Box(?:es)?\b", re.I)
# Policies call the regulator by its initials; the ADGM rulebooks call it "the Regulator"
# (their glossary: "Regulator Means the ADGM Financial Services Regulatory Authority"). Search
# learns that from the glossary (glossary.acronyms); words compare it here, or a policy that
# "sends the FSRA a copy of the report" does not restate "must provide to the Regulator a
# copy of the report" (a false omission on two development policies).
_REGULATOR = re.compile(r"\bFSRA\b")


@lru_cache(maxsize=1 << 14)
def terms(text: str) -> tuple[str, ...]:
    """The stemmed content words of ``text``, cross-references left out (a tuple: it is
    remembered, and shared by every caller that reads the same text)."""
    text = _REGULATOR.sub("Regulator", _PO_BOX.sub("post office box", _REFERENCE.sub(" ", text)))
    return tuple(stem(w) for w in _WORD.findall(text) if w.lower() not in STOP)


def tfidf(docs: Sequence[str], *, vocabulary: dict[str, int] | None = None,
          idf: npt.NDArray[np.float64] | None = None,
          ) -> tuple[npt.NDArray[np.float64], dict[str, int], npt.NDArray[np.float64]]:
    """L2-normalised TF-IDF rows for ``docs``; pass the vocabulary and idf of one fit to
    project other texts into the same space."""
    counted = [Counter(terms(d)) for d in docs]
    if vocabulary is None or idf is None:
        df: Counter[str] = Counter()
        for c in counted:
            df.update(c.keys())
        vocabulary = {t: i for i, t in enumerate(sorted(df))}
        idf = np.array([math.log((1 + len(docs)) / (1 + df[t])) + 1 for t in sorted(df)])
    matrix = np.zeros((len(docs), len(vocabulary)))
    for row, c in enumerate(counted):
        for t, n in c.items():
            if (col := vocabulary.get(t)) is not None:
                matrix[row, col] = (1 + math.log(n)) * idf[col]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms), vocabulary, idf
