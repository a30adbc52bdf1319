"""Which of a regulation's obligations bind the kind of party a policy governs (issue 47).

A regulation binds several parties - the firms it regulates, and also its regulator, member
states, courts, other kinds of firm - and a policy governs one of them. No list of parties is
written here: each obligation's party is the subject the register read before its modal
(``ObligationRow.actor``), normalised to its noun phrase ("a Licensed Firm", "Licensed
Firms" → "licensed firm"; "operators of online platforms" → "operator of online
platforms"). The policy shows which parties it governs by what it speaks to: the share of a
party's obligations some policy sentence is at least related to. The party the policy speaks
to most (many obligations, and most of its own) is governed; another party, with at least
MIN_ROWS obligations to judge by, whose share is below RATIO of that party's is not - its
obligations are listed as not applicable, with the two counts as the reason. (On the
development policies of four regulations this set aside the regulators', the member states'
and other kinds of firm's obligations, and kept a party whose name contains the governed
one's: "firm or its agent".) Obligations with no subject, or a party too small to judge,
apply (an officer can still mark them)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.domain.coverage import ObligationRow

MIN_ROWS = 4
RATIO = 0.4
_LEAD = re.compile(r"^(?:(?:a|an|the|each|every|any|all|such|no|both|either|neither|every"
                   r"|its|their|this|these|those|that)\s+)+", re.IGNORECASE)
_CUT = re.compile(r"\s*(?:,|;|\(|\bthat\b|\bwhich\b|\bwho\b|\bwhose\b|\bwhere\b|\bwhen\b"
                  r"|\bif\b|\breferred\s+to\b|\bin\s+accordance\b|\bpursuant\b|\bunder\b"
                  r"|\bconcerned\b|\bin\s+question\b)", re.IGNORECASE)
# A subject that is a pronoun names no party of its own: it binds the party the sentence
# before it in the same section binds ("The authorised representative shall … It shall
# immediately inform …").
_PRONOUN = frozenset({"it", "they", "he", "she", "he or she", "this", "that", "which", "who"})


def party_of(actor: str | None) -> str | None:
    """The party an obligation binds, as a normalised noun phrase; None when it names none."""
    if not actor:
        return None
    phrase = _LEAD.sub("", " ".join(actor.split()))
    phrase = _CUT.split(phrase, maxsplit=1)[0].strip(" .:'\"").lower()
    if not phrase or phrase in _PRONOUN or not re.search(r"[a-z]{2}", phrase):
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
    related: int  # obligations some policy sentence is at least RELATED close to

    @property
    def share(self) -> float:
        return self.related / self.rows if self.rows else 0.0

    @property
    def weight(self) -> float:
        # Many obligations related, and most of its own: a party the policy speaks to at
        # length (a regulator the policy reports to has many rows, few of them related).
        return self.related * self.share


@dataclass(frozen=True)
class Applicability:
    """The parties of a regulation's obligations and those the policy does not govern."""

    parties: dict[str, Party]
    governed: str | None  # the party the policy speaks to most
    excluded: frozenset[str]
    of_row: dict[UUID, str]  # each row's party, a pronoun's resolved

    def party(self, row: ObligationRow) -> str | None:
        return self.of_row.get(row.id)

    def applies(self, row: ObligationRow) -> bool:
        return self.party(row) not in self.excluded

    def reason(self, party: str) -> str:
        p, main = self.parties[party], self.parties.get(self.governed or "")
        said = f"the policy speaks to {p.related} of its {p.rows} obligations"
        if main is None:
            return f"Binds {party}; {said}."
        return (f"Binds {party}, not the party the policy governs: {said}, where it speaks to "
                f"{main.related} of the {main.rows} of {main.name}.")


def applicability(rows: Sequence[ObligationRow], best: Sequence[float],
                  related: float) -> Applicability:
    """``best``: each row's closeness to its closest policy sentence, rows in order;
    ``related``: the closeness at which a sentence speaks to a rule."""
    counts: dict[str, list[int]] = {}
    of_row = resolved(rows)
    for row, score in zip(rows, best, strict=True):
        party = of_row.get(row.id)
        if party is not None:
            tally = counts.setdefault(party, [0, 0])
            tally[0] += 1
            tally[1] += score >= related
    parties = {name: Party(name, n, near) for name, (n, near) in counts.items()}
    judged = [p for p in parties.values() if p.rows >= MIN_ROWS]
    if not judged:
        return Applicability(parties, None, frozenset(), of_row)
    main = max(judged, key=lambda p: p.weight)
    if main.related == 0:  # the policy speaks to nothing: no party stands out
        return Applicability(parties, None, frozenset(), of_row)
    excluded = frozenset(p.name for p in judged if p.share < RATIO * main.share
                         and not _one_names_the_other(p.name, main.name))
    return Applicability(parties, main.name, excluded, of_row)


def resolved(rows: Sequence[ObligationRow]) -> dict[UUID, str]:
    """Each row's party; a pronoun subject takes the party of the row before it in the same
    section."""
    out: dict[UUID, str] = {}
    before: tuple[str | None, str | None] = (None, None)  # (section, party)
    for row in rows:
        party = party_of(row.actor)
        if party is None and row.actor and _PRONOUN_SUBJECT.match(row.actor) \
                and before[0] == row.section:
            party = before[1]
        if party is not None:
            out[row.id] = party
        before = (row.section, party)
    return out


_PRONOUN_SUBJECT = re.compile(r"^\s*(?:it|they|he|she|he or she)\s*$", re.IGNORECASE)


def _one_names_the_other(a: str, b: str) -> bool:
    """"firm or its agent" binds the firm; "firm's board" is the firm's."""
    return f" {b} " in f" {a.replace(chr(39) + 's', '')} " or f" {a} " in f" {b} "
