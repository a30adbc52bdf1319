"""The development policies of issue 36 checked against their regulations: every planted
gap names a clause the regulation has, its match terms stand verbatim in the regulation's
text, and a contradiction's policy words stand verbatim in the policy, so a gap can be found
at all; each policy has 6-10 gaps and the held-out list names real policies."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from regintel.bench.audit import load_gaps
from regintel.bench.audit_policies import cases_in, regulation_upload
from regintel.ingestion import find_clauses

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
RULEBOOKS = SHARED / "obliqa" / "rulebooks_txt"
DEV = Path(__file__).resolve().parents[2] / "data" / "dev_policies"
REGULATIONS = {"aml": RULEBOOKS / "AML_VER09.211223.txt",
               "cobs": RULEBOOKS / "COBS_VER15.150823.txt",
               "gdpr": SHARED / "regulations" / "gdpr_articles.jsonl"}
needs_sources = pytest.mark.skipif(
    not all(p.is_file() for p in REGULATIONS.values()),
    reason=f"the ADGM rulebooks or the GDPR not found under {SHARED} (shared data set)")
_MARKS = re.compile("[\u200e\u200f\u202a-\u202e]")
_ITEM = re.compile(r"\.?\((?:[a-z]{1,4}|[A-Z]|\d{1,2})\)$")
CASES = [(reg, case) for reg in REGULATIONS for case in cases_in(DEV / reg,
                                                                 include_held_out=True)]


def _plain(text: str) -> str:
    return " ".join(_MARKS.sub("", text).lower().split())


@cache
def _regulation(reg: str) -> tuple[str, frozenset[str]]:
    text = regulation_upload(REGULATIONS[reg]).data.decode("utf-8")
    return _plain(text), frozenset(_MARKS.sub("", label) for _, label in find_clauses(text))


def test_three_policies_per_regulation_one_held_out() -> None:
    for reg in REGULATIONS:
        every = cases_in(DEV / reg, include_held_out=True)
        assert len(every) >= 3
        assert [c.name for c in every if c.held_out] != []
        assert len(cases_in(DEV / reg)) == len(every) - 1


@needs_sources
@pytest.mark.parametrize(("reg", "case"), CASES, ids=[f"{r}/{c.name}" for r, c in CASES])
def test_every_gap_can_be_found(reg: str, case: object) -> None:
    from regintel.bench.audit_policies import PolicyCase

    assert isinstance(case, PolicyCase)
    text, clauses = _regulation(reg)
    policy = _plain(case.policy.read_text(encoding="utf-8"))
    gaps = load_gaps(case.gaps)
    assert 6 <= len(gaps) <= 10
    assert len({g["id"] for g in gaps}) == len(gaps)
    for gap in gaps:
        rule = gap["rule"]
        while rule not in clauses and _ITEM.search(rule):
            rule = _ITEM.sub("", rule)
        assert rule in clauses, f"{gap['id']}: {gap['rule']} is no clause of {reg}"
        for term in gap["match_terms"]:
            assert _plain(term) in text, f"{gap['id']}: {term!r} is not in {reg}"
        if gap["kind"] == "contradiction":
            assert gap["policy_text"], gap["id"]
            assert _plain(gap["policy_text"]) in policy, f"{gap['id']}: not in the policy"
        else:
            assert gap["policy_text"] is None, gap["id"]
