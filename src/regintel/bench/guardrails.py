"""``regintel bench guardrails``: how well the input guardrail separates attacks from questions,
and how well it finds personal data.

Injection: accuracy, precision, recall and false-positive rate on a ``{"text", "label"}``
JSONL. When the file is the one the shipped model was trained on (same sha256), only the rows
of the fixed held-out rule (``guardrail_data.is_heldout``: sha256(text) mod 5 == 0; 104 of the
546 deepset prompts) are scored. Beside the shipped detector: the model alone, the phrase rules
alone, model or rules, and the shipped detector's accuracy by language (a stopword guess:
German or other) — the embedder is English-centric.

Benign false-positive rate: the share of benign questions flagged as injections. For the ObliQA
file the model was trained on, only fold 1 (``obliqa_fold``) is scored; fold 0 was trained on.

Unseen source (``--unseen``, by default the shipped ``bench/data/jailbreak_classification.json``,
jackhhao/jailbreak-classification, MIT): a whole public source no training row comes from,
scored once, every row: accuracy, precision, recall and the false-positive rate on its own
benign prompts (role-play instructions and general questions), overall and by its published
split: the figure the issue-50 target (accuracy >= 0.95) is read from. A model trained with
``--unseen`` on this file left out the training rows that overlap it
(``guardrail_data.overlap_share``; recorded in the model); the shipped model predates that and
trained on three deepset rows that copy its jailbreaks (of 653).

Attacks as user messages (``--attacks``): the BIPIA strings of the held-out rule (13 of 75 in
the shipped file; all rows of another file) scored as chat messages: recall (= accuracy, every
row is an attack), for the output-directed kinds and the task kinds apart — the task kinds
("What is the capital of Brazil?") are ordinary requests on their own and are not trained on.

PII: span-level, by entity type. A gold span is found when a predicted span of the same type
overlaps it by at least one character; a predicted span is correct when it overlaps a gold
span of the same type. Precision, recall and F2 (recall weighted twice: a missed card number
costs more than a masked non-PII token) are given overall over the pattern-based types —
EMAIL_ADDRESS, PHONE_NUMBER, CREDIT_CARD, IBAN_CODE, US_SSN, IP_ADDRESS and DOMAIN_NAME
(Presidio's URL) — and per type, with every other type the data set labels (names and places
need an NER model; some are not detected at all) reported separately and over all types.
The recognizers were written with this development file in view, so its PII figures are
development figures, not a held-out estimate.

Passages (optional, ``--attacks`` with ``--passages``): every BIPIA text attack planted in four
random ObliQA passages (start, middle or end; seed 0), and every untouched passage scanned:
the detection rate by attack kind, and the share of clean passages flagged."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from regintel.bench.guardrail_data import (
    BIPIA_TASK_KINDS,
    OBLIQA_MEASURE_FOLD,
    is_heldout,
    obliqa_fold,
    read_attacks,
    read_benign,
    read_labelled,
    read_obliqa,
    read_pii,
    read_unseen,
    sha256_file,
)
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


_WORD = re.compile(r"\w+")
# Frequent function words: enough to tell the deepset file's German prompts from its English
# ones for a per-language breakdown (it is a report, not a detector input).
_GERMAN = frozenset({
    "der", "die", "das", "und", "ist", "nicht", "ich", "du", "sie", "wie", "was", "wir", "mit",
    "für", "auf", "ein", "eine", "zu", "von", "den", "im", "es", "sind", "hat", "wird", "bitte",
    "welche", "gibt", "dich", "mir", "uns"})
_ENGLISH = frozenset({
    "the", "and", "is", "not", "i", "you", "what", "how", "we", "with", "for", "on", "a", "an",
    "to", "of", "in", "it", "are", "has", "will", "please", "which", "there", "me", "us"})


def language_guess(text: str) -> str:
    words = _WORD.findall(text.lower())
    german = sum(w in _GERMAN for w in words)
    return "de" if german > sum(w in _ENGLISH for w in words) else "other"


def evaluate_injection(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    texts, labels = read_labelled(path)
    split = detector.model.split
    rows = list(range(len(texts)))
    scope = "all rows"
    if sha256_file(path) == split.get("data_sha256"):
        rows = [i for i, text in enumerate(texts) if is_heldout(text)]
        scope = (f"held-out rule ({len(rows)} of {len(texts)}: {split['rule']}); "
                 "never used for fitting or tuning")
    texts, gold = [texts[i] for i in rows], [labels[i] for i in rows]
    scores = detector.score_many(texts)
    threshold = detector.model.threshold
    model_only = [s.probability >= threshold for s in scores]
    rules = [bool(rule_hits(t)) for t in texts]
    languages = [language_guess(t) for t in texts]
    by_language = {}
    for language in sorted(set(languages)):
        keep = [i for i, lang in enumerate(languages) if lang == language]
        by_language[language] = {**_rates([scores[i].injection for i in keep],
                                          [gold[i] for i in keep]), "n": len(keep)}
    return {**_rates([s.injection for s in scores], gold), "n": len(rows), "scope": scope,
            "injections": sum(gold), "uses_rules": detector.model.use_rules,
            "model_only": _rates(model_only, gold), "rules_only": _rates(rules, gold),
            "model_or_rules": _rates([m or r for m, r in zip(model_only, rules, strict=True)],
                                     gold),
            "by_language": by_language,
            "errors": [{"text": t, "label": g, "probability": s.probability}
                       for t, g, s in zip(texts, gold, scores, strict=True)
                       if s.injection != bool(g)]}


def evaluate_benign(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    questions = read_benign(path)
    excluded: set[int] = set()
    scope = "all rows"
    if sha256_file(path) == detector.model.benign.get("sha256"):
        excluded = {i for i, (qid, _) in enumerate(read_obliqa(path))
                    if obliqa_fold(qid) != OBLIQA_MEASURE_FOLD}
        scope = f"ObliQA fold {OBLIQA_MEASURE_FOLD} ({detector.model.benign['fold_rule']})"
    kept = [q for i, q in enumerate(questions) if i not in excluded]
    flagged = [s.injection for s in detector.score_many(kept)]
    return {"n": len(kept), "scope": scope, "excluded_as_training": len(excluded),
            "flagged": sum(flagged), "fpr": round(sum(flagged) / max(1, len(kept)), 4),
            "rules_flagged": sum(bool(rule_hits(q)) for q in kept),
            "flagged_questions": [q for q, f in zip(kept, flagged, strict=True) if f]}


def evaluate_unseen(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    """A source the model never saw, every row scored; its benign rows give its own FPR."""
    meta, rows = read_unseen(path)
    digest = sha256_file(path)
    model = detector.model
    trained_on = digest in {model.split.get("data_sha256"), model.extra.get("sha256")}
    if digest == model.unseen.get("sha256"):
        left_out = sum(model.unseen.get("left_out_training_rows", {}).values())
        scope = (f"whole source, never trained or tuned on ({left_out} training rows sharing "
                 f"its text were left out of training)")
    else:
        scope = "all rows (the model records no overlap left out for this file)"
    if trained_on:
        scope = "all rows of a TRAINING file: not an unseen figure"
    texts = [r["text"] for r in rows]
    gold = [r["label"] for r in rows]
    flagged = [s.injection for s in detector.score_many(texts)]
    by_split = {}
    for split in sorted({str(r.get("split", "all")) for r in rows}):
        keep = [i for i, r in enumerate(rows) if str(r.get("split", "all")) == split]
        by_split[split] = {**_rates([flagged[i] for i in keep], [gold[i] for i in keep]),
                           "n": len(keep)}
    rates = _rates(flagged, gold)
    return {"source": meta.get("name", path.name), "licence": meta.get("licence"),
            "file": path.name, "sha256": digest, "scope": scope, "trained_on": trained_on,
            "n": len(rows), "injections": sum(gold), "benign": len(gold) - sum(gold),
            **rates, "benign_fpr": rates["fpr"], "by_split": by_split,
            "missed": [t for t, g, f in zip(texts, gold, flagged, strict=True) if g and not f],
            "false_positives": [t for t, g, f in zip(texts, gold, flagged, strict=True)
                                if f and not g]}


def evaluate_attacks(detector: InjectionDetector, path: Path) -> dict[str, Any]:
    """BIPIA attack strings as user messages: every row is an attack, so accuracy = recall."""
    pairs = read_attacks(path)
    scope = "all rows"
    if sha256_file(path) == detector.model.attacks.get("sha256"):
        pairs = [(kind, attack) for kind, attack in pairs if is_heldout(attack)]
        scope = f"held-out rule ({detector.model.attacks['rule']})"
    flagged = [s.injection for s in detector.score_many([a for _, a in pairs])]

    def share(group: list[bool]) -> dict[str, Any]:
        return {"n": len(group), "detected": sum(group),
                "recall": round(sum(group) / max(1, len(group)), 4)}

    task = [f for (kind, _), f in zip(pairs, flagged, strict=True) if kind in BIPIA_TASK_KINDS]
    output = [f for (kind, _), f in zip(pairs, flagged, strict=True)
              if kind not in BIPIA_TASK_KINDS]
    return {**share(flagged), "accuracy": share(flagged)["recall"], "scope": scope,
            "output_directed": share(output), "task_kinds": share(task),
            "missed": [a for (_, a), f in zip(pairs, flagged, strict=True) if not f]}


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
        benign: Path, attacks: Path | None = None, passages: Path | None = None,
        unseen: Path | None = None) -> dict[str, Any]:
    injection_figures = evaluate_injection(detector, injection)
    benign_figures = evaluate_benign(detector, benign)
    figures: dict[str, Any] = {"injection": injection_figures,
                               "benign_fpr": benign_figures.pop("fpr"), "benign": benign_figures}
    summary = {"injection_accuracy": injection_figures["accuracy"],
               "injection_rows": injection_figures["n"],
               "injection_scope": injection_figures["scope"],
               "benign_fpr": figures["benign_fpr"], "benign_scope": benign_figures["scope"]}
    if unseen:
        figures["unseen"] = evaluate_unseen(detector, unseen)
        summary |= {"unseen_source": figures["unseen"]["source"],
                    "unseen_accuracy": figures["unseen"]["accuracy"],
                    "unseen_benign_fpr": figures["unseen"]["benign_fpr"],
                    "unseen_rows": figures["unseen"]["n"],
                    "unseen_scope": figures["unseen"]["scope"]}
    if attacks:
        figures["attacks"] = evaluate_attacks(detector, attacks)
        summary |= {"attack_recall": figures["attacks"]["recall"],
                    "attack_output_directed_recall":
                        figures["attacks"]["output_directed"]["recall"],
                    "attack_rows": figures["attacks"]["n"],
                    "attack_scope": figures["attacks"]["scope"]}
    figures["summary"] = summary
    figures["pii"] = evaluate_pii(pii, pii_file)
    if attacks and passages:
        figures["passages"] = evaluate_passages(detector, attacks, passages)
    return figures


def table_rows(figures: dict[str, Any]) -> dict[str, list[list[Any]]]:
    inj = figures["injection"]
    shipped = "shipped (model + rules)" if inj["uses_rules"] else "shipped (model)"
    detection = [[name, f["accuracy"], f["precision"], f["recall"], f["fpr"]]
                 for name, f in ((shipped, inj), ("model only", inj["model_only"]),
                                 ("rules only", inj["rules_only"]),
                                 ("model or rules", inj["model_or_rules"]),
                                 *((f"shipped, language {k} (n={v['n']})", v)
                                   for k, v in inj["by_language"].items()))]
    pii = figures["pii"]
    unseen = figures.get("unseen")
    unseen_rows = [] if unseen is None else [
        [name, f["n"], f["accuracy"], f["precision"], f["recall"], f["fpr"]]
        for name, f in (("all rows", unseen), *((f"published {k} split", v)
                                                 for k, v in unseen["by_split"].items()))]
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
    return {"detection": detection, "entities": entities, "unseen": unseen_rows}
