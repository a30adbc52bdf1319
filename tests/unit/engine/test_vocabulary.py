"""Engine code is general: no term of one regulation (issue 36). The audit, the chat engine and
the obligation register must work for any regulation, so their code (comments included: a
reader's example is where a special case starts) names no term of one rulebook.

The old offline audit modules written around the AML rulebook were deleted when the matrix
became the one engine (29 November 2026), and the examples of the rest reworded: nothing is
excluded any more, and a module is never added to the list."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src" / "regintel"
CHECKED = ("chat", "obligations")

# Terms of one regulation: acronyms matched case-sensitively, phrases in any case.
ACRONYMS = ("MLRO", "CDD", "EDD", "SAR", "STR", "STRs", "SARs", "PEP", "PEPs", "FSRA", "ADGM",
            "FIU", "DNFBP", "KYC", "AML", "CFT", "GDPR", "DPO", "DPIA", "FATF", "TFS")
PHRASES = ("relevant person", "money laundering", "suspicious activity",
           "suspicious transaction", "politically exposed", "beneficial owner",
           "correspondent bank", "shell bank", "governing body", "data controller",
           "data subject", "data protection officer", "supervisory authority",
           "personal data breach", "high-risk ai", "general-purpose ai", "ai system",
           "terrorist financing", "targeted financial sanctions", "wire transfer",
           "senior management approval", "conduct of business", "client money")
_TERMS = re.compile(r"\b(?:" + "|".join(map(re.escape, ACRONYMS)) + r")\b|(?i:\b(?:"
                    + "|".join(map(re.escape, PHRASES)) + r")\b)")



def _offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for package in CHECKED:
        for path in sorted((SRC / package).rglob("*.py")):
            relative = path.relative_to(SRC).as_posix()
            terms = sorted({m[0] for m in _TERMS.finditer(path.read_text(encoding="utf-8"))})
            if terms:
                found[relative] = terms
    return found


def test_engine_code_names_no_term_of_one_regulation() -> None:
    assert _offenders() == {}


def test_the_pattern_catches_terms() -> None:
    assert _TERMS.search("report it to the MLRO") and _TERMS.search("a Relevant Person must")
    assert not _TERMS.search("the STRUCTURE of a rule") and not _TERMS.search("personal")
