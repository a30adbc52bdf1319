"""A document is named in full once per answer, then by its own short name."""

from regintel.chat.named_once import short_name, shortened

AML = "ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)"
GDPR = "GDPR (Regulation (EU) 2016/679)"
POLICY = "Falcon Crest Capital Ltd — AML/CFT Policy"


def test_the_short_name_is_the_one_the_title_gives() -> None:
    assert short_name(AML) == "AML"
    assert short_name(GDPR) == "GDPR"
    assert short_name(POLICY) is None  # no abbreviation of its own: named whole each time
    assert short_name("Rules of the Market (MR) (MKT)") is None  # two: which one is unclear


def test_later_provisions_of_a_document_carry_its_short_name() -> None:
    lines = [f"Under {AML}, 14.3.4: A Relevant Person must ensure … [1]",
             "", f"- {AML}, 14.3.3: Where … no SAR/STR is made, … [2]",
             f"- {POLICY}, 13.4: Where the MLRO concludes … [3]",
             f"- {POLICY}, 13.6: Where the MLRO decides … [4]",
             f"  - {AML}: (a) a list item under a lead-in [5]"]
    assert shortened(lines, [AML, POLICY, AML]) == [
        lines[0], "", "- AML 14.3.3: Where … no SAR/STR is made, … [2]",
        lines[3], lines[4], "  - AML: (a) a list item under a lead-in [5]"]


def test_a_quote_naming_the_title_is_never_changed() -> None:
    quoted = f"- GEN 3.1: The {AML}, as amended, applies. [2]"
    assert shortened([f"Under {AML}, 1.1: … [1]", quoted], [AML]) == [
        f"Under {AML}, 1.1: … [1]", quoted]


def test_a_short_name_two_documents_share_is_not_used() -> None:
    other = "Anti-Money Laundering Handbook (AML)"
    lines = [f"Under {AML}, 1.1: … [1]", f"- {other}, 2.1: … [2]", f"- {AML}, 1.2: … [3]"]
    assert shortened(lines, [AML, other]) == lines
