"""The matrix audit (obligations.auditor) on the development policies (dev_policies.py):
each policy against the ADGM AML and General rulebooks, scored on the AML target's planted
gaps as ``regintel bench audit`` scores (bench.audit.evaluate_audit), with each gap's
matrix row shown (status, score) so a miss says why. Not for the demo policy: its gaps are
measured once, at the end.

    .venv/bin/python -m research.audit_dev.matrix_dev --data-dir DIR [--policy NAME ...] \\
        [--json] [--rows]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from research.audit_dev.dev_policies import DEV_POLICIES

from regintel.bench import adgm_corpus
from regintel.bench.audit import PlantedGap, clause_matches, evaluate_audit, load_gaps
from regintel.cli.app import open_container
from regintel.container import Container
from regintel.demo.corpus import POLICY_PDF
from regintel.domain.coverage import CoverageMatrix
from regintel.obligations.auditor import MatrixAuditor
from regintel.obligations.matrix import SHIPPED, Thresholds
from regintel.retrieval.evidence import CitationBook
from regintel.settings import get_settings

TENANT = "bench-matrix-dev"


def auditor(container: Container, thresholds: Thresholds = SHIPPED) -> MatrixAuditor:
    return MatrixAuditor(registers=container.registers, index=container.chunk_index,
                         embedder=container.embedder, memo=container.unit_vectors,
                         thresholds=thresholds)


def gap_rows(matrix: CoverageMatrix, gaps: Sequence[PlantedGap]) -> dict[str, str]:
    """Each gap's matrix row(s): status and score, or why it has none."""
    out = {}
    for gap in gaps:
        rows = [r for r in matrix.rows if clause_matches(r.obligation.rule, gap["rule"])
                or clause_matches(gap["rule"], r.obligation.rule or "")
                or r.obligation.rule == gap["rule"]]
        if rows:
            out[gap["id"]] = "; ".join(f"{r.obligation.rule} {r.status} {r.score:.2f}"
                                       + (f" items-{len(r.missing_items)}" if r.missing_items
                                          else "")
                                       for r in rows[:3])
        else:
            out[gap["id"]] = "no row (out of scope or not extracted)"
    return out


async def measure(container: Container, rulebooks: Path, names: Sequence[str],
                  thresholds: Thresholds = SHIPPED) -> list[dict[str, Any]]:
    """``names``: development policies, or "demo" for the demo policy (measured once, at the
    end: nothing may be tuned on it)."""
    results = []
    engine = auditor(container, thresholds)
    for name in names:
        if name == "demo":
            pdf, title, gaps_file = (POLICY_PDF, adgm_corpus.DEMO_POLICY_TITLE,
                                     Path("tests/data/aml_policy_gaps.json"))
        else:
            policy = DEV_POLICIES[name]
            pdf, title, gaps_file = policy.pdf, policy.title, policy.gaps
        corpus = await adgm_corpus.ingest(container, TENANT, rulebooks, pdf, title)
        gaps = load_gaps(gaps_file)
        started = time.perf_counter()
        audit = await engine.audit(corpus.tenant_id, [corpus.aml, corpus.gen], corpus.policy,
                                   book=CitationBook())
        seconds = time.perf_counter() - started
        scores = evaluate_audit(audit.result, gaps, target_id=corpus.aml.id)
        m = audit.matrix
        results.append({
            "policy": name, "gaps": scores["gaps"], "found": scores["found"],
            "recall": scores["recall"], "precision": scores["precision"],
            "findings": scores["findings"], "missed": scores["missed"],
            "seconds": round(seconds, 2),
            "rows": {s: m.count(s) for s in ("covered", "partial", "missing", "conflicting")},
            "parts_checked": sum(p.checked for p in m.scope),
            "parts": len(m.scope), "gap_rows": gap_rows(m, gaps),
            "confidences": {gid: [round(f.confidence_score, 3) for i, f in enumerate(
                x for x in audit.result.findings if x.target_doc_id == corpus.aml.id)
                if i in hits] for gid, hits in scores["by_gap"].items()},
            "finding_list": [
                f"{'HIT ' if i in {x for v in scores['by_gap'].values() for x in v} else '    '}"
                f"{f.kind} {f.severity} {f.target_clause} {f.confidence_score}: "
                f"{f.consequence[:90]} | {f.target_quote[:60]}"
                for i, f in enumerate(x for x in audit.result.findings
                                      if x.target_doc_id == corpus.aml.id)]})
        print(f"{name}: found {scores['found']}/{scores['gaps']} precision "
              f"{scores['precision']} findings {scores['findings']} {seconds:.1f}s",
              file=sys.stderr, flush=True)
    return results


async def _run(args: argparse.Namespace) -> list[dict[str, Any]]:
    settings = get_settings().model_copy(update={"data_dir": args.data_dir})
    async with open_container(settings) as container:
        thresholds = Thresholds(**{k: v for k, v in (
            ("scope", args.scope), ("covered", args.covered), ("item_covered", args.item),
            ("related", args.related)) if v is not None})
        return await measure(container, args.rulebooks, args.policy or sorted(DEV_POLICIES),
                             thresholds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m research.audit_dev.matrix_dev")
    parser.add_argument("--policy", action="append", choices=[*sorted(DEV_POLICIES), "demo"])
    parser.add_argument("--rulebooks", type=Path,
                        default=Path("../shared/data/obliqa/rulebooks_txt"))
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rows", action="store_true", help="Show each gap's matrix row.")
    for name in ("scope", "covered", "item", "related"):
        parser.add_argument(f"--{name}", type=float, default=None,
                            help=f"The {name} threshold (default: the shipped one).")
    args = parser.parse_args(argv)
    results = asyncio.run(_run(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    total_found = total_gaps = total_findings = useful = 0
    for r in results:
        print(f"{r['policy']:<11} found {r['found']:>2}/{r['gaps']:<2} recall {r['recall']:<5} "
              f"precision {r['precision']:<5} findings {r['findings']:>3} {r['seconds']:>5}s "
              f"rows {r['rows']} parts {r['parts_checked']}/{r['parts']} "
              f"missed {' '.join(r['missed'])}")
        if args.rows:
            for gid, row in r["gap_rows"].items():
                print(f"    {gid}: {row}")
            for line in r["finding_list"]:
                print(f"      {line}")
        total_found += r["found"]
        total_gaps += r["gaps"]
        total_findings += r["findings"]
        useful += round(r["precision"] * r["findings"])
    print(f"ALL found {total_found}/{total_gaps} recall {total_found / max(1, total_gaps):.3f} "
          f"precision {useful / max(1, total_findings):.3f} findings {total_findings}")


if __name__ == "__main__":
    main()
