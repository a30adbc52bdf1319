"""The corpus the answer scenarios run on: the demo corpus (the ADGM AML and General
rulebooks, the GDPR and the sample company policy, with the demo's titles, versions and sets)
and the ADGM Conduct of Business Rulebook beside it, ingested through the real pipeline into
the bench's own tenant. A file already stored there is not ingested again (ingestion
deduplicates by content hash)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from regintel.container import Container
from regintel.demo.corpus import DEMO_CORPUS, RULEBOOKS, DemoDocument, load_demo_corpus
from regintel.domain.documents import DocStatus, DocType, Document

INGEST_TIMEOUT_S = 1800
COBS = DemoDocument("ADGM Conduct of Business Rulebook (COBS)", "VER15.150823",
                    DocType.REGULATION, "ADGM", "COBS_VER15.150823.txt",
                    lambda shared: (shared / RULEBOOKS / "COBS_VER15.150823.txt").read_bytes())
# The scenario files name documents by these keys.
KEYS = {"AML_VER09.211223.txt": "AML", "GEN_VER08.181223.txt": "GEN",
        "gdpr_2016_679.md": "GDPR", COBS.filename: "COBS"}


@dataclass(frozen=True)
class ScenarioCorpus:
    tenant_id: UUID
    documents: dict[str, Document]  # key ("AML", "GEN", "COBS", "GDPR", "POLICY") → document

    def key_of(self, document_id: UUID | None) -> str | None:
        return next((k for k, d in self.documents.items() if d.id == document_id), None)


async def ingest(container: Container, tenant: str, shared_data: Path) -> ScenarioCorpus:
    """The demo corpus and COBS in ``tenant``, every document ready."""
    tenant_id = await container.documents.ensure_tenant(tenant)
    submissions = await load_demo_corpus(container.ingestion, tenant_id, shared_data)
    data = await asyncio.to_thread(COBS.read, shared_data)
    submissions.append(await container.ingestion.submit(
        tenant_id, data=data, filename=COBS.filename, title=COBS.title, doc_type=COBS.doc_type,
        version=COBS.version, set_name=COBS.set_name))
    documents = await container.ingestion.run_until_done(
        tenant_id, [s.document.id for s in submissions], timeout_s=INGEST_TIMEOUT_S)
    for document in documents:
        if document.status is not DocStatus.READY:
            raise RuntimeError(
                f"ingestion of {document.title} did not finish: {document.status_reason}")
    filenames = [d.filename for d in (*DEMO_CORPUS, COBS)]
    return ScenarioCorpus(tenant_id, {KEYS.get(name, "POLICY"): document
                                      for name, document in zip(filenames, documents,
                                                                strict=True)})
