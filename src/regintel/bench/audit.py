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
import random
import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal, TypedDict
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.bench.obliqa import read_corpus, read_questions
from regintel.domain.chat import AuditFinding, AuditResult
from regintel.obligations.lexical import content_words
from regintel.ports.embedder import Embedder

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


# -- threshold calibration -------------------------------------------------------------------
def calibrate_thresholds(embedder: Embedder, obliqa_dir: Path, *,
                         exclude_documents: Sequence[int] = (1, 7), questions: int = 200,
                         seed: int = 0) -> dict[str, float]:
    """The similarity thresholds of the offline audit, from data it is not evaluated on:
    ObliQA dev questions of fold 0 (see bench/obliqa.py), outside the rulebooks the demo
    audits (AML = 1, GEN = 7). A question restates one obligation, so:

    - *covered*: question vs its gold passage (positive) against question vs the most
      lexically similar other passage of the same rulebook (same subject, another
      requirement): the Youden-best threshold (true minus false positive rate) is COVERED;
    - *topic*: question vs gold or that near miss (same subject) against question vs a random
      passage of another rulebook: the Youden-best threshold is TOPIC;
    - *related*: the 10th percentile of the positives - nine restatements in ten are at least
      this close, so a contradiction is looked for no further out.

    Passages are cut to their first MAX_WORDS words, as audit units are."""
    corpus = read_corpus(obliqa_dir / "passages")
    pool = [q for q in read_questions(obliqa_dir / "ObliQA_dev.json")
            if q.fold == 0 and len(q.gold) == 1 and q.gold[0].document_id not in
            exclude_documents and len(q.gold[0].text) >= 80]
    rng = random.Random(seed)  # noqa: S311 - a reproducible sample, not a secret
    chosen = rng.sample(pool, min(questions, len(pool)))
    texts: list[str] = []
    for q in chosen:
        gold = q.gold[0]
        same = [p for p in corpus[gold.document_id]
                if p.passage_id != gold.passage_id and len(p.text) >= 80]
        near = max(same, key=lambda p: _overlap(q.text, p.text))
        others = [d for d in corpus if d != gold.document_id and d not in exclude_documents]
        far = rng.choice([p for p in corpus[rng.choice(others)] if len(p.text) >= 80])
        texts += [q.text, _cut(gold.text), _cut(near.text), _cut(far.text)]
    vectors = embedder.embed(texts).reshape(len(chosen), 4, -1)
    sims = np.einsum("qd,qkd->qk", vectors[:, 0], vectors[:, 1:])
    pos, near_sim, far_sim = sims[:, 0], sims[:, 1], sims[:, 2]
    covered = _best_threshold(pos, near_sim, score="youden")
    topic = _best_threshold(np.concatenate([pos, near_sim]), far_sim, score="youden")
    return {"covered": round(covered, 3), "topic": round(topic, 3),
            "related": round(float(np.percentile(pos, 10)), 3), "questions": len(chosen),
            "positive_median": round(float(np.median(pos)), 3),
            "near_miss_median": round(float(np.median(near_sim)), 3),
            "unrelated_median": round(float(np.median(far_sim)), 3)}


MAX_WORDS = 60


def _cut(text: str) -> str:
    return " ".join(text.split()[:MAX_WORDS])


def _overlap(a: str, b: str) -> float:
    ta, tb = content_words(a), content_words(b)
    return len(ta & tb) / (len(ta | tb) or 1)


def _best_threshold(positives: npt.NDArray[np.float32], negatives: npt.NDArray[np.float32],
                    *, score: Literal["f1", "youden"]) -> float:
    best, best_t = -1.0, 0.0
    for t in np.arange(0.2, 0.9, 0.005):
        tp = float((positives >= t).sum())
        fp = float((negatives >= t).sum())
        fn = float(len(positives) - tp)
        if score == "f1":
            value = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        else:
            value = tp / len(positives) - fp / len(negatives)
        if value > best:
            best, best_t = value, float(t)
    return best_t
