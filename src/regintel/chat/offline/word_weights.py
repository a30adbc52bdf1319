"""Words weighed by how rare they are among the policy and the obligations being checked: how
much of an obligation a policy clause says in its own words."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from regintel.chat.offline.lexical import terms
from regintel.chat.offline.segments import Unit

WORDED_ALIKE = 0.6  # more than this share of an obligation's words (idf-weighted): a paraphrase


class Weights:
    """Word weights (idf over the policy and the obligations being checked) for
    ``coverage``."""

    def __init__(self, vocabulary: dict[str, int], idf: npt.NDArray[np.float64], *,
                 ignore: set[str]) -> None:
        self._vocabulary, self._idf = vocabulary, idf
        self._ignore = ignore  # the regulation's addressee ("Relevant Person") says nothing

    def weight(self, term: str) -> float:
        at = self._vocabulary.get(term)
        return float(self._idf[at]) if at is not None else 0.0

    def shared(self, text: str, clause: Unit) -> float:
        """The idf weight of the words ``text`` and ``clause``'s own text have in common."""
        return sum(self.weight(t) for t in set(terms(text)) & set(terms(clause.body)))

    def restated(self, text: str, clauses: Iterable[Unit]) -> bool:
        """Whether one of ``clauses`` says ``text`` in the same words, mostly (a paraphrase:
        more than WORDED_ALIKE of them)."""
        return any(self.coverage(text, clause) > WORDED_ALIKE for clause in clauses)

    def coverage(self, text: str, clause: Unit) -> float:
        """The idf-weighted share of ``text``'s words that ``clause`` (with its lead-in)
        also uses. Rare words count most, so "Shell Bank" decides whether "must not establish
        … a business relationship with a Shell Bank" is met, not "business relationship"."""
        own = set(terms(text)) - self._ignore
        total = sum(self.weight(t) for t in own)
        if not total:
            return 0.0
        theirs = set(terms(f"{clause.stem} {clause.body}"))
        return sum(self.weight(t) for t in own & theirs) / total
