"""ObliQA: load the passage corpus into a tenant (one passage per chunk, keeping DocumentID and
PassageID) and read the questions with their gold passages.

Dev is split in two folds by ``sha256(QuestionID) % 2``: fold 0 is where anything is tuned or
trained, fold 1 is held out; every figure we report says which fold it comes from."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import UUID

import numpy as np
from sqlalchemy import text

from regintel.adapters.files.local import LocalFileStore
from regintel.domain.documents import ChunkDraft, DocType, NewDocument
from regintel.ports.embedder import Embedder, Vectors
from regintel.ports.library import ChunkIndex, DocumentStore, FileStore

if TYPE_CHECKING:
    from regintel.container import Container


@dataclass(frozen=True)
class Passage:
    document_id: int
    passage_id: str
    text: str


@dataclass(frozen=True)
class Question:
    question_id: str
    text: str
    gold: tuple[Passage, ...]

    @property
    def fold(self) -> int:
        return int(hashlib.sha256(self.question_id.encode()).hexdigest(), 16) % 2


@dataclass
class LoadedCorpus:
    tenant_id: UUID
    # (DocumentID, PassageID) → chunk ids with that key (17 keys occur twice in the corpus)
    chunks_by_key: dict[tuple[int, str], list[tuple[UUID, str]]] = field(default_factory=dict)
    chunk_count: int = 0
    chunk_ids: list[UUID] = field(default_factory=list)  # row order of ``vectors``
    vectors: Vectors | None = None
    empty: list[bool] = field(default_factory=list)  # passages with no text

    def gold_chunks(self, question: Question) -> set[UUID]:
        """Gold passages as chunk ids; a duplicated key is resolved by the passage text."""
        found: set[UUID] = set()
        for passage in question.gold:
            options = self.chunks_by_key.get((passage.document_id, passage.passage_id), [])
            exact = [cid for cid, text in options if text == passage.text]
            found.update(exact or [cid for cid, _ in options][:1])
        return found


def read_corpus(directory: Path) -> dict[int, list[Passage]]:
    corpus: dict[int, list[Passage]] = defaultdict(list)
    for path in sorted(directory.glob("*.json"), key=lambda p: int(p.stem)):
        for row in json.loads(path.read_text()):
            corpus[int(row["DocumentID"])].append(
                Passage(int(row["DocumentID"]), str(row["PassageID"]), row["Passage"]))
    return dict(corpus)


def read_questions(path: Path) -> list[Question]:
    return [Question(row["QuestionID"], row["Question"], tuple(
        Passage(int(p["DocumentID"]), str(p["PassageID"]), p["Passage"]) for p in row["Passages"]))
        for row in json.loads(path.read_text())]


def selected(path: Path, *, fold: int | None, limit: int | None) -> list[Question]:
    """The questions of one fold (or both), the first ``limit`` of them when given."""
    questions = [q for q in read_questions(path) if fold is None or q.fold == fold]
    return questions[:limit] if limit else questions


@asynccontextmanager
async def corpus_tenant(container: Container, corpus_dir: Path, *, keep: bool = False,
                        cache_dir: Path | None = None) -> AsyncIterator[LoadedCorpus]:
    """The passages loaded into a fresh tenant, which is deleted afterwards unless ``keep``."""
    tenant_id = await container.documents.ensure_tenant(f"bench-obliqa-{uuid.uuid4().hex[:8]}")
    try:
        yield await load_corpus(read_corpus(corpus_dir), document_titles(corpus_dir),
                                tenant_id=tenant_id, documents=container.documents,
                                files=LocalFileStore(container.settings.files_dir),
                                index=container.chunk_index, embedder=container.embedder,
                                cache_dir=cache_dir)
    finally:
        if not keep:
            async with container.database.system_session() as session:
                await session.execute(text("DELETE FROM tenants WHERE id = :t"), {"t": tenant_id})


def document_titles(corpus_dir: Path) -> dict[int, str]:
    mapping = corpus_dir.parent / "document_map.json"
    if not mapping.exists():
        return {}
    return {int(k): v[-1] for k, v in json.loads(mapping.read_text()).items()}


def embed_cached(embedder: Embedder, texts: list[str], cache_dir: Path | None) -> Vectors:
    """Embeddings of the corpus, cached on disk by model and content: re-running the benchmark
    should measure retrieval, not re-embed 13,732 unchanged passages."""
    if cache_dir is None:
        return embedder.embed(texts)
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = cache_dir / f"{embedder.model_name}-{digest}.npy"
    if path.exists():
        cached: Vectors = np.load(path)
        if cached.shape == (len(texts), embedder.dimension):
            return cached
    vectors = embedder.embed(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


async def load_corpus(corpus: dict[int, list[Passage]], titles: dict[int, str], *,
                      tenant_id: UUID, documents: DocumentStore, files: FileStore,
                      index: ChunkIndex, embedder: Embedder,
                      cache_dir: Path | None) -> LoadedCorpus:
    ordered = [p for doc_id in sorted(corpus) for p in corpus[doc_id]]
    vectors = embed_cached(embedder, [p.text for p in ordered], cache_dir)
    loaded = LoadedCorpus(tenant_id)
    row = 0
    for doc_id in sorted(corpus):
        passages = corpus[doc_id]
        # The document's text is its passages one after another; offsets point into it.
        drafts, offset, parts = [], 0, []
        for ordinal, passage in enumerate(passages):
            drafts.append(ChunkDraft(ordinal=ordinal, text=passage.text, page_start=1, page_end=1,
                                     char_start=offset, char_end=offset + len(passage.text),
                                     clause=passage.passage_id))
            parts.append(passage.text)
            offset += len(passage.text) + 2
        data = "\n\n".join(parts).encode()
        digest, path = files.put(tenant_id, data)
        document = await documents.create(tenant_id, NewDocument(
            title=titles.get(doc_id, f"ObliQA document {doc_id}"), version="ObliQA",
            doc_type=DocType.REGULATION, content_hash=digest, file_path=path,
            original_filename=f"{doc_id}.json", mime_type="text/plain", size_bytes=len(data)))
        await documents.publish_chunks(tenant_id, document.id, drafts,
                                       vectors[row:row + len(drafts)],
                                       embedding_model=embedder.model_name)
        row += len(drafts)
        stored = await index.document_chunks(tenant_id, document.id)  # ordinal order
        for passage, chunk in zip(passages, stored, strict=True):
            loaded.chunks_by_key.setdefault((doc_id, passage.passage_id), []).append(
                (chunk.id, passage.text))
            loaded.chunk_ids.append(chunk.id)
            loaded.empty.append(not passage.text.strip())
    loaded.chunk_count = row
    loaded.vectors = vectors
    return loaded

