"""The AI Act (Regulation (EU) 2024/1689) as one Markdown document, one heading per article
("## Article 26 Obligations of deployers of high-risk AI systems"), each numbered paragraph
on its own line: the form in which it is uploaded to a library (the register's and the
audit benches' regulation file), as the GDPR is (demo.corpus.gdpr_markdown)."""

from __future__ import annotations

import json
import re
from pathlib import Path

AI_ACT_FILE = Path("regulations") / "eu_ai_act_2024_1689.json"
AI_ACT_TITLE = "AI Act (Regulation (EU) 2024/1689)"
# A numbered paragraph starts a line: "2. This Regulation…" after a sentence's end.
_PARAGRAPH = re.compile(r"(?<=[.;:])\s+(?=\d{1,2}\.\s+[A-Z])")


def ai_act_markdown(source: Path) -> str:
    data = json.loads(source.read_text(encoding="utf-8"))
    out = [f"# {AI_ACT_TITLE}", "", str(data.get("source", "")), ""]
    for article in data["articles"]:
        title = str(article["title"]).strip().strip("`")
        out += [f"## Article {article['article']} {title}", ""]
        for paragraph in str(article["text"]).split("\n"):
            for part in _PARAGRAPH.split(paragraph.strip()):
                if part.strip():
                    out += [part.strip(), ""]
    return "\n".join(out)
