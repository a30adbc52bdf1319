import re, glob
from pathlib import Path
from regintel.domain.documents import ParsedDocument, ParsedPage
from regintel.ingestion import chunk_document, find_clauses
ITEM = re.compile(r"\s*\(?[a-z0-9ivx]{1,4}\)\s")
lists = whole = fits = 0
import sys
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/obliqa/rulebooks_txt/*.txt")):
    text = Path(f).read_text(encoding="utf-8-sig").replace("\r\n", "\n")
    doc = ParsedDocument(mime_type="text/plain", pages=(ParsedPage(number=1, text=text),))
    ch = chunk_document(doc)
    spans = [(c.char_start, c.char_end) for c in ch]
    for o, label in find_clauses(text):
        line_end = text.find("\n", o); line_end = len(text) if line_end < 0 else line_end
        if not text[o:line_end].rstrip().endswith(":"): continue
        end = line_end; pos = line_end + 1
        while pos < len(text):
            nl = text.find("\n", pos); nl = len(text) if nl < 0 else nl
            line = text[pos:nl]
            if ITEM.match(line) or (line[:1].islower()): end = nl; pos = nl + 1
            else: break
        if end == line_end: continue
        lists += 1
        if end - o <= 1000:
            fits += 1
            if any(a <= o and end <= b for a, b in spans): whole += 1
print("lists", lists, "short enough for a chunk", fits, "whole in one chunk", whole)
