"""Typed facts read from rule and policy sentences: values normalised so that a rule and a
policy compare on values, not words."""

from __future__ import annotations

from regintel.obligations.facts import amounts, facts_of


def _facts(sentence: str) -> dict[str, tuple[str, float | None, str | None, str]]:
    return {f.kind: (f.text, f.value, f.unit, f.comparator) for f in facts_of(sentence)}


def test_periods_deadlines_and_frequencies() -> None:
    assert _facts("must keep the records for at least six years from the date")["period"] == (
        "at least six years", 2190.0, "day", "at_least")
    assert _facts("Records are kept for five years.")["period"][1] == 1825.0
    assert _facts("notify it not later than 72 hours after having become aware of it")[
        "deadline"][:2] == ("not later than 72 hours", 3.0)
    assert _facts("will be provided within ten Business Days of a request")["deadline"][1] == 14.0
    assert _facts("must inform the Regulator immediately")["deadline"][1] == 0.0
    assert _facts("must review its controls at least annually")["frequency"][1] == 365.0
    assert _facts("The review is carried out every two years.")["frequency"][1] == 730.0
    assert "extent" not in _facts("The review is carried out every two years.")


def test_amounts_percentages_approvers_and_extent() -> None:
    assert _facts("transactions of USD 15,000 or more")["amount"] == (
        "USD 15,000", 15000.0, "USD", "at_least")
    found = _facts("fines up to EUR 20 000 000, or up to 4 % of the total turnover")
    assert found["amount"][1] == 20_000_000.0 and found["percentage"][1] == 4.0
    assert _facts("must be approved by the Governing Body before it starts")["approver"][2] == \
        "Governing Body"
    assert _facts("a review of a sample of the reports filed")["extent"][2] == "sample"
    assert _facts("an analysis of all reports filed")["extent"][2] == "all"
    assert _facts("The firm may decide to skip it.")["permission"][2] == "permitted"
    assert _facts("Staff must not disclose it.")["permission"][2] == "prohibited"


def test_an_age_limit_is_a_period() -> None:
    assert _facts("Users aged 12 or older may give their own consent")["period"] == (
        "aged 12 or older", 4380.0, "day", "at_least")


def test_how_long_a_notice_is_kept_is_a_period_not_a_deadline() -> None:
    kept = _facts("Compliance keeps every notification of a personal trade for three years.")
    assert kept["period"][:2] == ("three years", 1095.0) and "deadline" not in kept
    assert _facts("The firm must notify the Regulator five days after it")["deadline"][1] == 5.0


def test_a_rule_cited_by_its_rulebooks_short_name_is_no_amount() -> None:
    assert [a.text for a in amounts("See GEN 7.2 and COB 3.5.1 for the procedure.")] == []
    assert [(a.text, a.value) for a in amounts("a fine of USD 15,000 or AED 1.5 million")] == [
        ("USD 15,000", 15000.0), ("AED 1.5 million", 1_500_000.0)]


def test_a_title_of_a_code_cited_with_its_section_is_no_amount() -> None:
    for sentence in ("Exports must comply with 22 CFR 120.1.",
                     "Records must be kept as 31 USC § 5318 requires.",
                     "A lender must disclose the rate under 12 CFR Part 1026."):
        assert not [f for f in facts_of(sentence, "must") if f.kind == "amount"], sentence
    fee = [f for f in facts_of("A fee of 500 USD must be paid 3 times a year.", "must")
           if f.kind == "amount"]
    assert [(f.value, f.unit) for f in fee] == [(500.0, "USD")]


def test_a_line_break_inside_the_comparator_keeps_it() -> None:
    # PDF text breaks lines anywhere: "for at / least six years" is still at least six years.
    (period,) = facts_of("Records must be kept for at\nleast six years.", "mandatory")[:1]
    assert (period.kind, period.comparator, period.value) == ("period", "at_least", 6 * 365)
    (deadline,) = [f for f in facts_of("Notify it no later\nthan 30 days after.") if
                   f.kind == "deadline"]
    assert deadline.comparator == "within"


def test_when_a_period_runs_from_is_read_with_its_own_words() -> None:
    from regintel.obligations.facts import starts

    (end,) = starts("Records must be kept for at least six years from the date on which the "
                    "business relationship ends, whichever is later.")
    assert end.kind == "start" and end.text == (
        "from the date on which the business relationship ends, whichever is later")
    (after,) = starts("The file is kept for five years after the end of the business "
                      "relationship.")
    assert after.unit == "busines end relationship"
    # A start that names nothing ("from the date of:" before a list) is no fact.
    assert starts("must be retained for a minimum of six years from the date of: (i) …") == []
    assert starts("A firm must act from time to time.") == []
