"""Development tool (issue 47): the development text checks audited straight through the
matrix auditor (the scenarios bench's corpus, in the default data directory, ingested by a
`regintel bench scenarios` run), printing each breach's sentence beside the sentences the
engine flagged, their top rules, and the findings. Held-out texts are skipped.

    python research/audit_queue/text_flags.py ../shared/data"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from regintel.bench.scenario_corpus import ingest
from regintel.bench.scenario_data import load_text_checks
from regintel.bench.scenarios import TENANT
from regintel.retrieval.evidence import CitationBook
from regintel.cli.app import load_settings, open_container


async def main(shared: Path) -> None:
    async with open_container(load_settings()) as container:
        corpus = await ingest(container, TENANT, shared)
        auditor = container.matrix_auditor()
        for check in load_text_checks():
            if check["split"] != "dev":
                continue
            target = corpus.documents[check["target"]]
            audit = await auditor.audit_text(corpus.tenant_id, [target], check["text"],
                                             book=CitationBook())
            print(f"== {check['id']} compliant={check['compliant']}")
            for b in check["breaches"]:
                print(f"   BREACH {b['rules']}: {b.get('sentence', '')[:110]}")
            for f in audit.result.flagged:
                rules = ", ".join(f"{r.rule}({r.score:.2f})" for r in f.rules)
                print(f"   FLAG [{f.cue}] {f.sentence[:80]} -> {rules}")
            for f in audit.result.findings:
                print(f"   FINDING {f.target_clause}: {(f.source_quote or '')[:80]}")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
