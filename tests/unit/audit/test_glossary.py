"""A policy's initials in the words of the regulation's own glossary."""

from __future__ import annotations

from regintel.chat.offline import glossary

GLOSSARY = ("3.2.1\tGlossary\n"
            "Regulator \tMeans the ADGM Financial Services Regulatory Authority.\n"
            "Money Laundering Reporting Officer (MLRO)\tMeans the Controlled Function "
            "described in GEN 5.3.8.\n"
            "Employee\tMeans an individual who is employed by the Financial Services "
            "Regulatory Authority or a Recognised Body.\n"
            "Credit Rating Agency\tMeans a Person whose Financial Services Permission "
            "authorises it to issue credit ratings.\n")


def test_initials_lead_to_the_term_whose_definition_spells_them_out() -> None:
    aliases = glossary.acronyms([GLOSSARY])
    assert aliases == {"FSRA": "Regulator"}  # the only definition that is the name itself
    assert glossary.expand("Dealing with the FSRA", aliases) == "Dealing with the Regulator"
    assert glossary.expand("FSRAX and MLRO duties", aliases) == "FSRAX and MLRO duties"
    assert glossary.expand("Dealing with the FSRA", {}) == "Dealing with the FSRA"


def test_initials_two_terms_would_claim_are_left_out() -> None:
    twice = GLOSSARY + "Authority\tMeans the Financial Services Regulatory Authority.\n"
    assert "FSRA" not in glossary.acronyms([twice])
