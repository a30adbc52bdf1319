"""``regintel bench audit --policy FILE --regulation FILE --gaps FILE``: the policy audit
scored on any policy, any regulation(s) and any planted-gap list, not only the demo's.

The files are ingested through the real pipeline into the bench's own tenant (in a throwaway
data directory unless ``--data-dir`` names one to reuse: ingestion deduplicates by content
hash, so a second run audits at once). Then one audit turn (``action=audit``, the policy and
the regulations tagged) runs through ``ChatService`` with the offline engine, whatever the
settings configure, and is scored as ``bench.audit`` scores the demo's: a finding counts
for a gap when it cites the gap's rule (or quotes its terms) and, for a contradiction,
quotes the policy's contradicting words. Precision is the share of all findings that find
some planted gap; a quote that stands in no stored chunk of its document is fabricated.

With ``--policies DIR`` every ``<name>_policy.*`` beside a ``<name>_gaps.json`` in DIR is
audited, one row each, and pooled: recall over all planted gaps, precision over all
findings. Policies listed in a ``held_out.txt`` (in DIR or its parent, as ``name`` or
``dir/name``) are skipped unless asked for: their results must not steer tuning.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from regintel.bench.audit import PlantedGap, evaluate_audit, load_gaps
from regintel.bench.audit_recall import audit_of, fabricated_quotes
from regintel.bench.review_queue import queue_scores
from regintel.container import Container
from regintel.demo.corpus import GDPR_ARTICLES, articles_markdown, gdpr_markdown
from regintel.domain.chat import Action, AuditFinding, ChatRequest
from regintel.domain.coverage import CoverageMatrix
from regintel.domain.documents import DocStatus, DocType, Document
from regintel.errors import InvalidRequest

TENANT = "bench-audit-dev"
REQUEST = "Audit the policy against these regulations"
INGEST_TIMEOUT_S = 1800
POLICY_SUFFIX = "_policy"
GAPS_SUFFIX = "_gaps.json"
HELD_OUT_FILE = "held_out.txt"
_HEADING = re.compile(r"^\s*#*\s*(\S.{2,150}?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class PolicyCase:
    """One policy to audit, with its planted gaps."""

    name: str
    policy: Path
    gaps: Path
    held_out: bool = False


@dataclass(frozen=True)
class Upload:
    data: bytes
    filename: str
    title: str


def regulation_upload(path: Path) -> Upload:
    """A regulation file as the product ingests it. JSON lines of articles (the GDPR's, as
    ``../shared/data`` keeps them) or a JSON document of articles (the AI Act's) become one
    Markdown document, a heading per article, the same bytes the demo loads (so the two
    share one stored copy)."""
    if path.suffix.lower() == ".jsonl":
        if path.name == GDPR_ARTICLES.name:
            from regintel.demo.corpus import GDPR_TITLE

            return Upload(gdpr_markdown(path).encode("utf-8"), "gdpr_2016_679.md", GDPR_TITLE)
        try:
            text = articles_markdown(path, path.stem)
        except (KeyError, ValueError) as exc:
            raise InvalidRequest(
                f"{path.name} is not JSON lines of articles",
                hint="each line needs 'article' (a number), 'title' and 'text'") from exc
        return Upload(text.encode("utf-8"), f"{path.stem}.md", path.stem)
    if path.suffix.lower() == ".json":
        return _articles_json(path)
    return Upload(path.read_bytes(), path.name, path.stem)


def _articles_json(path: Path) -> Upload:
    """A JSON document of articles (the AI Act's, as ``../shared/data`` keeps it): one
    Markdown document, a heading per article, as the demo loads it."""
    from regintel.demo.ai_act import AI_ACT_FILE, AI_ACT_TITLE, ai_act_markdown

    try:
        text = ai_act_markdown(path)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRequest(f"{path.name} is not a JSON document of articles",
                             hint="an object with 'articles', each with a number, title "
                                  "and text") from exc
    title = AI_ACT_TITLE if path.name == AI_ACT_FILE.name else path.stem
    return Upload(text.encode("utf-8"), f"{path.stem}.md", title)


def policy_upload(path: Path) -> Upload:
    """A policy file; a text policy is titled by its first line (its heading)."""
    data = path.read_bytes()
    title = path.stem
    if path.suffix.lower() in (".md", ".txt"):
        first = _HEADING.search(data.decode("utf-8", errors="replace"))
        if first:
            title = first[1].strip("# ")[:200]
    return Upload(data, path.name, title)


def cases_in(directory: Path, *, include_held_out: bool = False) -> list[PolicyCase]:
    """Every ``<name>_policy.*`` with a ``<name>_gaps.json`` beside it, by name."""
    held = _held_out(directory)
    cases = []
    for policy in sorted(directory.glob(f"*{POLICY_SUFFIX}.*")):
        name = policy.name.split(POLICY_SUFFIX, 1)[0]
        gaps = directory / f"{name}{GAPS_SUFFIX}"
        if not gaps.exists():
            continue
        held_out = name in held or f"{directory.name}/{name}" in held
        if held_out and not include_held_out:
            continue
        cases.append(PolicyCase(name, policy, gaps, held_out))
    if not cases:
        raise InvalidRequest(f"no policy with its gap file in {directory}",
                             hint=f"name them <name>{POLICY_SUFFIX}.md and <name>{GAPS_SUFFIX}")
    return cases


def _held_out(directory: Path) -> set[str]:
    names: set[str] = set()
    for place in (directory, directory.parent):
        listing = place / HELD_OUT_FILE
        if listing.exists():
            names |= {line.strip() for line in listing.read_text(encoding="utf-8").splitlines()
                      if line.strip() and not line.startswith("#")}
    return names


async def ingest(container: Container, tenant_id: UUID, upload: Upload,
                 doc_type: DocType) -> Document:
    submission = await container.ingestion.submit(
        tenant_id, data=upload.data, filename=upload.filename, title=upload.title,
        doc_type=doc_type)
    [document] = await container.ingestion.run_until_done(
        tenant_id, [submission.document.id], timeout_s=INGEST_TIMEOUT_S)
    if document.status is not DocStatus.READY:
        raise InvalidRequest(f"{upload.filename} could not be ingested: "
                             f"{document.status_reason or document.status.value}")
    return document


GAP_KEYS = frozenset(PlantedGap.__annotations__)


def read_gaps(path: Path) -> list[PlantedGap]:
    """A gap file, checked: a clear error names the file and what is wrong with it."""
    try:
        gaps = load_gaps(path)
    except (OSError, ValueError) as exc:
        raise InvalidRequest(f"{path.name} is not a readable gap file: {exc}") from exc
    if not isinstance(gaps, list) or not gaps:
        raise InvalidRequest(f"{path.name} holds no planted gaps",
                             hint="a JSON list of gaps, as tests/data/aml_policy_gaps.json")
    for gap in gaps:
        missing = GAP_KEYS - set(gap) if isinstance(gap, dict) else GAP_KEYS
        if missing or gap["kind"] not in ("missing", "contradiction"):
            name = gap.get("id", "?") if isinstance(gap, dict) else repr(gap)
            raise InvalidRequest(
                f"{path.name}: gap {name} "
                f"lacks {', '.join(sorted(missing)) or 'a kind of missing or contradiction'}",
                hint="each gap has id, kind, rule, obligation, policy_clause, policy_text "
                     "and match_terms")
    return gaps


async def run(container: Container, cases: Sequence[PolicyCase],
              regulations: Sequence[Path]) -> dict[str, Any]:
    """Ingest the regulations once, then audit and score each policy in turn."""
    tenant_id = await container.documents.ensure_tenant(TENANT)
    uploads = [await asyncio.to_thread(regulation_upload, path) for path in regulations]
    targets = [await ingest(container, tenant_id, u, DocType.REGULATION) for u in uploads]
    rows = [await audit_case(container, tenant_id, case, targets) for case in cases]
    return {"regulations": [t.title for t in targets], "policies": rows,
            "pooled": pooled(rows)}


async def audit_case(container: Container, tenant_id: UUID, case: PolicyCase,
                     targets: Sequence[Document]) -> dict[str, Any]:
    gaps = read_gaps(case.gaps)
    policy = await ingest(container, tenant_id, await asyncio.to_thread(policy_upload,
                                                                         case.policy),
                          DocType.POLICY)
    chat = await container.chat()
    request = ChatRequest(message=REQUEST, action=Action.AUDIT,
                          tagged_doc_ids=(policy.id, *(t.id for t in targets)))
    started = time.perf_counter()
    response = await chat.ask(tenant_id, request)
    seconds = time.perf_counter() - started
    audit = audit_of(response)
    fabricated = await fabricated_quotes(container.chunk_index, tenant_id, response,
                                         policy_id=policy.id)
    scores = evaluate_audit(audit, gaps)
    queue = queue_scores(await _matrix(container, tenant_id, response.thread_id), gaps,
                         {g: bool(hits) for g, hits in scores["by_gap"].items()})
    return {
        "policy": case.name, "held_out": case.held_out, "engine": response.engine.value,
        "overall_status": audit.overall_status,
        "gaps": scores["gaps"], "found": scores["found"], "recall": scores["recall"],
        "findings": scores["findings"], "matching_findings": scores["matching_findings"],
        "precision": scores["precision"], "finding_precision": scores["precision"],
        "kind_agreement": scores["kind_agreement"],
        "surfaced": queue["surfaced"], "surfaced_share": queue["surfaced_share"],
        "queue": queue["queue"], "likely_met": queue["likely_met"],
        "not_applicable": queue["not_applicable"],
        "quotes_fabricated": fabricated, "seconds": round(seconds, 2),
        "by_gap": [_gap_row(gap, scores["by_gap"][gap["id"]], audit.findings)
                   | queue["by_gap"][gap["id"]] for gap in gaps],
        # Each finding, shortened, with the gaps it finds: what to read when a figure moves
        # (JSON only; the table stays one line a gap).
        "findings_list": [_finding_row(i, f, scores["by_gap"])
                          for i, f in enumerate(audit.findings)],
    }


async def _matrix(container: Container, tenant_id: UUID,
                  conversation_id: UUID) -> CoverageMatrix | None:
    """The matrix the turn kept beside its answer (the latest assistant message)."""
    messages = await container.conversations.messages(tenant_id, conversation_id)
    answer = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if answer is None:
        return None
    return await container.conversations.audit_matrix(tenant_id, conversation_id, answer.id)


def _gap_row(gap: PlantedGap, hits: list[int], findings: Sequence[AuditFinding]) -> dict[str, Any]:
    return {"id": gap["id"], "kind": gap["kind"], "rule": gap["rule"], "found": bool(hits),
            "findings": hits,
            "finding_clauses": sorted({findings[i].target_clause or "" for i in hits})}


def _finding_row(index: int, finding: AuditFinding, by_gap: dict[str, list[int]]) -> dict[str, Any]:
    return {"index": index, "kind": finding.kind, "severity": finding.severity,
            "clause": finding.target_clause, "rule_quote": finding.target_quote[:160],
            "policy_quote": (finding.source_quote or "")[:160],
            "finds": [gap for gap, hits in by_gap.items() if index in hits]}


def pooled(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """All the policies' gaps and findings counted together."""
    gaps = sum(r["gaps"] for r in rows)
    found = sum(r["found"] for r in rows)
    findings = sum(r["findings"] for r in rows)
    matching = sum(r["matching_findings"] for r in rows)
    return {"policies": len(rows), "gaps": gaps, "found": found,
            "recall": round(found / gaps, 3) if gaps else 0.0,
            "findings": findings, "matching_findings": matching,
            "precision": round(matching / findings, 3) if findings else 0.0,
            "finding_precision": round(matching / findings, 3) if findings else 0.0,
            "surfaced": sum(r["surfaced"] for r in rows),
            "surfaced_share": round(sum(r["surfaced"] for r in rows) / gaps, 3) if gaps else 0.0,
            "queue": sum(r["queue"] for r in rows),
            "quotes_fabricated": sum(r["quotes_fabricated"] for r in rows),
            "seconds": round(sum(r["seconds"] for r in rows), 2)}


POLICY_HEADERS = ["policy", "gaps found", "recall", "finding precision", "findings",
                  "surfaced", "queue", "fabricated", "status", "seconds"]
GAP_HEADERS = ["policy", "gap", "kind", "rule", "found", "by findings on", "queue rank",
               "rows"]


def policy_rows(figures: dict[str, Any]) -> list[list[Any]]:
    rows: list[list[Any]] = [
        [r["policy"] + (" (held out)" if r["held_out"] else ""), f"{r['found']}/{r['gaps']}",
         r["recall"], r["precision"], f"{r['matching_findings']}/{r['findings']}",
         f"{r['surfaced']}/{r['gaps']}", r["queue"], r["quotes_fabricated"],
         r["overall_status"], r["seconds"]]
        for r in figures["policies"]]
    p = figures["pooled"]
    if len(figures["policies"]) > 1:
        rows.append(["all (pooled)", f"{p['found']}/{p['gaps']}", p["recall"], p["precision"],
                     f"{p['matching_findings']}/{p['findings']}",
                     f"{p['surfaced']}/{p['gaps']}", p["queue"], p["quotes_fabricated"], "",
                     p["seconds"]])
    return rows


def gap_rows(figures: dict[str, Any]) -> list[list[Any]]:
    return [[r["policy"], g["id"], g["kind"], g["rule"], "hit" if g["found"] else "miss",
             ", ".join(g["finding_clauses"]), g.get("rank") or "",
             ", ".join(g.get("statuses", []))]
            for r in figures["policies"] for g in r["by_gap"]]
