"""``regintel bench concepts``: precision and recall of the offline concept extractor.

Two tasks, each with a tuning split and held-out splits (labelled sets in
``regintel/concepts/data``, or a directory given on the command line):

* **definitions** — defined terms found in regulatory passages (``'X' means …``), against
  the terms a reader would list; for the true positives, whether the extracted definition
  starts like the gold one;
* **mentions** — known concepts (the vocabulary of a regulation's definitions article) found
  in compliance questions, against hand labels.

Pure computation: no stores, no model, deterministic."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regintel.concepts.extractor import ConceptExtractor, KnownConcept, defined_terms
from regintel.concepts.regulations import bundled_regulations, definitions
from regintel.domain.concepts import code, norm_label

LABELLED_DIR = Path(__file__).resolve().parents[1] / "concepts" / "data"


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(f, 3)}


def _alternatives(term: str) -> set[str]:
    return {norm_label(x) for x in term.split("|")}


def run_definitions(data: dict[str, Any]) -> dict[str, Any]:
    gold = list(data["gold"])
    gold_alts = [_alternatives(g["term"]) for g in gold]
    found: dict[str, str] = {}
    for passage in data["passages"]:
        for defined in defined_terms(passage["text"]):
            found.setdefault(norm_label(defined.term), defined.definition)
    matched_gold: set[int] = set()
    tp = fp = 0
    definition_ok = definition_checked = 0
    for found_term, definition in found.items():
        hit = next((i for i, alts in enumerate(gold_alts)
                    if found_term in alts and i not in matched_gold), None)
        if hit is None:
            fp += 1
            continue
        tp += 1
        matched_gold.add(hit)
        start = gold[hit].get("definition_start")
        if start:
            definition_checked += 1
            definition_ok += norm_label(definition).startswith(norm_label(start))
    fn = len(gold) - len(matched_gold)
    out: dict[str, Any] = {"set": data["name"], "task": "definitions", "split": data["split"],
                           "gold": len(gold), "predicted": len(found), "tp": tp, "fp": fp,
                           "fn": fn, **_prf(tp, fp, fn)}
    if definition_checked:
        out["definition_start_match"] = round(definition_ok / definition_checked, 3)
    return out


def _vocabulary(code_: str, shared_data_dir: Path) -> list[KnownConcept]:
    reg = next(r for r in bundled_regulations(shared_data_dir.resolve()) if r.code == code_)
    return [KnownConcept(reg.domain, code(d.term), reg.jurisdiction, d.term)
            for d in definitions(reg)]


def run_mentions(data: dict[str, Any], shared_data_dir: Path) -> dict[str, Any]:
    extractor = ConceptExtractor(_vocabulary(data["vocabulary"], shared_data_dir))
    tp = fp = fn = 0
    misses: list[str] = []
    for item in data["items"]:
        payload = extractor.extract(item["question"])
        predicted = {norm_label(c["prefLabel"]) for c in payload["concepts"]}
        gold = {norm_label(g) for g in item["gold"]}
        tp += len(predicted & gold)
        fp += len(predicted - gold)
        fn += len(gold - predicted)
        misses += sorted(gold - predicted)
    return {"set": data["name"], "task": "mentions", "split": data["split"],
            "questions": len(data["items"]), "tp": tp, "fp": fp, "fn": fn,
            **_prf(tp, fp, fn), "missed": misses}


def run(shared_data_dir: Path, labelled_dir: Path = LABELLED_DIR) -> dict[str, Any]:
    results = []
    for path in sorted(labelled_dir.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["task"] == "definitions":
            results.append(run_definitions(data))
        elif data["task"] == "mentions":
            results.append(run_mentions(data, shared_data_dir))
    return {"labelled_dir": str(labelled_dir), "sets": results}


def table_rows(figures: dict[str, Any]) -> Sequence[Sequence[Any]]:
    return [[s["set"], s["task"], s["split"], s["tp"], s["fp"], s["fn"], s["precision"],
             s["recall"], s["f1"]] for s in figures["sets"]]
