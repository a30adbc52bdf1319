"""How concepts relate, read off their labels and definitions (SKOS broader/related).

* ``broader``: the definition's genus names another concept ("'genetic data' means personal
  data relating to …" → broader *personal data*), or the label is another concept's label
  with a modifier in front ("high-risk AI system" → broader *AI system*);
* ``related``: the definition mentions another concept by label.

Only concepts of one domain and jurisdiction are compared: a GDPR term is not the broader
term of an AI Act one just because the words match."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regintel.domain.concepts import norm_label

_ARTICLE = re.compile(r"^(a|an|any|the|all|each|every)\s+", re.I)
MAX_RELATED = 5


@dataclass(frozen=True)
class ConceptText:
    key: str
    label: str
    definition: str = ""


def _mentions(text: str, label: str) -> bool:
    return re.search(rf"\b{re.escape(label)}(?:e?s)?\b", text) is not None


def infer_relations(concept: ConceptText,
                    others: Sequence[ConceptText]) -> list[tuple[str, str]]:
    """``(rel, other_key)`` pairs with ``rel`` in BROADER / RELATED, strongest first."""
    own = norm_label(concept.label)
    definition = norm_label(concept.definition)
    genus = _ARTICLE.sub("", definition)
    candidates = sorted((o for o in others if o.key != concept.key),
                        key=lambda o: -len(norm_label(o.label)))
    broader: list[str] = []
    related: list[str] = []
    for other in candidates:
        label = norm_label(other.label)
        if not label or label == own:
            continue
        if genus.startswith(label + " ") or genus == label or \
                (own.endswith(" " + label) and len(label) > 3):
            # Longest label first: the most specific genus wins ("personal data" over "data").
            if not broader:
                broader.append(other.key)
            continue
        if len(related) < MAX_RELATED and len(label) > 3 and _mentions(definition, label):
            related.append(other.key)
    return [("BROADER", k) for k in broader] + [("RELATED", k) for k in related]
