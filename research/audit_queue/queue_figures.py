"""Development tool (issue 47): the review queue's figures over dumped matrices
(dump_matrices.py), with the triage the product ships or a variant given on the command
line, per regulation: surfaced share, queue length and each gap's rank and row statuses.

    python research/audit_queue/queue_figures.py OUT_DIR [--rows]"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from regintel.bench.audit import evaluate_audit
from regintel.bench.review_queue import queue_scores, row_is
from regintel.domain.chat import AuditFinding, AuditResult
from regintel.domain.coverage import CoverageMatrix
from regintel.obligations.triage import triage


def figures(out: Path, show_rows: bool) -> None:
    pooled: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for path in sorted(out.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        matrix = CoverageMatrix.model_validate(data["matrix"])
        proven = {r.key for r in matrix.rows if r.review == "finding"}
        matrix = matrix.model_copy(update={"rows": tuple(triage(matrix.rows, proven))})
        findings = [AuditFinding.model_validate(f) for f in data["findings"]]
        scores = evaluate_audit(AuditResult(mode="policy", overall_status="Minor Issues",
                                            findings=findings, targets_checked=1),
                                data["gaps"])
        queue = queue_scores(matrix, data["gaps"],
                             {g: bool(h) for g, h in scores["by_gap"].items()})
        name = path.stem.split("_")[0]
        tally = pooled[name]
        tally[0] += queue["surfaced"]
        tally[1] += len(data["gaps"])
        tally[2] += scores["matching_findings"]
        tally[3] += scores["findings"]
        print(f"{path.stem}: surfaced {queue['surfaced']}/{len(data['gaps'])} queue "
              f"{queue['queue']} (first {queue['first_fifth']}) likely met "
              f"{queue['likely_met']} NA {queue['not_applicable']}; findings "
              f"{scores['matching_findings']}/{scores['findings']}")
        for gap in data["gaps"]:
            g = queue["by_gap"][gap["id"]]
            rows = [r for r in matrix.rows if row_is(r, gap)]
            said = ", ".join(f"{r.review}/{r.status}/{r.score:.2f}/p{r.priority:.2f}"
                             for r in rows[:4])
            print(f"   {gap['id']} {gap['kind'][:7]} {gap['rule']}: rank {g['rank']} "
                  f"{'F' if g['by_finding'] else ' '} {'S' if g['surfaced'] else ' '} {said}")
        if show_rows:
            for n, r in enumerate([r for r in matrix.queue if r.review == "review"][:30]):
                print(f"      {n + 1:3} {r.obligation.rule} {r.proposed} p{r.priority:.2f} "
                      f"s{r.score:.2f} {r.obligation.text[:80]}")
    for name, (s, g, m, f) in pooled.items():
        print(f"{name}: surfaced {s}/{g} = {s / g:.2f}; finding precision {m}/{f}")


if __name__ == "__main__":
    figures(Path(sys.argv[1]), "--rows" in sys.argv)
