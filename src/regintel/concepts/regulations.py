"""The bundled public regulations: GDPR and the EU AI Act from the shared data directory.

GDPR: ``regulations/gdpr_articles.jsonl`` (GDPRtEXT by Harshvardhan J. Pandit, CC BY 4.0).
AI Act: ``regulations/eu_ai_act_2024_1689.json`` (Regulation (EU) 2024/1689, parsed from the
official Formex XML; EUR-Lex content, reused with acknowledgement under Commission Decision
2011/833/EU). ADGM AML: the glossary of the ADGM Anti-Money Laundering and Sanctions Rules and
Guidance (``obliqa/rulebooks_txt/AML_VER09.211223.txt``, published by the FSRA), the rulebook
the demo is about. All are public law, so their sections may enter the shared graph."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from regintel.errors import ConfigurationError

GDPR_FILE = Path("regulations") / "gdpr_articles.jsonl"
AI_ACT_FILE = Path("regulations") / "eu_ai_act_2024_1689.json"
ADGM_AML_FILE = Path("obliqa") / "rulebooks_txt" / "AML_VER09.211223.txt"
GLOSSARY = "glossary"
# A glossary row: the term, a tab, then its definition ("Means …" / "Has the meaning …").
_GLOSSARY_ROW = re.compile(r"^(?P<term>[^\t]{2,120}?)\s*\t(?P<d>(?:Means|Has the meaning)\b.*)$")


@dataclass(frozen=True)
class Article:
    number: str
    title: str
    text: str


@dataclass(frozen=True)
class Regulation:
    code: str  # short, stable: part of every section key
    title: str
    url: str
    domain: str
    jurisdiction: str
    definitions_article: str
    articles: tuple[Article, ...]

    def section_key(self, article: str) -> str:
        return f"section:{self.code}:art-{article}"

    def article_url(self, article: str) -> str:
        return f"{self.url}#art_{article}"


@dataclass(frozen=True)
class Definition:
    number: int
    term: str
    definition: str


def _gdpr(path: Path) -> Regulation:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    articles = tuple(Article(str(r["article"]), str(r["title"]).strip(), str(r["text"]))
                     for r in sorted(rows, key=lambda r: int(r["article"])))
    return Regulation("gdpr", "GDPR (Regulation (EU) 2016/679)",
                      "https://eur-lex.europa.eu/eli/reg/2016/679/oj", "DATA_PROTECTION", "EU",
                      "4", articles)


def _ai_act(path: Path) -> Regulation:
    data = json.loads(path.read_text(encoding="utf-8"))
    articles = tuple(Article(str(a["article"]), str(a["title"]).strip().rstrip("`"),
                             str(a["text"])) for a in data["articles"])
    return Regulation("ai-act", "EU AI Act (Regulation (EU) 2024/1689)",
                      "https://eur-lex.europa.eu/eli/reg/2024/1689/oj", "AI", "EU", "3",
                      articles)


def _adgm_aml(path: Path) -> Regulation:
    """The rulebook's glossary as its one article: the rows that define a term."""
    rows = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
            if _GLOSSARY_ROW.match(line.strip())]
    return Regulation("adgm-aml", "ADGM Anti-Money Laundering and Sanctions Rules and Guidance "
                      "(AML)", "https://en.adgm.thomsonreuters.com/rulebook/"
                      "anti-money-laundering-and-sanctions-rules-and-guidance-aml", "AML",
                      "ADGM", GLOSSARY, (Article(GLOSSARY, "Glossary", "\n".join(rows)),))


@lru_cache(maxsize=4)
def bundled_regulations(shared_data_dir: Path) -> tuple[Regulation, ...]:
    """The bundled regulations, or a ConfigurationError naming the missing file."""
    out = []
    for relative, parse in ((GDPR_FILE, _gdpr), (AI_ACT_FILE, _ai_act),
                            (ADGM_AML_FILE, _adgm_aml)):
        path = shared_data_dir / relative
        if not path.is_file():
            raise ConfigurationError(f"bundled regulation not found: {path}",
                                     hint="set REGINTEL_DEMO_DATA_DIR to the shared data "
                                          "directory (../shared/data)")
        out.append(parse(path))
    return tuple(out)


async def load_bundled(shared_data_dir: Path) -> tuple[Regulation, ...]:
    """``bundled_regulations`` off the event loop (the first call reads ~2 MB of JSON)."""
    return await asyncio.to_thread(lambda: bundled_regulations(shared_data_dir.resolve()))


def definitions(regulation: Regulation) -> list[Definition]:
    """The numbered definitions of the regulation's definitions article.

    GDPR Article 4 puts one quoted term per line (``'personal data' means …``) with list
    continuations on the lines after; AI Act Article 3 numbers them inline, unquoted
    (``(1) AI system means …``). Both are read by their layout, independently of the
    offline extractor, which is what the concept benchmark measures against."""
    article = next(a for a in regulation.articles if a.number == regulation.definitions_article)
    if regulation.code == "gdpr":
        return _quoted_lines(article.text)
    if regulation.definitions_article == GLOSSARY:
        return _glossary_rows(article.text)
    return _numbered_inline(article.text)


def _glossary_rows(text: str) -> list[Definition]:
    """A rulebook glossary's "Term<TAB>Means …" rows; an abbreviation after the term
    ("Politically Exposed Person (PEP)") stays out of its label."""
    out: list[Definition] = []
    for line in text.splitlines():
        m = _GLOSSARY_ROW.match(line.strip())
        if m:
            term = re.sub(r"\s*\([A-Za-z]{2,10}\)$", "", m["term"]).strip()
            meaning = re.sub(r"^Means,?\s+", "", m["d"]).strip()
            out.append(Definition(len(out) + 1, term, meaning))
    return out


def _quoted_lines(text: str) -> list[Definition]:
    out: list[Definition] = []
    for line in text.splitlines():
        m = re.match(r"^[‘'](?P<term>[^’']+)[’'][^\n]*?\bmeans\b\s*(?P<d>.*)$", line.strip())
        if m:
            out.append(Definition(len(out) + 1, m["term"].strip(), m["d"].strip()))
        elif out and line.strip():
            last = out[-1]
            out[-1] = Definition(last.number, last.term, f"{last.definition} {line.strip()}")
    return out


def _numbered_inline(text: str) -> list[Definition]:
    out: list[Definition] = []
    parts = re.split(r"\((\d{1,3})\)\s", text)
    expected, current = 1, ""
    number = 0
    # Split at "(n) " only when n is the next definition: "(4) of Regulation …" is a citation.
    chunks: list[tuple[int, str]] = []
    for i in range(1, len(parts), 2):
        n = int(parts[i])
        if n == expected:
            if number:
                chunks.append((number, current))
            number, current, expected = n, parts[i + 1], n + 1
        else:
            current += f"({parts[i]}) {parts[i + 1]}"
    if number:
        chunks.append((number, current))
    for n, chunk in chunks:
        m = re.match(r"^(?P<term>.+?)\s*,?\s+means\b[:\s]*(?P<d>.*)$", chunk.strip(), re.S)
        if m:
            term = re.sub(r"\s*,.*$", "", m["term"]).strip(" ‘’'")
            out.append(Definition(n, term, " ".join(m["d"].split()).rstrip(";")))
    return out
