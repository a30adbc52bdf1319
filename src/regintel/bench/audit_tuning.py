"""The offline audit's similarity thresholds (drafts.COVERED, TOPIC, RELATED), tuned on a
development policy and then scored once on the test policy.

The project reports the audit's recall on the demo policy (Falcon Crest,
tests/data/aml_policy_gaps.json), so neither the thresholds nor the engine's rules may be
chosen on it. The development policies, written apart from it, are listed in
bench/dev_policies.py with what each showed. ``tune`` audits a development policy against
the ADGM AML and General rulebooks at every point of ``grid()`` and keeps the point with the
best F2 (recall counts four times as much as precision: a missed obligation costs more than a
finding to dismiss) on the AML target's findings.

    python -m regintel.bench.audit_tuning build [--policy NAME]  # render the PDF from its source
    python -m regintel.bench.audit_tuning tune [--policy NAME]   # the grid, and the chosen point
    python -m regintel.bench.audit_tuning dev [--policy NAME]    # one audit: each gap found or not
    python -m regintel.bench.audit_tuning test    # the shipped thresholds on Falcon Crest

Each grid point re-runs the real audit (retrieval, reading, matching, citing); only the
embeddings are shared between points (``MemoEmbedder``), which is what makes a point cost
about a second instead of the audit's full time. The development PDF and gap list are
repository data, not shipped in the wheel.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from regintel.adapters.embeddings.wrapped import WrappedEmbedder
from regintel.bench import adgm_corpus
from regintel.bench.adgm_corpus import Corpus
from regintel.bench.audit import PlantedGap, evaluate_audit, format_evaluation, load_gaps
from regintel.bench.dev_policies import DEV_POLICIES, TEST_GAPS, TEST_PDF, DevPolicy
from regintel.bench.report import render_json, render_table
from regintel.chat.evidence import CitationBook
from regintel.chat.offline.audit import AuditInputs, run_audit
from regintel.chat.offline.drafts import SHIPPED, Thresholds
from regintel.domain.chat import AuditResult
from regintel.ports.embedder import Embedder, Vectors
from regintel.retrieval.hybrid import HybridRetriever

if TYPE_CHECKING:
    from regintel.container import Container

TENANT = "bench-audit-tuning"

# The grid spans the hand-read values (0.62/0.45/0.55) and the ObliQA calibration
# (0.725/0.38/0.43, bench/audit.py calibrate_thresholds) and a little beyond both.
COVERED_GRID = (0.50, 0.53, 0.56, 0.59, 0.62, 0.65, 0.68, 0.71, 0.74)
TOPIC_GRID = (0.38, 0.42, 0.46, 0.50)
RELATED_GRID = (0.43, 0.47, 0.51, 0.55, 0.59)
BETA = 2.0


def grid() -> list[Thresholds]:
    """Every combination in which a gap band exists (TOPIC below COVERED) and so does the
    band in which a gap finding quotes the policy's nearest clause and a conflict is looked
    for (RELATED below COVERED)."""
    return [Thresholds(covered=c, topic=t, related=r)
            for c, t, r in itertools.product(COVERED_GRID, TOPIC_GRID, RELATED_GRID)
            if t < c and r < c]


def build_dev_policy(policy: DevPolicy) -> Path:
    """Render a development policy's PDF from its source (byte-for-byte reproducible)."""
    from regintel.demo.build_policy import render

    policy.pdf.write_bytes(render(policy.source.read_text(encoding="utf-8"), policy.letterhead))
    return policy.pdf


class MemoEmbedder(WrappedEmbedder):
    """An embedder that embeds each distinct text once: every grid point audits the same
    policy against the same rulebooks, so after the first point nothing is embedded again."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self._seen: dict[str, Vectors] = {}

    def embed(self, texts: Sequence[str]) -> Vectors:
        new = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if new:
            self._seen.update(zip(new, self._inner.embed(new), strict=True))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._seen[t] for t in texts])


async def ingest(container: Container, rulebooks: Path, policy_pdf: Path,
                 policy_title: str) -> Corpus:
    """The two rulebooks and one policy, through the real ingestion pipeline."""
    return await adgm_corpus.ingest(container, TENANT, rulebooks, policy_pdf, policy_title)


class Point(TypedDict):
    covered: float
    topic: float
    related: float
    found: int
    gaps: int
    recall: float
    precision: float
    f2: float
    findings: int
    missed: list[str]
    seconds: float


def f_beta(recall: float, precision: float, beta: float = BETA) -> float:
    if not recall or not precision:
        return 0.0
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


async def audit_at(corpus: Corpus, gaps: Sequence[PlantedGap], thresholds: Thresholds, *,
                   retriever: HybridRetriever, container: Container,
                   embedder: Embedder) -> Point:
    """One audit of the corpus's policy against both rulebooks, scored on the AML target."""
    started = time.perf_counter()
    result = await run_audit(
        AuditInputs(corpus.tenant_id, [corpus.aml, corpus.gen], corpus.policy, None),
        retriever=retriever, index=container.chunk_index, embedder=embedder,
        book=CitationBook(), thresholds=thresholds)
    seconds = time.perf_counter() - started
    scores = evaluate_audit(result, gaps, target_id=corpus.aml.id)
    return {"covered": thresholds.covered, "topic": thresholds.topic,
            "related": thresholds.related, "found": scores["found"], "gaps": scores["gaps"],
            "recall": scores["recall"], "precision": scores["precision"],
            "f2": round(f_beta(scores["recall"], scores["precision"]), 4),
            "findings": scores["findings"], "missed": scores["missed"],
            "seconds": round(seconds, 2)}


async def tune(container: Container, corpus: Corpus, gaps: Sequence[PlantedGap],
               points: Sequence[Thresholds] | None = None) -> dict[str, Any]:
    """Audit the development corpus at every grid point; the F2-best point (see
    ``choose``)."""
    memo = MemoEmbedder(container.embedder)
    r = container.settings.retrieval
    retriever = HybridRetriever(container.chunk_index, memo, candidates=r.candidates,
                                max_scope_documents=r.max_scope_documents)
    scored = [await audit_at(corpus, gaps, t, retriever=retriever, container=container,
                             embedder=memo) for t in (points or grid())]
    return {"points": scored, "best": choose(scored), "beta": BETA,
            "policy": corpus.policy.title}


def choose(points: Sequence[Point]) -> Point:
    """The point with the best F2; among equals, the one whose grid neighbours (one step
    along any axis) score best on average - the middle of a plateau rather than its edge,
    since a small set of gaps leaves many ties - then the higher precision, then the
    lower thresholds (the earlier point of the grid)."""
    def coordinates(p: Point) -> tuple[float, float, float]:
        return p["covered"], p["topic"], p["related"]

    axes = [sorted({coordinates(p)[i] for p in points}) for i in range(3)]

    def at(p: Point) -> tuple[int, ...]:
        return tuple(axis.index(v) for axis, v in zip(axes, coordinates(p), strict=True))

    where = {at(p): p for p in points}

    def neighbourhood(p: Point) -> float:
        here = at(p)
        near = [q["f2"] for offset in itertools.product((-1, 0, 1), repeat=3)
                if (q := where.get(tuple(a + o for a, o in zip(here, offset, strict=True))))
                is not None]
        return sum(near) / len(near)

    return max(points, key=lambda p: (p["f2"], round(neighbourhood(p), 6), p["precision"],
                                      -p["covered"], -p["topic"], -p["related"]))


async def _audit_once(container: Container, corpus: Corpus,
                      thresholds: Thresholds) -> tuple[AuditResult, float, int]:
    """One audit of the corpus's policy against both rulebooks, with the container's own
    embedder (nothing cached), after a warm-up of the model; its seconds, and the quotes
    the citation book refused (a quote that does not verify against its chunk)."""
    container.embedder.embed(["warm-up"])
    book = CitationBook()
    started = time.perf_counter()
    result = await run_audit(
        AuditInputs(corpus.tenant_id, [corpus.aml, corpus.gen], corpus.policy, None),
        retriever=container.retriever, index=container.chunk_index,
        embedder=container.embedder, book=book, thresholds=thresholds)
    return result, time.perf_counter() - started, book.dropped


def _figures(result: AuditResult, seconds: float, dropped: int, gaps: Sequence[PlantedGap],
             corpus: Corpus, thresholds: Thresholds) -> dict[str, Any]:
    scores = evaluate_audit(result, gaps, target_id=corpus.aml.id)
    return {"thresholds": vars(thresholds), "seconds": round(seconds, 2),
            "quotes_dropped": dropped,
            "findings": len(result.findings), "scores": scores,
            "f2": round(f_beta(scores["recall"], scores["precision"]), 4),
            "precision_all_targets": evaluate_audit(result, gaps)["precision"],
            "summary": format_evaluation(scores)}


async def inspect_dev(container: Container, corpus: Corpus, gaps: Sequence[PlantedGap],
                      thresholds: Thresholds = SHIPPED) -> dict[str, Any]:
    """One audit of the development policy, gap by gap: the figures, and every finding on
    the AML target with the planted gaps it finds (for diagnosis - only ever on the
    development policy, whose gaps the thresholds and rules may be tuned on)."""
    result, seconds, dropped = await _audit_once(container, corpus, thresholds)
    figures = _figures(result, seconds, dropped, gaps, corpus, thresholds)
    aml = [f for f in result.findings if f.target_doc_id == corpus.aml.id]
    found_by = {i: [gid for gid, hits in figures["scores"]["by_gap"].items() if i in hits]
                for i in range(len(aml))}
    figures["aml_findings"] = [
        {"kind": f.kind, "clause": f.target_clause, "finds": found_by[i],
         "confidence": f.confidence_score, "rule": f.target_quote, "policy": f.source_quote}
        for i, f in enumerate(aml)]
    return figures


async def score_on_test_policy(container: Container, corpus: Corpus, gaps: Sequence[PlantedGap],
                    thresholds: Thresholds = SHIPPED) -> dict[str, Any]:
    """The figures to report: one audit of the test policy with the given thresholds, with
    the container's own embedder (nothing cached), after a warm-up of the model."""
    result, seconds, dropped = await _audit_once(container, corpus, thresholds)
    return _figures(result, seconds, dropped, gaps, corpus, thresholds)


def _dev_report(figures: dict[str, Any]) -> str:
    lines = [figures["summary"], f"F2 {figures['f2']}, {figures['seconds']} s, "
             f"{figures['findings']} findings in all, {figures['quotes_dropped']} quotes "
             f"refused", ""]
    for f in figures["aml_findings"]:
        lines.append(f"[{' '.join(f['finds']) or '-'}] {f['kind']} {f['clause']} "
                     f"({f['confidence']}): {f['rule'][:110]}")
        if f["policy"]:
            lines.append(f"      policy: {f['policy'][:110]}")
    return "\n".join(lines)


# -- command line ----------------------------------------------------------------------------
def _table(figures: dict[str, Any]) -> str:
    rows = [[p["covered"], p["topic"], p["related"], f"{p['found']}/{p['gaps']}", p["recall"],
             p["precision"], p["f2"], p["findings"], " ".join(p["missed"])]
            for p in figures["points"]]
    best = figures["best"]
    return (render_table(f"Audit thresholds on the development policy ({figures['policy']})",
                         ["covered", "topic", "related", "found", "recall", "precision",
                          "f2", "findings", "missed"], rows)
            + f"\n\nchosen: COVERED {best['covered']}, TOPIC {best['topic']}, RELATED "
              f"{best['related']} (F2 {best['f2']}, recall {best['recall']}, precision "
              f"{best['precision']})")


async def _run(command: str, policy: DevPolicy, rulebooks: Path,
               data_dir: Path) -> dict[str, Any]:
    from regintel.cli.app import open_container
    from regintel.settings import get_settings

    settings = get_settings().model_copy(update={"data_dir": data_dir})
    async with open_container(settings) as container:
        if command in ("tune", "dev"):
            corpus = await ingest(container, rulebooks, policy.pdf, policy.title)
            if command == "dev":
                return await inspect_dev(container, corpus, load_gaps(policy.gaps))
            return await tune(container, corpus, load_gaps(policy.gaps))
        corpus = await ingest(container, rulebooks, TEST_PDF, "Falcon Crest AML Policy")
        return await score_on_test_policy(container, corpus, load_gaps(TEST_GAPS))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m regintel.bench.audit_tuning",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("command", choices=["build", "tune", "dev", "test"])
    parser.add_argument("--policy", choices=sorted(DEV_POLICIES), default="oryx",
                        help="The development policy of build, tune and dev.")
    parser.add_argument("--rulebooks", type=Path,
                        default=Path("../shared/data/obliqa/rulebooks_txt"),
                        help="Directory with the ADGM AML and GEN rulebook text files.")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="Data directory to reuse (default: a throwaway one).")
    parser.add_argument("--json", action="store_true", help="Print JSON figures.")
    args = parser.parse_args(argv)
    if args.command == "build":
        print(f"wrote {build_dev_policy(DEV_POLICIES[args.policy])}")
        return
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="regintel-tuning-"))
    try:
        figures = asyncio.run(_run(args.command, DEV_POLICIES[args.policy], args.rulebooks,
                                   data_dir))
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.json or args.command == "test":
        print(render_json(figures))
    elif args.command == "dev":
        print(_dev_report(figures))
    else:
        print(_table(figures))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
