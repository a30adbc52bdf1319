"""Word overlap between a rule and a policy sentence: the share of the rule's content words
(lower-cased, crudely stemmed, stop words out) that the sentence uses. Beside the embedding
it rewards the rule's own nouns ("correspondent", "retention") that a paraphrase keeps."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{2,}")
_STOP = frozenset("""the and for are but not you all any can had has have her his its may
must shall should will with this that these those from into onto than then there their them
they such which who whom whose what when where while within without upon under over also
other each every our out per been being was were does did done only own same some very
about above after again against because before below between both during further here how
more most nor off once few too just none including include includes where whether either
neither unless until""".split())  # noqa: SIM905 - a word list reads better as text


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def content_words(text: str) -> frozenset[str]:
    return frozenset(_stem(w.lower().strip("'’-")) for w in _WORD.findall(text)
                     if w.lower() not in _STOP)


def overlap(rule: frozenset[str], policy: frozenset[str]) -> float:
    return len(rule & policy) / len(rule) if rule else 0.0
