"""``regintel bench guardrails``: how well the input guardrail separates attacks from questions,
and how well it finds personal data.

Injection: accuracy, precision, recall and false-positive rate on a ``{"text", "label"}``
JSONL. When the file is the one the shipped model was trained on (same sha256), only its
recorded held-out rows are scored. Figures for the model alone and the rules alone are given
beside the combined detector.

Benign false-positive rate: the share of benign questions flagged as injections. When the
file is the ObliQA file whose seeded subset the model was trained on, that subset is left out.

PII: span-level, by entity type. A gold span is found when a predicted span of the same type
overlaps it by at least one character; a predicted span is correct when it overlaps a gold
span of the same type. Precision, recall and F2 (recall weighted twice: a missed card number
costs more than a masked non-PII token) are given overall over the pattern-based types —
EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD, IBAN_CODE, US_SSN, IP_ADDRESS and DOMAIN_NAME
(Presidio's URL) — and per type, with every other type the data set labels (names and places
need an NER model; some are not detected at all) reported separately and over all types.
The recognizers were written with this development file in view, so its PII figures are
development figures, not a held-out estimate.

Passages (optional, ``--attacks`` and ``--passages``): every BIPIA text attack planted in four
random ObliQA passages (start, middle or end; seed 0), and every untouched passage scanned:
the detection rate by attack kind, and the share of clean passages flagged."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from regintel.bench.guardrail_data import read_benign, read_labelled, read_pii, sha256_file
from regintel.guardrails.injection import InjectionDetector
from regintel.guardrails.injection_rules import rule_hits
from regintel.guardrails.pii import PiiDetector
from regintel.sentences import sentence_spans

PATTERN_TYPES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN",
                 "IP_ADDRESS", "DOMAIN_NAME")
NER_TYPES = ("PERSON", "GPE", "ORGANIZATION")
# Presidio's entity names → the data set's.
TO_DATASET = {"URL": "DOMAIN_NAME", "LOCATION": "GPE"}

Span = tuple[str, int, int]


def _rates(pred: Sequence[bool], gold: Sequence[int]) -> dict[str, float]:
    tp = sum(p and g == 1 for p, g in zip(pred, gold, strict=True))
    fp = sum(p and g == 0 for p, g in zip(pred, gold, strict=True))
    fn = sum(not p and g == 1 for p, g in zip(pred, gold, strict=True))
    tn = len(gold) - tp - fp - fn
    return {"accuracy": round((tp + tn) / max(1, len(gold)), 4),
            "precision": round(tp / max(1, tp + fp), 4),
            "recall": round(tp / max(1, tp + fn), 4), "fpr": round(fp / max(1, fp + tn), 4)}


def evaluate_injection(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    texts, labels = read_labelled(path)
    split = detector.model.split
    rows = list(range(len(texts)))
    scope = "all rows"
    if sha256_file(path) == split.get("data_sha256"):
        rows = [int(i) for i in split["heldout_indices"]]
        scope = (f"held-out split ({len(rows)} of {len(texts)}, seed {split['seed']}); "
                 "never used for fitting or threshold choice")
    texts, gold = [texts[i] for i in rows], [labels[i] for i in rows]
    scores = detector.score_many(texts)
    threshold = detector.model.threshold
    return {**_rates([s.injection for s in scores], gold), "n": len(rows), "scope": scope,
            "model_only": _rates([s.probability >= threshold for s in scores], gold),
            "rules_only": _rates([bool(s.rules) for s in scores], gold)}


def evaluate_benign(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    questions = read_benign(path)
    benign = detector.model.benign
    excluded: set[int] = set()
    if sha256_file(path) == benign.get("sha256"):
        excluded = {int(i) for i in benign["tune_indices"]}
    kept = [q for i, q in enumerate(questions) if i not in excluded]
    flagged = [s.injection for s in detector.score_many(kept)]
    return {"n": len(kept), "excluded_as_training": len(excluded), "flagged": sum(flagged),
            "fpr": round(sum(flagged) / max(1, len(kept)), 4),
            "rules_flagged": sum(bool(rule_hits(q)) for q in kept)}


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def _prf(tp_pred: int, n_pred: int, tp_gold: int, n_gold: int) -> dict[str, float]:
    p = tp_pred / n_pred if n_pred else 0.0
    r = tp_gold / n_gold if n_gold else 0.0
    f2 = 5 * p * r / (4 * p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f2": round(f2, 4)}


def evaluate_pii(detector: PiiDetector, path: Path) -> dict[str, Any]:
    items = read_pii(path)
    n_gold: Counter[str] = Counter()
    hit_gold: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    hit_pred: Counter[str] = Counter()
    started = time.perf_counter()
    for item in items:
        gold = [(s["entity_type"], int(s["start_position"]), int(s["end_position"]))
                for s in item["spans"]]
        pred = [(TO_DATASET.get(f.entity_type, f.entity_type), f.start, f.end)
                for f in detector.find(item["full_text"])]
        for g in gold:
            n_gold[g[0]] += 1
            hit_gold[g[0]] += any(_overlaps(g, p) for p in pred)
        for p in pred:
            n_pred[p[0]] += 1
            hit_pred[p[0]] += any(_overlaps(p, g) for g in gold)
    elapsed_ms = (time.perf_counter() - started) * 1000 / max(1, len(items))
    detected = {TO_DATASET.get(e, e) for e in detector.entities}

    def coverage(entity: str) -> str:
        if entity in detected:
            return "ner" if entity in NER_TYPES else "pattern"
        return "needs NER model" if entity in NER_TYPES else "not detected"

    by_entity = {e: {**_prf(hit_pred[e], n_pred[e], hit_gold[e], n_gold[e]),
                     "support": n_gold[e], "predicted": n_pred[e], "coverage": coverage(e)}
                 for e in sorted(set(n_gold) | set(n_pred), key=lambda e: (-n_gold[e], e))}

    def overall(types: Sequence[str]) -> dict[str, float]:
        return _prf(sum(hit_pred[t] for t in types), sum(n_pred[t] for t in types),
                    sum(hit_gold[t] for t in types), sum(n_gold[t] for t in types))

    pattern = overall(PATTERN_TYPES)
    # Every type our patterns detect, imperfect ones included (addresses, dates, ages, zip
    # codes): the figure to read beside the classic pattern types above.
    detected_by_pattern = [e for e in by_entity if by_entity[e]["coverage"] == "pattern"]
    return {**pattern, "types": list(PATTERN_TYPES), "texts": len(items),
            "ms_per_text": round(elapsed_ms, 2), "ner_model": detector.uses_ner,
            "all_pattern_detected": {**overall(detected_by_pattern),
                                     "types": detected_by_pattern},
            "all_types": overall(sorted(set(n_gold) | set(n_pred))),
            "by_entity": by_entity}


def read_passages(directory: Path) -> list[str]:
    """The ObliQA corpus: ``N.json`` files of ``{"Passage", …}`` objects, in file order."""
    files = sorted(directory.glob("*.json"), key=lambda f: (len(f.stem), f.stem))
    return [str(p["Passage"]) for f in files for p in json.loads(f.read_text("utf-8"))]


def plant(attack: str, passage: str, where: str) -> str:
    """``attack`` at the start, the end, or at the sentence boundary nearest the middle."""
    if where == "start":
        return f"{attack}\n{passage}"
    if where == "end":
        return f"{passage}\n{attack}"
    spans = sentence_spans(passage)
    cut = spans[len(spans) // 2][0] if len(spans) > 1 else len(passage)
    return f"{passage[:cut]}{attack} {passage[cut:]}"


def evaluate_passages(detector: InjectionDetector, attacks: Path, corpus: Path, *,
                      per_attack: int = 4, seed: int = 0) -> dict[str, Any]:
    passages = read_passages(corpus)
    kinds: dict[str, list[str]] = json.loads(attacks.read_text("utf-8"))
    rng = np.random.default_rng(seed)
    places = ("start", "middle", "end")
    caught: Counter[str] = Counter()
    planted: Counter[str] = Counter()
    for kind, strings in kinds.items():
        for attack in strings:
            for _ in range(per_attack):
                text = plant(attack, passages[int(rng.integers(len(passages)))],
                             places[int(rng.integers(3))])
                planted[kind] += 1
                caught[kind] += detector.scan_passage(text)
    flagged = sum(detector.scan_passage(p) for p in passages)
    return {"planted": sum(planted.values()), "detected": sum(caught.values()),
            "detection_rate": round(sum(caught.values()) / max(1, sum(planted.values())), 4),
            "clean": len(passages), "clean_flagged": flagged,
            "clean_fpr": round(flagged / max(1, len(passages)), 5),
            "by_kind": {k: {"planted": planted[k], "detected": caught[k]} for k in planted}}


def run(detector: InjectionDetector, pii: PiiDetector, *, injection: Path, pii_file: Path,
        benign: Path, attacks: Path | None = None,
        passages: Path | None = None) -> dict[str, Any]:
    injection_figures = evaluate_injection(detector, injection)
    benign_figures = evaluate_benign(detector, benign)
    figures = {"injection": injection_figures,
               "benign_fpr": benign_figures.pop("fpr"), "benign": benign_figures,
               "pii": evaluate_pii(pii, pii_file)}
    if attacks and passages:
        figures["passages"] = evaluate_passages(detector, attacks, passages)
    return figures


def table_rows(figures: dict[str, Any]) -> dict[str, list[list[Any]]]:
    inj = figures["injection"]
    detection = [[name, f["accuracy"], f["precision"], f["recall"], f["fpr"]]
                 for name, f in (("model + rules", inj), ("model only", inj["model_only"]),
                                 ("rules only", inj["rules_only"]))]
    pii = figures["pii"]
    entities = [[e, f["precision"], f["recall"], f["f2"], f["support"], f["coverage"]]
                for e, f in pii["by_entity"].items()]
    entities += [["overall: pattern-based types", pii["precision"], pii["recall"], pii["f2"],
                  sum(pii["by_entity"].get(t, {}).get("support", 0) for t in pii["types"]), ""],
                 ["overall: all pattern-detected types",
                  pii["all_pattern_detected"]["precision"],
                  pii["all_pattern_detected"]["recall"], pii["all_pattern_detected"]["f2"],
                  sum(pii["by_entity"][t]["support"]
                      for t in pii["all_pattern_detected"]["types"]), ""],
                 ["overall: all types", pii["all_types"]["precision"],
                  pii["all_types"]["recall"], pii["all_types"]["f2"],
                  sum(f["support"] for f in pii["by_entity"].values()), ""]]
    return {"detection": detection, "entities": entities}
