"""A Rich progress display for `regintel ingest`: chunks embedded (with the time left at the
rate so far) and documents done, read from the documents' own records while the ingestion
runs, on stderr so the command's stdout stays one line per document."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from regintel.domain.documents import DocStatus, Document

POLL_S = 0.5
Read = Callable[[], Awaitable[list[Document]]]


def _counts(documents: Sequence[Document]) -> tuple[int, int, int, int]:
    """(chunks embedded, chunks known so far, documents done, documents parsed)."""
    embedded = total = done = parsed = 0
    for d in documents:
        finished = d.status in (DocStatus.READY, DocStatus.FAILED)
        done += finished
        size = d.chunk_count if d.status is DocStatus.READY else d.chunks_total
        if size:
            parsed += 1
            total += size
            embedded += size if finished else d.chunks_embedded
    return embedded, total, done, parsed


def _show(progress: Progress, chunks: TaskID, docs: TaskID,
          documents: Sequence[Document]) -> None:
    embedded, total, done, parsed = _counts(documents)
    waiting = len(documents) - parsed
    progress.update(chunks, completed=embedded, total=total or None,
                    description="Chunks embedded" + (
                        f" ({waiting} document(s) not parsed yet)" if waiting else ""))
    progress.update(docs, completed=done)


async def with_progress(work: Awaitable[list[Document]], read: Read, count: int, *,
                        console: Console | None = None) -> list[Document]:
    """Runs ``work`` (the ingestion) while showing what ``read`` reports every POLL_S."""
    columns = (TextColumn("{task.description}"), BarColumn(bar_width=30), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    # A log or a pipe has no width to fit: wide enough that no figure is cut to "…".
    shown = console or Console(stderr=True, width=None if sys.stderr.isatty() else 160)
    with Progress(*columns, console=shown, transient=False) as progress:
        chunks = progress.add_task("Chunks embedded", total=None)
        docs = progress.add_task("Documents ready", total=count)
        task = asyncio.ensure_future(work)
        while not task.done():
            _show(progress, chunks, docs, await read())
            await asyncio.wait({task}, timeout=POLL_S)
        result = task.result()
        _show(progress, chunks, docs, result)
    return result
