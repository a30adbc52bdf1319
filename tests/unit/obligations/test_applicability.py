"""Which obligations bind the party a policy governs: read from the register's subjects and
what the policy speaks to, never from a list of parties."""

from __future__ import annotations

from uuid import uuid4

from regintel.domain.coverage import ObligationRow
from regintel.obligations.applicability import applicability, party_of

DOC = uuid4()


def _row(actor: str | None, section: str = "Part 1") -> ObligationRow:
    return ObligationRow(id=uuid4(), document_id=DOC, text=f"{actor} must act.", actor=actor,
                         modal="must", strength="mandatory", section=section)


def test_a_party_is_its_noun_phrase() -> None:
    assert party_of("A Licensed Firm") == party_of("Licensed Firms") == "licensed firm"
    assert party_of("operators of online platforms") == "operator of online platforms"
    assert party_of("The Regulator, where it considers it appropriate,") == "regulator"
    assert party_of("it") is None and party_of(None) is None


def test_a_party_the_policy_does_not_speak_to_is_not_applicable() -> None:
    firm = [_row("The firm") for _ in range(8)]
    regulator = [_row("The Regulator") for _ in range(6)]
    either = [_row("The firm or its agent") for _ in range(4)]
    rows = [*firm, *regulator, *either]
    best = [0.6] * 6 + [0.3] * 2 + [0.2] * 5 + [0.45] + [0.3] * 4
    read = applicability(rows, best, 0.4)
    assert read.governed == "firm"
    assert read.excluded == frozenset({"regulator"})
    assert not read.applies(regulator[0]) and read.applies(firm[0])
    # A party whose name holds the governed one's is governed too, however little it is said.
    assert read.applies(either[0])
    assert "1 of its 6" in read.reason("regulator") and "6 of the 8 of firm" in read.reason(
        "regulator")


def test_a_pronoun_binds_the_party_before_it_and_small_parties_apply() -> None:
    rows = [*(_row("The firm") for _ in range(6)), _row("The Regulator", "Part 9"),
            _row("It", "Part 9"), *(_row("The Regulator", "Part 9") for _ in range(3))]
    read = applicability(rows, [0.6] * 6 + [0.1] * 5, 0.4)
    assert read.party(rows[7]) == "regulator" and not read.applies(rows[7])
    nothing = applicability(rows, [0.1] * len(rows), 0.4)
    assert nothing.governed is None and all(nothing.applies(r) for r in rows)
