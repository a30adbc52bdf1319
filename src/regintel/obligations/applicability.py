"""Which of a regulation's obligations bind the kind of party a policy governs (issue 47).

A regulation binds several parties - the firms it regulates, and also its regulator, member
states, courts, other kinds of firm - and a policy governs one of them. No list of parties is
written here: each obligation's party is the subject the register read before its modal
(``ObligationRow.actor``), normalised to its noun phrase ("a Relevant Person", "Relevant
Persons" → "relevant person"; "providers of high-risk AI systems" → "provider of high-risk ai
systems"). The policy shows which parties it governs by what it restates: the share of a
party's obligations some policy sentence is close to (``restated``). The party the policy
restates most is governed; another party whose obligations the policy restates at less than
RATIO of that share, with at least MIN_ROWS obligations to judge by, is not - its obligations
are listed as not applicable, with the two shares as the reason. Obligations with no
subject, or a party too small to judge, apply (an officer can still mark them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regintel.domain.coverage import ObligationRow

MIN_ROWS = 4
RATIO = 0.25
_LEAD = re.compile(r"^(?:(?:a|an|the|each|every|any|all|such|no|both|either|neither|every"
                   r"|its|their|this|these|those|that)\s+)+", re.IGNORECASE)
_CUT = re.compile(r"\s*(?:,|;|\(|\bthat\b|\bwhich\b|\bwho\b|\bwhose\b|\bwhere\b|\bwhen\b"
                  r"|\bif\b|\breferred\s+to\b|\bin\s+accordance\b|\bpursuant\b|\bunder\b"
                  r"|\bconcerned\b|\bin\s+question\b)", re.IGNORECASE)
# A subject that is a pronoun names no party: it is read as the sentence before it binds.
_PRONOUN = frozenset({"it", "they", "he", "she", "he or she", "we", "you", "this", "that",
                      "which", "who", "one"})


def party_of(actor: str | None) -> str | None:
    """The party an obligation binds, as a normalised noun phrase; None when it names none."""
    if not actor:
        return None
    phrase = _LEAD.sub("", " ".join(actor.split()))
    phrase = _CUT.split(phrase, maxsplit=1)[0].strip(" .:'\"").lower()
    if not phrase or phrase in _PRONOUN or not re.search(r"[a-z]{3}", phrase):
        return None
    head, of, rest = phrase.partition(" of ")
    return _singular(head) + (f" of {rest}" if of else "")


def _singular(phrase: str) -> str:
    words = phrase.split()
    last = words[-1]
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        last = last[:-1]
    return " ".join([*words[:-1], last])


@dataclass(frozen=True)
class Party:
    name: str
    rows: int
    restated: int

    @property
    def share(self) -> float:
        return self.restated / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class Applicability:
    """The parties of a regulation's obligations and those the policy does not govern."""

    parties: dict[str, Party]
    governed: str | None  # the party the policy restates most
    excluded: frozenset[str]

    def applies(self, row: ObligationRow) -> bool:
        return party_of(row.actor) not in self.excluded

    def reason(self, party: str) -> str:
        p, main = self.parties[party], self.parties.get(self.governed or "")
        said = (f"the policy restates {p.restated} of its {p.rows} obligations")
        if main is None:
            return f"Binds {party}; {said}."
        return (f"Binds {party}, not the party the policy governs: {said}, where it restates "
                f"{main.restated} of the {main.rows} of {main.name}.")


def applicability(rows: Sequence[ObligationRow], best: Sequence[float],
                  covered: float) -> Applicability:
    """``best``: each row's closeness to its closest policy sentence, rows in order."""
    counts: dict[str, list[int]] = {}
    for row, score in zip(rows, best, strict=True):
        party = party_of(row.actor)
        if party is not None:
            tally = counts.setdefault(party, [0, 0])
            tally[0] += 1
            tally[1] += score >= covered
    parties = {name: Party(name, n, restated) for name, (n, restated) in counts.items()}
    judged = [p for p in parties.values() if p.rows >= MIN_ROWS]
    if not judged:
        return Applicability(parties, None, frozenset())
    # The governed party is the one whose duties the policy restates most often: a share alone
    # would crown a handful of rows about a record or a report.
    main = max(judged, key=lambda p: (p.restated, p.share))
    if main.restated == 0:  # the policy restates nothing: no party stands out
        return Applicability(parties, None, frozenset())
    excluded = frozenset(p.name for p in judged if p.share < RATIO * main.share)
    return Applicability(parties, main.name, excluded)
