"""The sentences of a checked text (an email, a draft) that propose not doing, delaying,
hiding, deleting or altering something (issue 47), each with the three binding rules its
proposal comes closest to and the rule's required act quoted. A flag asks the reader to
weigh the sentence; it asserts nothing - findings stay the contradictions the engine proves.

The cues are of English in general (a negated duty, "next month", "keep it quiet",
"delete", "backdate"), never of one regulation. A sentence is matched to rules by its own
words and by the act its cue names ("not screen him against sanctions lists": "screen him
against sanctions lists"), whichever is closer, so a rule is found from what the sentence
proposes to leave undone."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.domain.chat import FlaggedRule, FlaggedSentence
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import Regulation, closeness, row_text
from regintel.obligations.policy_text import PolicyUnit
from regintel.obligations.quotes import cut_quote
from regintel.obligations.set_aside import SetAside

TOP_RULES = 3
# Proposals beyond not doing (set_aside's cues): putting off, hiding, deleting, altering.
_LATER = (r"later|next\s+(?:week|month|quarter|year)|in\s+a\s+(?:week|month|few\s+weeks)|"
          r"after\s+(?:the|he|she|they|it|we)\b|when\s+(?:he|she|they)\s+(?:is|are)\s+back|"
          r"once\s+(?:he|she|they|it)\b|delay(?:s|ed|ing)?|wait(?:s|ed|ing)?\s+(?:for|until)|"
          r"until\s+after|at\s+the\s+(?:end|next)|(?:once|twice)\s+(?:a|every)\b|every\s+"
          r"(?:two|three|few|other)\s+(?:years|months)")
_HIDE = (r"hide|conceal|keep\s+(?:it|this|that|them)\s+(?:quiet|between|off|to\s+ourselves)|"
         r"(?:don['’]t|do\s+not|not\s+to|never)\s+(?:tell|mention|inform|report|disclose|"
         r"notify|escalate|copy)|off\s+the\s+record|no\s*one\s+(?:needs|has)\s+to\s+know")
_DELETE = (r"delete|destroy|erase|shred|purge|wipe|remove|strip|get\s+rid\s+of|throw\s+away|"
           r"dispose\s+of")
_ALTER = (r"alter|backdate|back-date|change\s+the\s+(?:date|record|figures?)|rewrite|"
          r"re-?word\s+the|tweak|adjust\s+the\s+(?:date|record|figures?)|pre-?(?:tick|check|fill)"
          r"(?:ed)?|automatically\s+(?:opted|ticked|consent)|bury|buried")
_FLAG = re.compile(rf"\b(?:{_LATER}|{_HIDE}|{_DELETE}|{_ALTER})\b", re.IGNORECASE)
MIN_SCORE = 0.3  # a rule at least this close to the sentence or its act…
SEARCHED = 0.15  # …its closeness lifted by up to this when the search finds its passage


@dataclass(frozen=True)
class Flag:
    unit: int
    cue: str


def flagged_units(units: Sequence[PolicyUnit],
                  acts: Sequence[tuple[int, SetAside]]) -> list[Flag]:
    """The units that propose not doing, delaying, hiding, deleting or altering, once each,
    with the first cue that says so."""
    cues: dict[int, str] = {n: act.cue for n, act in reversed(acts)}
    for n, unit in enumerate(units):
        found = _FLAG.search(unit.text)
        if n not in cues and found is not None:
            cues[n] = found[0]
    return [Flag(n, cues[n]) for n in sorted(cues)]


def flagged_sentences(regulations: Sequence[Regulation], units: Sequence[PolicyUnit],
                      unit_vectors: npt.NDArray[np.float32],
                      acts: Sequence[tuple[int, SetAside]],
                      act_vectors: npt.NDArray[np.float32], *,
                      found: Mapping[int, Sequence[UUID]] | None = None
                      ) -> list[FlaggedSentence]:
    """Each flagged unit with the TOP_RULES binding rules it may break, one per rule label,
    across the regulations: by closeness to the sentence or its acts, lifted for the rules
    of the passages the library's search finds for them (``found``: per unit, chunk ids,
    best first; each passage's rule the one closest to the sentence)."""
    flags = flagged_units(units, acts)
    if not flags:
        return []
    candidates: list[list[tuple[float, FlaggedRule]]] = [[] for _ in flags]  # (-lifted, …)
    for regulation in regulations:
        binding = [i for i, r in enumerate(regulation.rows) if r.strength != "recommendation"]
        if not binding:
            continue
        texts = [row_text(regulation.rows[i]) for i in binding]
        chosen = [f.unit for f in flags]
        to_units = closeness(regulation.vectors[binding], texts, unit_vectors[chosen],
                             [content_words(units[n].text) for n in chosen])
        to_acts = closeness(regulation.vectors[binding], texts, act_vectors,
                            [content_words(a.act) for _, a in acts]) if len(acts) else None
        for k, flag in enumerate(flags):
            scores = to_units[:, k]
            if to_acts is not None:
                mine = [m for m, (n, _) in enumerate(acts) if n == flag.unit]
                if mine:
                    scores = np.maximum(scores, to_acts[:, mine].max(axis=1))
            # The search's passages lift their rules: a rule found by the search and close
            # to the sentence leads, one merely close follows.
            lifted = scores.copy()
            searched = _searched(regulation, binding, scores,
                                 (found or {}).get(flag.unit, ()))
            for rank, position in enumerate(searched):
                lifted[position] += SEARCHED * (1 - rank / len(searched))
            ranked = [p for p in np.argsort(-lifted)[:TOP_RULES * 3]
                      if lifted[p] >= MIN_SCORE]
            for position in ranked:
                row = regulation.rows[binding[int(position)]]
                candidates[k].append((-float(lifted[position]), FlaggedRule(
                    target_doc_id=regulation.document_id, target_doc_title=regulation.title,
                    rule=row.rule, quote=cut_quote(row.text),
                    score=round(min(1.0, max(0.0, float(scores[position]))), 3))))
    out = []
    for flag, found_rules in zip(flags, candidates, strict=True):
        rules: list[FlaggedRule] = []
        for _, rule in sorted(found_rules, key=lambda c: c[0]):
            if all((r.target_doc_id, r.rule) != (rule.target_doc_id, rule.rule)
                   for r in rules):
                rules.append(rule)
        if rules:
            out.append(FlaggedSentence(sentence=units[flag.unit].text, cue=flag.cue,
                                       rules=rules[:TOP_RULES]))
    return out


def _searched(regulation: Regulation, binding: Sequence[int], scores: npt.NDArray[np.float32],
              chunks: Sequence[UUID]) -> list[int]:
    """Positions (in ``binding``) of the rows of the passages found, in the search's order,
    the closest row of each passage."""
    out: list[int] = []
    for chunk_id in chunks:
        inside = [p for p, i in enumerate(binding) if chunk_id in regulation.rows[i].chunk_ids]
        if inside:
            best = max(inside, key=lambda p: float(scores[p]))
            if best not in out:
                out.append(best)
    return out
