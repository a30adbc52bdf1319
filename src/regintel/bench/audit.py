"""Scoring an audit against planted gaps (tests/data/aml_policy_gaps.json for the demo
policy): recall of the planted gaps, precision of the findings, and kind agreement.

A finding *finds* a planted gap when, on the regulation's side, its ``target_clause`` is the
gap's ``rule`` or a sub-clause of it ("8.1.1.(1)(b)" for rule "8.1.1.(1)"), or its
``target_quote`` contains every one of the gap's ``match_terms``; and, for a contradiction,
on the policy's side its ``source_quote`` overlaps the contradicting ``policy_text`` (one
contains the other, or they share a run of 40 characters) - a conflict pinned on the wrong
policy clause does not count. Comparisons ignore case, whitespace and direction marks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal, TypedDict
from uuid import UUID

from regintel.domain.chat import AuditFinding, AuditResult

MIN_OVERLAP = 40
_MARKS = re.compile("[\u200e\u200f\u202a-\u202e]")


class PlantedGap(TypedDict):
    id: str
    kind: Literal["missing", "contradiction"]
    rule: str
    obligation: str
    policy_clause: str | None
    policy_text: str | None
    match_terms: list[str]


def load_gaps(path: Path) -> list[PlantedGap]:
    gaps: list[PlantedGap] = json.loads(path.read_text(encoding="utf-8"))
    return gaps


def _plain(text: str) -> str:
    return " ".join(_MARKS.sub("", text).lower().split())


def clause_matches(clause: str | None, rule: str) -> bool:
    if not clause:
        return False
    clause, rule = _MARKS.sub("", clause), _MARKS.sub("", rule)
    # The rule itself or one of its items or paragraphs ("12.3.1(f)" of "12.3.1").
    return clause == rule or (clause.startswith(rule) and clause[len(rule):][:1] in (".", "("))


def overlaps(a: str, b: str) -> bool:
    """One text holds the other, or they share a run of MIN_OVERLAP characters."""
    a, b = _plain(a), _plain(b)
    if a in b or b in a:
        return True
    m = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return m.size >= MIN_OVERLAP


def finds(finding: AuditFinding, gap: PlantedGap) -> bool:
    quote = _plain(finding.target_quote)
    on_target = clause_matches(finding.target_clause, gap["rule"]) or \
        all(_plain(term) in quote for term in gap["match_terms"])
    if not on_target:
        return False
    if gap["kind"] == "contradiction" and gap["policy_text"]:
        return finding.source_quote is not None and \
            overlaps(finding.source_quote, gap["policy_text"])
    return True


class AuditScores(TypedDict):
    gaps: int
    found: int
    recall: float
    findings: int
    matching_findings: int
    precision: float
    kind_agreement: float
    missed: list[str]
    by_gap: dict[str, list[int]]  # gap id → indexes of the findings that find it


def evaluate_audit(result: AuditResult, gaps: Sequence[PlantedGap], *,
                   target_id: UUID | None = None) -> AuditScores:
    """Recall, precision and kind agreement of ``result`` against ``gaps``; with
    ``target_id``, only that target's findings are scored (the gaps belong to it)."""
    findings = [f for f in result.findings if target_id is None or f.target_doc_id == target_id]
    matched: dict[str, list[int]] = {g["id"]: [i for i, f in enumerate(findings) if finds(f, g)]
                                     for g in gaps}
    found = [g for g in gaps if matched[g["id"]]]
    useful = {i for hits in matched.values() for i in hits}
    same_kind = [g for g in found if any(
        findings[i].kind == ("gap" if g["kind"] == "missing" else "conflict")
        for i in matched[g["id"]])]
    return {
        "gaps": len(gaps),
        "found": len(found),
        "recall": round(len(found) / len(gaps), 3) if gaps else 0.0,
        "findings": len(findings),
        "matching_findings": len(useful),
        "precision": round(len(useful) / len(findings), 3) if findings else 0.0,
        "kind_agreement": round(len(same_kind) / len(found), 3) if found else 0.0,
        "missed": [g["id"] for g in gaps if not matched[g["id"]]],
        "by_gap": {gid: hits for gid, hits in matched.items()},
    }


def format_evaluation(scores: AuditScores) -> str:
    return (f"planted gaps found {scores['found']}/{scores['gaps']} "
            f"(recall {scores['recall']}), precision {scores['precision']} "
            f"({scores['matching_findings']}/{scores['findings']} findings match a planted "
            f"gap), kind agreement {scores['kind_agreement']}, missed: "
            f"{', '.join(scores['missed']) or 'none'}")
