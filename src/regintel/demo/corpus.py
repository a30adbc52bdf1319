"""The demo corpus: two ADGM rulebooks, the GDPR and a sample company AML policy, submitted to
a tenant's library through the ordinary ingestion service.

Loading is idempotent: ingestion deduplicates by content hash, and every file here is read
or rendered byte for byte the same each time, so a second load submits nothing new. The
regulations come from the shared data directory (``../shared/data`` beside the project, or
wherever the caller says); the sample policy ships inside the package."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from regintel.domain.documents import DocType
from regintel.errors import ConfigurationError
from regintel.ingestion.service import IngestionService, Submission

POLICY_PDF = Path(__file__).with_name("data") / "falcon_crest_aml_policy.pdf"
RULEBOOKS = Path("obliqa") / "rulebooks_txt"
GDPR_ARTICLES = Path("regulations") / "gdpr_articles.jsonl"
GDPR_TITLE = "GDPR (Regulation (EU) 2016/679)"
GDPR_ATTRIBUTION = (
    "Text of the articles from GDPRtEXT by Harshvardhan J. Pandit "
    "(https://github.com/coolharsh55/GDPRtEXT), licensed under Creative Commons Attribution "
    "4.0 International (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/). Rendered "
    "to Markdown, one heading per article, for the Regulatory Intelligence Copilot demo.")


@dataclass(frozen=True)
class DemoDocument:
    title: str
    version: str
    doc_type: DocType
    set_name: str
    filename: str  # as uploaded (its extension picks the parser)
    read: Callable[[Path], bytes]  # the bytes, given the shared data directory


def _file(relative: Path) -> Callable[[Path], bytes]:
    return lambda shared: (shared / relative).read_bytes()


DEMO_CORPUS: tuple[DemoDocument, ...] = (
    DemoDocument("ADGM Anti-Money Laundering and Sanctions Rules and Guidance (AML)",
                 "VER09.211223", DocType.REGULATION, "ADGM", "AML_VER09.211223.txt",
                 _file(RULEBOOKS / "AML_VER09.211223.txt")),
    DemoDocument("ADGM General Rulebook (GEN)", "VER08.181223", DocType.REGULATION, "ADGM",
                 "GEN_VER08.181223.txt", _file(RULEBOOKS / "GEN_VER08.181223.txt")),
    DemoDocument(GDPR_TITLE, "2016/679", DocType.REGULATION, "EU", "gdpr_2016_679.md",
                 lambda shared: gdpr_markdown(shared / GDPR_ARTICLES).encode("utf-8")),
    DemoDocument("Falcon Crest Capital Ltd — AML/CFT Policy", "2026.1", DocType.POLICY,
                 "Falcon Crest policies", POLICY_PDF.name,
                 lambda _shared: POLICY_PDF.read_bytes()),
)


def gdpr_markdown(articles_jsonl: Path) -> str:
    """The GDPR's articles as one Markdown document: a heading per chapter and per article
    ("## Article 6 Lawfulness of processing"), each paragraph of the text on its own."""
    return articles_markdown(articles_jsonl, GDPR_TITLE, GDPR_ATTRIBUTION)


def articles_markdown(articles_jsonl: Path, title: str, preface: str = "") -> str:
    """A regulation kept as JSON lines of articles (``article``, ``title``, ``text`` and an
    optional ``chapter``) as one Markdown document, in article order."""
    rows = [json.loads(line) for line in articles_jsonl.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    rows.sort(key=lambda r: int(r["article"]))
    out = [f"# {title}", ""] + ([preface, ""] if preface else [])
    chapter = None
    for row in rows:
        if row.get("chapter") is not None and row["chapter"] != chapter:
            chapter = row["chapter"]
            out += [f"# Chapter {chapter}", ""]
        out += [f"## Article {row['article']} {row['title'].strip()}", ""]
        for paragraph in str(row["text"]).split("\n"):
            if paragraph.strip():
                out += [paragraph.strip(), ""]
    return "\n".join(out)


async def load_demo_corpus(ingestion: IngestionService, tenant_id: UUID,
                           shared_data: Path) -> list[Submission]:
    """Submit every demo document not yet in the tenant's library (the others come back
    with ``created=False``). The jobs then run as any upload's do."""
    missing = [shared_data / p for p in (RULEBOOKS, GDPR_ARTICLES)
               if not (shared_data / p).exists()]
    if missing:
        raise ConfigurationError(
            f"the demo corpus needs {', '.join(str(p) for p in missing)}",
            hint="point the demo at the shared data directory (../shared/data)")
    submissions = []
    for doc in DEMO_CORPUS:
        data = await asyncio.to_thread(doc.read, shared_data)
        submissions.append(await ingestion.submit(
            tenant_id, data=data, filename=doc.filename, title=doc.title,
            doc_type=doc.doc_type, version=doc.version, set_name=doc.set_name))
    return submissions
