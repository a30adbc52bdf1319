"""Development tool (issue 47): fit the review queue's priority model (triage.WEIGHTS, BIAS)
on dumped matrices (dump_matrices.py) of the development policies, and check it the honest
way: each regulation's queue ordered by weights fitted on the other regulations only.

A row is labelled a gap when it is a planted gap's rule that no finding found. Prints, per
regulation, the surfaced share with the leave-one-regulation-out weights and with the weights
fitted on all, and those weights (what triage.py ships).

    python research/audit_queue/fit_priority.py OUT_DIR"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from regintel.bench.audit import evaluate_audit
from regintel.bench.review_queue import queue_scores, row_is
from regintel.domain.chat import AuditFinding, AuditResult
from regintel.domain.coverage import CoverageMatrix
from regintel.obligations import triage as t
from regintel.obligations.lexical import content_words


def load(out: Path) -> list[dict[str, Any]]:
    cases = []
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        matrix = CoverageMatrix.model_validate(data["matrix"])
        findings = [AuditFinding.model_validate(f) for f in data["findings"]]
        scores = evaluate_audit(AuditResult(mode="policy", overall_status="Minor Issues",
                                            findings=findings, targets_checked=1), data["gaps"])
        found = {g: bool(h) for g, h in scores["by_gap"].items()}
        policy = Path("tests/data/dev_policies") / path.stem.split("_")[0]
        words = content_words(next(policy.glob(f"{path.stem.split('_', 1)[1]}_policy.*"))
                              .read_text(encoding="utf-8"))
        cases.append({"name": path.stem, "regulation": path.stem.split("_")[0],
                      "matrix": matrix, "gaps": data["gaps"], "found": found, "words": words})
    return cases


FEATURES = ("missing", "partial", "conflicting", "score", "specificity", "share", "suspected",
            "otherwise", "softened", "absent", "prohibition")


def vector(read: t.Signals) -> list[float]:
    """The signals as numbers, in FEATURES' order."""
    return [float(read.status == "missing"), float(read.status == "partial"),
            float(read.status == "conflicting"), read.score, read.specificity, read.share,
            float(read.suspected is not None), float(read.otherwise is not None),
            float(read.softened is not None), float(read.absent), float(read.prohibition)]


def features(case: dict[str, Any]) -> tuple[list[Any], np.ndarray, np.ndarray]:
    matrix: CoverageMatrix = case["matrix"]
    shares = t._shares(matrix.rows)
    rows, x, y = [], [], []
    open_gaps = [g for g in case["gaps"] if not case["found"][g["id"]]]
    for row in matrix.rows:
        if row.review in ("not_applicable", "finding"):
            continue
        read = t.signals(row, shares.get(t.part_of(row.obligation), 0.0), case["words"])
        rows.append(row)
        x.append(vector(read))
        y.append(float(any(row_is(row, g) for g in open_gaps)))
    return rows, np.array(x), np.array(y)


def surfaced(case: dict[str, Any], model: LogisticRegression) -> tuple[int, int]:
    matrix: CoverageMatrix = case["matrix"]
    rows, x, _ = features(case)
    p = model.predict_proba(x)[:, 1] if len(x) else []
    by_key = {r.key: float(q) for r, q in zip(rows, p, strict=True)}
    ranked = matrix.model_copy(update={"rows": tuple(
        r.model_copy(update={"priority": by_key.get(r.key, r.priority)}) for r in matrix.rows)})
    q = queue_scores(ranked, case["gaps"], case["found"])
    return q["surfaced"], len(case["gaps"])


def fit(cases: list[dict[str, Any]]) -> LogisticRegression:
    xs, ys = zip(*((features(c)[1], features(c)[2]) for c in cases), strict=True)
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000)
    model.fit(np.vstack(xs), np.concatenate(ys))
    return model


def main(out: Path) -> None:
    cases = load(out)
    regulations = sorted({c["regulation"] for c in cases})
    everything = fit(cases)
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for regulation in regulations:
        model = fit([c for c in cases if c["regulation"] != regulation])
        for case in (c for c in cases if c["regulation"] == regulation):
            held, n = surfaced(case, model)
            fitted, _ = surfaced(case, everything)
            totals[regulation][0] += held
            totals[regulation][1] += fitted
            totals[regulation][2] += n
    for regulation, (held, fitted, n) in totals.items():
        print(f"{regulation}: surfaced {held}/{n} = {held / n:.2f} with the other "
              f"regulations' weights; {fitted}/{n} with all")
    print("WEIGHTS = (" + ", ".join(f"{w:.2f}" for w in everything.coef_[0]) + ")")
    print(f"BIAS = {everything.intercept_[0]:.2f}")
    print(dict(zip(FEATURES, (round(float(w), 2) for w in everything.coef_[0]),
                   strict=True)))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
