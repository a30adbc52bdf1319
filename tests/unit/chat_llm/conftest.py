"""Evidence cut from a real rulebook (ADGM AML Rulebook, VER09) and engines over the scripted
model; the fallback is the real offline engine over the real MiniLM embedder."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.chat.offline.engine import OfflineEngine
from regintel.chat.state import DocRef
from regintel.domain.documents import ChunkHit, DocStatus, DocType, Document

RULEBOOK = Path("/work/shared/data/obliqa/rulebooks_txt/AML_VER09.211223.txt")
AML_ID = UUID("00000000-0000-4000-8000-00000000a001")
# (clause, first line, last line) of the rulebook file, 1-based and inclusive.
SECTIONS = (("8.1.1", 561, 585), ("8.3.1", 632, 637), ("14.2", 1196, 1202))


def _lines(first: int, last: int) -> str:
    lines = RULEBOOK.read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1:last])


@pytest.fixture(scope="session")
def hits() -> list[ChunkHit]:
    if not RULEBOOK.exists():
        pytest.skip(f"rulebook text not available: {RULEBOOK}")
    out = []
    for ordinal, (clause, first, last) in enumerate(SECTIONS):
        text = _lines(first, last)
        out.append(ChunkHit(
            ordinal=ordinal, text=text, page_start=10 + ordinal, page_end=10 + ordinal,
            char_start=0, char_end=len(text), clause=clause, chunk_id=uuid4(),
            document_id=AML_ID, document_title="Anti-Money Laundering and Sanctions Rules",
            document_version="VER09", doc_type=DocType.REGULATION, score=0.9 - 0.1 * ordinal))
    return out


@pytest.fixture
def offline(embedder: LocalEmbedder) -> OfflineEngine:
    return OfflineEngine(embedder)


def document(title: str, doc_type: DocType = DocType.POLICY, doc_id: UUID | None = None
             ) -> Document:
    return Document(
        id=doc_id or uuid4(), title=title, version="1", doc_type=doc_type,
        status=DocStatus.READY, original_filename=f"{title}.pdf", mime_type="application/pdf",
        size_bytes=1, created_at=datetime.now(UTC), content_hash="0", file_path="x")


def ref(doc: Document, turn: int) -> DocRef:
    return DocRef(id=str(doc.id), title=doc.title, version=doc.version,
                  doc_type=doc.doc_type.value, turn=turn)


def span(text: str, start: str, end: str) -> str:
    """The verbatim slice of ``text`` from ``start`` to the end of the next ``end``."""
    a = text.index(start)
    return text[a:text.index(end, a) + len(end)]
