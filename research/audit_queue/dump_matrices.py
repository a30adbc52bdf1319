"""Development tool (issue 47): audit each development policy again, straight through the
matrix auditor, against the data directory a `regintel bench audit --data-dir DIR` run left
(its regulations and policies ingested), and write each matrix with its planted gaps to JSON,
so the review queue's ordering can be studied without re-running the chat.

    python research/audit_queue/dump_matrices.py DATA_DIR OUT_DIR aml=REG cobs=REG ...

Held-out policies are skipped (tests/data/dev_policies/held_out.txt)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from regintel.bench.audit_policies import (
    TENANT,
    cases_in,
    policy_upload,
    read_gaps,
    regulation_upload,
)
from regintel.retrieval.evidence import CitationBook
from regintel.cli.app import load_settings, open_container

POLICIES = Path("tests/data/dev_policies")


async def main(data_dir: Path, out: Path, pairs: list[str]) -> None:
    settings = load_settings()
    settings = settings.model_copy(update={
        "data_dir": data_dir,
        "llm": settings.llm.model_copy(update={"base_url": None, "providers": {}})})
    out.mkdir(parents=True, exist_ok=True)
    async with open_container(settings) as container:
        tenant = await container.documents.ensure_tenant(TENANT)
        documents = await container.documents.list(tenant)
        by_title = {d.title: d for d in documents}
        auditor = container.matrix_auditor()
        for pair in pairs:
            name, regulation_file = pair.split("=", 1)
            regulation = by_title[regulation_upload(Path(regulation_file)).title]
            for case in cases_in(POLICIES / name):
                policy = by_title[policy_upload(case.policy).title]
                audit = await auditor.audit(tenant, [regulation], policy, book=CitationBook())
                (out / f"{name}_{case.name}.json").write_text(json.dumps({
                    "gaps": read_gaps(case.gaps),
                    "matrix": audit.matrix.model_dump(mode="json"),
                    "findings": [f.model_dump(mode="json") for f in audit.result.findings],
                }), encoding="utf-8")
                print(name, case.name, len(audit.matrix.rows), flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]))
