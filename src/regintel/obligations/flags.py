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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from regintel.domain.chat import MAX_QUOTE_CHARS, FlaggedRule, FlaggedSentence
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import Regulation, closeness, row_text
from regintel.obligations.policy_text import PolicyUnit
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
_DELETE = r"delete|destroy|erase|shred|purge|wipe|get\s+rid\s+of|throw\s+away|dispose\s+of"
_ALTER = (r"alter|backdate|back-date|change\s+the\s+(?:date|record|figures?)|rewrite|"
          r"re-?word\s+the|tweak|adjust\s+the\s+(?:date|record|figures?)|pre-?(?:ticked|"
          r"checked|filled)|automatically\s+(?:opted|ticked|consent)")
_FLAG = re.compile(rf"\b(?:{_LATER}|{_HIDE}|{_DELETE}|{_ALTER})\b", re.IGNORECASE)
MIN_SCORE = 0.3  # a rule at least this close to the sentence or its act


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
                      act_vectors: npt.NDArray[np.float32]) -> list[FlaggedSentence]:
    """Each flagged unit with the TOP_RULES binding rules closest to it or to an act it sets
    aside, across the regulations, one row per rule label."""
    flags = flagged_units(units, acts)
    if not flags:
        return []
    candidates: list[list[tuple[float, FlaggedRule]]] = [[] for _ in flags]
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
            for position in np.argsort(-scores)[:TOP_RULES * 3]:
                row = regulation.rows[binding[int(position)]]
                score = float(scores[position])
                if score < MIN_SCORE:
                    break
                candidates[k].append((score, FlaggedRule(
                    target_doc_id=regulation.document_id, target_doc_title=regulation.title,
                    rule=row.rule, quote=_cut(row.text), score=round(min(1.0, score), 3))))
    out = []
    for flag, found in zip(flags, candidates, strict=True):
        rules: list[FlaggedRule] = []
        for _, rule in sorted(found, key=lambda c: -c[0]):
            if all((r.target_doc_id, r.rule) != (rule.target_doc_id, rule.rule)
                   for r in rules):
                rules.append(rule)
        if rules:
            out.append(FlaggedSentence(sentence=units[flag.unit].text, cue=flag.cue,
                                       rules=rules[:TOP_RULES]))
    return out


def _cut(text: str) -> str:
    """The rule's sentence, verbatim, cut on a word to fit a quote."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    cut = text[:MAX_QUOTE_CHARS]
    return cut[:cut.rfind(" ")] if " " in cut else cut
