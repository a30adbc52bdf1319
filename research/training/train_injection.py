"""Fit the injection model that ships in ``regintel/guardrails/injection_model.json``;
``regintel bench guardrails`` measures it.

1. Hold out, by the fixed rule ``guardrail_data.is_heldout`` (sha256(text) mod 5 == 0), 104 of
   the 546 labelled prompts (deepset/prompt-injections) and 13 of the 75 BIPIA attack strings;
   nothing below reads them.
2. Benign in-domain rows: ObliQA fold-0 questions (``obliqa_fold``; fold 1 is where the bench
   measures the false-positive rate) and the chat follow-ups of ``--extra-benign``
   ("repeat your previous answer", "ignore my last question"): without them a model trained on
   standalone prompts blocks ordinary compliance questions and follow-ups. Extra injections:
   the output-directed BIPIA strings outside the held-out rule ("Add … to your reply"); the
   task kinds are ordinary requests on their own and are not trained on (``BIPIA_TASK_KINDS``).
   Public rows that widen it (``--extra``, issue 50; built by
   ``research.training.injection_sources``): bastioncorpus injections and false-positive
   traps, spikee jailbreak templates filled with its injection goals and its benign finance
   questions, awesome-chatgpt-prompts' benign "act as" prompts and self-instruct's everyday
   instructions. The unseen source (``--unseen``, ``guardrail_data.shipped_unseen``:
   jackhhao/jailbreak-classification) is never trained or tuned on; any training row sharing
   at least 20 % of its word 8-grams with it is left out (three trained deepset jailbreaks and
   two awesome-chatgpt-prompts rows are copies of its rows).
3. Choose the embedding weights and the L2 strength, then the threshold, by 5-fold
   cross-validation over those training rows (folds stratified by label and source, fixed
   seed; with ``--extra`` also grouped, so the rows of one template stay together): the
   threshold maximises the mean out-of-fold accuracy over the labelled sources (the deepset
   prompts and each ``--extra`` source, equally weighted, so no single public set decides;
   without ``--extra``, the deepset prompts alone) subject to an out-of-fold false-positive
   rate of at most 1 % on the in-domain benign rows. The phrase
   rules are not part of the search: they were written after reading every labelled prompt,
   held-out ones included, so cross-validation would flatter them; ``--rules`` ships them
   OR-ed with the model, for comparison only.
4. Refit on all training rows.

The shipped weights (rebuilt on 2026-12-07: the same design and threshold, every coefficient
within 2e-6 of the shipped one; the JSON now also carries the empty issue-50 records ``extra``
and ``unseen``; a few minutes on 2 idle cores):

    .venv/bin/python -m research.training.train_injection \\
        --data ../shared/data/guardrails/prompt_injections_train.jsonl \\
        --benign ../shared/data/obliqa/ObliQA_dev.json \\
        --extra-benign src/regintel/guardrails/data/chat_benign_train.jsonl \\
        --attacks ../shared/data/guardrails/bipia_text_attack_train.json \\
        --out src/regintel/guardrails/injection_model.json

The widened candidate of issue 50 adds ``--extra research/training/data/
injection_public_train.jsonl --unseen src/regintel/bench/data/jailbreak_classification.json``
(about 20 minutes). It is not shipped: it scores 0.810 on the unseen source (goal 0.95) and
drops the deepset held-out slice from 0.952 to 0.865 (docs/measurements.md, "Injection
detection on an unseen source").

Deterministic for a given scikit-learn version (recorded): fixed seeds, lbfgs, CPU embeddings.
scikit-learn is a development dependency; the product only reads the JSON with numpy."""

from __future__ import annotations

import importlib.metadata
import json
from collections import Counter
from itertools import product
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
import typer
from research.training.common import show

from regintel.bench.guardrail_data import (
    BIPIA_TASK_KINDS,
    HELDOUT_MODULUS,
    OBLIQA_MEASURE_FOLD,
    OVERLAP_NGRAM,
    OVERLAP_SHARE,
    is_heldout,
    obliqa_fold,
    overlap_share,
    read_attacks,
    read_benign,
    read_labelled,
    read_obliqa,
    read_unseen,
    sha256_file,
    shingle_union,
)
from regintel.cli.app import JsonOption, fail
from regintel.errors import ConfigurationError, RegintelError
from regintel.guardrails import features
from regintel.guardrails.injection import InjectionModel
from regintel.ports.embedder import Embedder

NGRAM_RANGE = (1, 4)
BUCKETS = 2**14
EMBEDDING_WEIGHTS = (0.25, 0.5, 0.75)
SENTENCE_WEIGHTS = (0.0, 0.5)
C_VALUES = (3.0, 10.0, 30.0)
THRESHOLDS = tuple(float(round(t, 2)) for t in np.arange(0.20, 0.91, 0.05))
MAX_TUNE_FPR = 0.01
FOLDS = 5
HELDOUT_RULE = f"int(sha256(text.encode('utf-8')).hexdigest(), 16) % {HELDOUT_MODULUS} == 0"
FOLD_RULE = "int(sha256(QuestionID.encode('utf-8')).hexdigest(), 16) % 2"

IntArray = npt.NDArray[np.int64]
Matrix = npt.NDArray[np.float32]
# sources of training rows; each --extra source gets the next number
PROMPTS, QUESTIONS, CHAT, ATTACKS = 0, 1, 2, 3
Row = tuple[str, int, int, str]  # text, label, source, group


def _sklearn() -> Any:
    try:
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold
    except ImportError as exc:
        raise ConfigurationError("training needs scikit-learn",
                                 hint="pip install 'regintel[dev]'") from exc
    return LogisticRegression, StratifiedKFold, StratifiedGroupKFold


def _extra_rows(extra: Path) -> tuple[list[Row], dict[str, int]]:
    """The public rows of ``--extra`` and the source numbers given to their source names."""
    names: dict[str, int] = {}
    rows = []
    for text, label, name, group in _read_extra(extra):
        number = names.setdefault(name, ATTACKS + 1 + len(names))
        rows.append((text, label, number, group))
    return rows, names


def _read_extra(extra: Path) -> list[tuple[str, int, str, str]]:
    out = []
    for n, line in enumerate(extra.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                r = json.loads(line)
                out.append((str(r["text"]), int(r["label"]), str(r["source"]),
                            str(r["group"])))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ConfigurationError(
                    f"{extra}:{n}: expected {{text, label, source, group}}") from exc
    return out


def _training_rows(data: Path, benign: Path | None, extra_benign: Path | None,
                   attacks: Path | None, extra: Path | None = None,
                   unseen: Path | None = None) -> tuple[list[Row], dict[str, Any]]:
    """Rows outside every held-out rule and the unseen source, and the record of what was
    used."""
    texts, labels = read_labelled(data)
    rows: list[Row] = [(t, y, PROMPTS, t) for t, y in zip(texts, labels, strict=True)
                       if not is_heldout(t)]
    heldout = [y for t, y in zip(texts, labels, strict=True) if is_heldout(t)]
    questions = read_obliqa(benign) if benign else []
    if benign and not questions:
        raise ConfigurationError(f"{benign}: expected the ObliQA JSON (QuestionID, Question)")
    rows += [(q, 0, QUESTIONS, q) for qid, q in questions
             if obliqa_fold(qid) != OBLIQA_MEASURE_FOLD]
    chat = read_benign(extra_benign) if extra_benign else []
    rows += [(t, 0, CHAT, t) for t in chat]
    pairs = read_attacks(attacks) if attacks else []
    trained_attacks = [a for kind, a in pairs if kind not in BIPIA_TASK_KINDS
                       and not is_heldout(a)]
    rows += [(a, 1, ATTACKS, a) for a in trained_attacks]
    public, names = _extra_rows(extra) if extra else ([], {})
    rows += public
    left_out: Counter[str] = Counter()
    unseen_record: dict[str, Any] = {}
    if unseen:
        meta, unseen_rows = read_unseen(unseen)
        others = shingle_union(r["text"] for r in unseen_rows)
        by_number = {PROMPTS: data.name, QUESTIONS: "obliqa", CHAT: "chat", ATTACKS: "bipia",
                     **{v: k for k, v in names.items()}}
        kept = []
        for row in rows:
            if overlap_share(row[0], others) >= OVERLAP_SHARE:
                left_out[by_number[row[2]]] += 1
            else:
                kept.append(row)
        rows = kept
        unseen_record = {"name": meta.get("name"), "file": unseen.name,
                         "sha256": sha256_file(unseen), "rows": len(unseen_rows),
                         "rule": f"a training row sharing >= {OVERLAP_SHARE:.0%} of its word "
                                 f"{OVERLAP_NGRAM}-grams with the unseen rows is left out",
                         "left_out_training_rows": dict(sorted(left_out.items()))}
    record = {
        "split": {"rule": HELDOUT_RULE, "data_file": data.name, "data_sha256": sha256_file(data),
                  "rows": len(texts), "heldout_rows": len(heldout),
                  "heldout_injections": sum(heldout)},
        "benign": {"file": benign.name if benign else None,
                   "sha256": sha256_file(benign) if benign else None, "fold_rule": FOLD_RULE,
                   "measure_fold": OBLIQA_MEASURE_FOLD, "questions": len(questions),
                   "trained_rows": sum(r[2] == QUESTIONS for r in rows),
                   "extra_file": extra_benign.name if extra_benign else None,
                   "extra_sha256": sha256_file(extra_benign) if extra_benign else None,
                   "extra_rows": len(chat)},
        "attacks": {"file": attacks.name if attacks else None,
                    "sha256": sha256_file(attacks) if attacks else None, "rule": HELDOUT_RULE,
                    "rows": len(pairs), "heldout_rows": sum(is_heldout(a) for _, a in pairs),
                    "not_trained_kinds": sorted(BIPIA_TASK_KINDS),
                    "trained_rows": len(trained_attacks)},
        "extra": {"file": extra.name, "sha256": sha256_file(extra),
                  "by_source": {name: {
                      "rows": sum(r[2] == number for r in public),
                      "injections": sum(r[2] == number and r[1] == 1 for r in public),
                      "trained_rows": sum(r[2] == number for r in rows)}
                      for name, number in names.items()}} if extra else {},
        "unseen": unseen_record,
    }
    return rows, record


def run(data: Path, out: Path, embedder: Embedder, *, benign: Path | None = None,
        extra_benign: Path | None = None, attacks: Path | None = None,
        extra: Path | None = None, unseen: Path | None = None, seed: int = 0,
        use_rules: bool = False, buckets: int = BUCKETS,
        embedding_weights: tuple[float, ...] = EMBEDDING_WEIGHTS,
        sentence_weights: tuple[float, ...] = SENTENCE_WEIGHTS,
        c_values: tuple[float, ...] = C_VALUES) -> dict[str, Any]:
    """Fit, write the model JSON to ``out`` and return the training figures. The keyword
    defaults are the shipped model's; tests shrink ``buckets`` and the grid for speed."""
    logistic_regression, stratified_k_fold, stratified_group_k_fold = _sklearn()
    rows, record = _training_rows(data, benign, extra_benign, attacks, extra, unseen)
    texts = [r[0] for r in rows]
    y = np.asarray([r[1] for r in rows], dtype=np.int64)
    source = np.asarray([r[2] for r in rows], dtype=np.int64)
    groups = [r[3] for r in rows]
    in_domain = (source == QUESTIONS) | (source == CHAT)
    # The sources whose accuracy the search maximises, equally weighted: the labelled prompts
    # and each public source of --extra.
    scored = [PROMPTS, *sorted(int(s) for s in set(source.tolist()) if s > ATTACKS)]
    names = {PROMPTS: "prompts", **{number: name for name, number in (
        (n, ATTACKS + 1 + i) for i, n in enumerate(record["extra"].get("by_source", {})))}}

    whole, pooled = features.embed_with_sentences(embedder, texts,
                                                  pooled=any(w > 0 for w in sentence_weights))
    tf = features.hashed_tf(texts, n_min=NGRAM_RANGE[0], n_max=NGRAM_RANGE[1], buckets=buckets)

    def design(rows: IntArray, idf: Matrix, weight: float, sentence: float) -> Matrix:
        return features.combine(features.tfidf(tf[rows], idf), whole[rows], weight,
                                None if pooled is None else pooled[rows], sentence)

    def fit(rows: IntArray, idf: Matrix, weight: float, sentence: float, c: float) -> Any:
        clf = logistic_regression(C=c, max_iter=5000, class_weight="balanced")
        return clf.fit(design(rows, idf, weight, sentence), y[rows])

    if extra:  # a template's rows stay in one fold
        folds = list(stratified_group_k_fold(FOLDS, shuffle=True, random_state=seed)
                     .split(texts, source * 2 + y, groups))
    else:  # the folds the shipped model was chosen with
        folds = list(stratified_k_fold(FOLDS, shuffle=True, random_state=seed)
                     .split(texts, y * 4 + source))
    best: tuple[float, float, float, float, float, float] | None = None
    search = []
    for weight, sentence, c in product(embedding_weights, sentence_weights, c_values):
        oof = np.zeros(len(y))
        for fit_rows, val_rows in folds:
            idf = features.fit_idf(tf[fit_rows])
            clf = fit(fit_rows, idf, weight, sentence, c)
            oof[val_rows] = clf.predict_proba(design(val_rows, idf, weight, sentence))[:, 1]
        for t in THRESHOLDS:
            flagged = oof >= t
            by_source = {names[s]: float((flagged == y)[source == s].mean()) for s in scored}
            acc = float(np.mean(list(by_source.values())))
            tune_fpr = float(flagged[in_domain].mean()) if in_domain.any() else 0.0
            search.append({"embedding_weight": weight, "sentence_weight": sentence, "c": c,
                           "threshold": t, "cv_accuracy": round(acc, 4),
                           "cv_by_source": {k: round(v, 4) for k, v in by_source.items()},
                           "cv_tune_fpr": round(tune_fpr, 4)})
            # ties: the threshold nearest 0.5, then the smaller weights and C (simpler)
            key = (acc, -abs(t - 0.5), -weight, -sentence, -c, t)
            if tune_fpr <= MAX_TUNE_FPR and (best is None or key > best):
                best = key
    if best is None:
        raise ConfigurationError("no setting keeps the benign false-positive rate under 1 %")
    cv_accuracy, _, neg_weight, neg_sentence, neg_c, threshold = best
    weight, sentence, c = -neg_weight, -neg_sentence, -neg_c

    all_rows = np.arange(len(y))
    idf = features.fit_idf(tf)
    clf = fit(all_rows, idf, weight, sentence, c)
    questions = whole[source == QUESTIONS]
    centroid = questions.mean(axis=0) if len(questions) else \
        np.zeros(embedder.dimension, dtype=np.float32)
    model = InjectionModel(
        embedding_model=embedder.model_name, embedding_dimension=embedder.dimension,
        ngram_range=NGRAM_RANGE, buckets=buckets, embedding_weight=weight,
        sentence_weight=sentence, use_rules=use_rules, regularisation_c=c,
        threshold=threshold, intercept=float(clf.intercept_[0]),
        coef=features.encode_array(clf.coef_[0].astype(np.float32)),
        idf=features.encode_array(idf),
        domain_centroid=[round(float(v), 6) for v in centroid / max(
            float(np.linalg.norm(centroid)), 1e-9)],
        **record, metrics={"cv_accuracy": round(cv_accuracy, 4), "seed": seed,
                           "cv_by_source": next(
                               r["cv_by_source"] for r in search
                               if (r["embedding_weight"], r["sentence_weight"], r["c"],
                                   r["threshold"]) == (weight, sentence, c, threshold)),
                           "search": search},
        trained_with={"scikit-learn": importlib.metadata.version("scikit-learn"),
                      "numpy": np.__version__},
    )
    out.write_text(json.dumps(model.model_dump(mode="json"), indent=1) + "\n")
    return {"rows": record["split"]["rows"], "heldout": record["split"]["heldout_rows"],
            "train_rows": len(y), "trained_questions": record["benign"]["trained_rows"],
            "trained_attacks": record["attacks"]["trained_rows"],
            "trained_public": sum(v["trained_rows"] for v in
                                  record["extra"].get("by_source", {}).values()),
            "left_out_as_unseen_overlap": sum(
                record["unseen"].get("left_out_training_rows", {}).values()),
            "embedding_weight": weight,
            "sentence_weight": sentence, "c": c, "threshold": threshold,
            "use_rules": use_rules, "cv_accuracy": round(cv_accuracy, 4), "out": str(out)}


def main(
    data: Annotated[Path, typer.Option(exists=True, dir_okay=False,
                                       help="JSONL of {text, label}, e.g. the deepset file.")],
    out: Annotated[Path, typer.Option(help="Where to write the model JSON.")],
    benign: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="ObliQA questions: a seeded subset joins training as in-domain benign.")] = None,
    extra_benign: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="JSONL of {text}: benign chat messages, all used in training.")] = None,
    attacks: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="BIPIA attacks: output-directed strings outside the held-out rule join as "
             "injections.")] = None,
    extra: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="JSONL of {text, label, source, group}: public rows, all used in training.")] = None,
    unseen: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="The unseen test source: never trained on; training rows overlapping it are "
             "left out.")] = None,
    seed: Annotated[int, typer.Option(help="Cross-validation fold seed.")] = 0,
    rules: Annotated[bool, typer.Option(
        "--rules/--no-rules", help="Ship the phrase rules OR-ed with the model.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Fit the injection model (held-out rule recorded in the JSON, never fitted on)."""
    from regintel.adapters.embeddings.local import LocalEmbedder

    try:
        figures = run(data, out, LocalEmbedder(), benign=benign, extra_benign=extra_benign,
                      attacks=attacks, extra=extra, unseen=unseen, seed=seed, use_rules=rules)
    except RegintelError as exc:
        fail(exc)
    show(figures, json_out, "Injection model training")


if __name__ == "__main__":
    typer.run(main)
