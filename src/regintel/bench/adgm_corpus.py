"""The corpus the chat benchmarks run on: the ADGM AML and General rulebooks and one company
policy, ingested through the real pipeline (a file already stored is not ingested again)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from regintel.container import Container
from regintel.demo.corpus import POLICY_PDF
from regintel.domain.documents import DocStatus, DocType, Document

AML_FILE = "AML_VER09.211223.txt"
GEN_FILE = "GEN_VER08.181223.txt"
DEMO_POLICY_TITLE = "Falcon Crest AML Policy"
INGEST_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Corpus:
    tenant_id: UUID
    aml: Document
    gen: Document
    policy: Document


async def ingest(container: Container, tenant: str, rulebooks: Path, policy_pdf: Path,
                 policy_title: str) -> Corpus:
    tenant_id = await container.documents.ensure_tenant(tenant)
    aml = await ingest_file(container, tenant_id, rulebooks / AML_FILE,
                            "ADGM Anti-Money Laundering and Sanctions Rules", DocType.REGULATION)
    gen = await ingest_file(container, tenant_id, rulebooks / GEN_FILE,
                            "ADGM General Rulebook", DocType.REGULATION)
    policy = await ingest_file(container, tenant_id, policy_pdf, policy_title, DocType.POLICY)
    return Corpus(tenant_id, aml, gen, policy)


async def ingest_demo(container: Container, tenant: str, rulebooks: Path) -> Corpus:
    """The two rulebooks and the sample company policy the package ships (the demo's)."""
    return await ingest(container, tenant, rulebooks, POLICY_PDF, DEMO_POLICY_TITLE)


async def ingest_file(container: Container, tenant_id: UUID, path: Path, title: str,
                      doc_type: DocType) -> Document:
    submission = await container.ingestion.submit(
        tenant_id, data=await asyncio.to_thread(path.read_bytes), filename=path.name,
        title=title, doc_type=doc_type)
    [document] = await container.ingestion.run_until_done(
        tenant_id, [submission.document.id], timeout_s=INGEST_TIMEOUT_S)
    if document.status is not DocStatus.READY:
        raise RuntimeError(f"ingestion of {path.name} did not finish: {document.status_reason}")
    return document
