"""What the stub chat server (llm_stub.py) answers, read back from the prompt it is sent: the
main call copies the first sentence of the first evidence items with their markers (and calls
``capture_concepts``); structured steps are answered by the offline rules (intent, references,
tone); summaries and comparisons by sentences copied from the numbered evidence with their
numbers; the audit by its themes and findings; the web search by two fixed results."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

_EVIDENCE = re.compile(r"^\[(\d+)\] [^\n]*\n(.*?)(?=\n\n\[\d+\] |\Z)", re.S | re.M)
_SENTENCE = re.compile(r"(.+?[.;:])(?:\s|$)", re.S)
_WORDS = re.compile(r"[a-z]{4,}")
_TOPIC = re.compile(r"\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)+|[A-Z]{2,6})\b")
_DOCUMENT = re.compile(r"^### Document (D\d+): (.*)$", re.M)
_DUTY = re.compile(r"\b(?:must|shall|required)\b", re.I)
_FIGURE = re.compile(r"\d+")


def _field(text: str, name: str) -> str:
    m = re.search(rf"^{re.escape(name)}: ?(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def main_answer(user: str) -> tuple[str, dict[str, Any]]:
    """The two evidence sentences sharing most words with the question, each with the marker
    of its evidence item, in evidence order."""
    question = _field(user, "Question")
    wanted = set(_WORDS.findall(question.lower()))
    scored = []
    for n, text in _EVIDENCE.findall(user):
        for m in _SENTENCE.finditer(" ".join(text.split())):
            sentence = m.group(1)
            overlap = len(wanted & set(_WORDS.findall(sentence.lower())))
            scored.append((-overlap, int(n), sentence))
    best = sorted(sorted(scored)[:2], key=lambda x: x[1])
    parts = [f"{sentence.rstrip('.;:')} [{n}]." for _, n, sentence in best]
    topics = _TOPIC.findall(question) or ["Customer Due Diligence"]
    concept = {"domain": "AML", "kind": topics[0].upper().replace(" ", "_"),
               "jurisdiction": "AE-ADGM", "prefLabel": topics[0],
               "definition": f"{topics[0]} as used in the regulations."}
    return " ".join(parts) or "The retrieved provisions do not address this question.", \
        {"concepts": [concept]}


def structured_answer(name: str, user: str) -> dict[str, Any]:
    """The stub's own answer to the structured step ``name`` (the response format's name)."""
    from regintel.chat.offline import intent, references
    from regintel.domain.chat import Action

    if name == "classify_intent":
        guess = intent.classify(_field(user, "Message"))
        return {"action": guess.action.value, "confidence": 0.9 if guess.confident else 0.4,
                "reason": guess.reason}
    if name == "resolve_references":
        out = references.resolve(_field(user, "Message"),
                                 Action(_field(user, "Intended action")),
                                 _explicit(_field(user, "Explicit documents provided")),
                                 _registry(user))
        level = out.inference_confidence
        return {"has_implicit_refs": out.has_implicit_refs,
                "inferred_doc_ids": out.candidates or out.inferred_doc_ids,
                "inference_confidence": "low" if level == "none" else level,
                "reasoning": out.reasoning, "unmatched_name": out.unmatched,
                "unmatched_kind": out.unmatched_kind}
    if name == "summarize_thread":  # the running summary, with the new questions appended
        previous = user.split("Summary so far:\n", 1)[-1].split("\n\nNew messages:", 1)[0]
        lines = [] if previous.strip() == "(none)" else previous.strip().splitlines()
        lines += [f"- Asked: {q[:120]}" for q in re.findall(r"^user: (.*)$", user, re.M)]
        return {"summary": "\n".join(lines[-12:])}
    if name == "rewrite_tone":
        return {"appropriate": True, "rewritten": None, "adjustments": []}
    if name == "compose_summary":
        return _summary(user)
    if name == "compose_comparison":
        return _comparison(user)
    if name == "extract_themes":
        return _themes(user)
    if name == "audit_findings":
        return _findings(user)
    raise ValueError(f"the stub does not know the structured step {name!r}")


Numbered = list[tuple[int, str]]  # (evidence number, one sentence of that evidence)


def _documents(user: str) -> list[tuple[str, Numbered]]:
    """Each document block of numbered evidence: its id and its sentences, in order."""
    heads = list(_DOCUMENT.finditer(user))
    out = []
    for i, head in enumerate(heads):
        block = user[head.end():heads[i + 1].start() if i + 1 < len(heads) else len(user)]
        sentences = [(int(n), m.group(1)) for n, text in _EVIDENCE.findall(block.strip())
                     for m in _SENTENCE.finditer(" ".join(text.split()))
                     if len(m.group(1).split()) >= 6 and len(m.group(1)) <= 400]
        out.append((head.group(1), sentences))
    return out


def _stated(item: tuple[int, str]) -> dict[str, Any]:
    return {"text": item[1], "evidence": [item[0]]}


def _summary(user: str) -> dict[str, Any]:
    """Per document: its first sentence that is not a heading or a list item as the
    overview, its first duties (then other sentences) as the key obligations."""
    sections = []
    for doc_id, sentences in _documents(user):
        overview = next((s for s in sentences if s[1][0].isupper() and "•" not in s[1]),
                        sentences[0])
        rest = [s for s in sentences if s != overview]
        duties = [s for s in rest if _DUTY.search(s[1])]
        key = (duties + [s for s in rest if s not in duties])[:5]
        sections.append({"document_id": doc_id, "overview": _stated(overview),
                         "key_obligations": [_stated(s) for s in key]})
    return {"documents": sections}


def _comparison(user: str) -> dict[str, Any]:
    """Focused: each document's sentence sharing most words with the topic (figures first on a
    tie) as its cell. Holistic: each document's first duties as differences and what it
    alone covers."""
    documents = _documents(user)
    topic = _field(user, "Topic")
    if topic:
        wanted = set(_WORDS.findall(topic.lower()))
        chosen = [max(sentences, key=lambda s: (len(wanted & set(_WORDS.findall(s[1].lower()))),
                                                bool(_FIGURE.search(s[1]))))
                  for _, sentences in documents]
        differs = len({tuple(_FIGURE.findall(s)) for _, s in chosen}) > 1
        row = {"aspect": topic, "differs": differs, "cells": [
            {"document_id": doc_id, "addressed": True, "text": s, "evidence": [n]}
            for (doc_id, _), (n, s) in zip(documents, chosen, strict=True)]}
        return {"rows": [row], "differences": [_stated(s) for s in chosen] if differs else [],
                "similarities": [] if differs else [_stated(chosen[0])]}
    duties = [[s for s in sentences if _DUTY.search(s[1])] or sentences
              for _, sentences in documents]
    return {"overview": _stated(documents[0][1][0]),
            "differences": [_stated(d[0]) for d in duties],
            "similarities": [],
            "unique": [{"document_id": doc_id, "points": [_stated(s) for s in d[1:3]]}
                       for (doc_id, _), d in zip(documents, duties, strict=True)],
            "implications": [_stated(duties[0][-1])]}


_PASSAGE = re.compile(r"^\[([ST]\d+)\] [^\n]*\n(.*?)(?=\n\n\[[ST]\d+\] |\n\n### |\n\nTARGET|\Z)",
                      re.S | re.M)
_AML_THEMES = ("customer due diligence", "record keeping", "suspicious activity",
               "money laundering reporting officer", "sanctions", "training", "risk assessment")


def _themes(user: str) -> dict[str, Any]:
    """The themes of a small AML vocabulary the sample mentions (else its first words)."""
    text = " ".join(user.lower().split())
    found = [t for t in _AML_THEMES if t in text]
    return {"themes": found[:4] or [" ".join(_WORDS.findall(text)[:3]) or "general"]}


def _findings(user: str) -> dict[str, Any]:
    """A gap for each of the first target passages that states a duty, against the first
    source passage: crude, but every id is one that was shown."""
    passages = {ident: " ".join(text.split()) for ident, text in _PASSAGE.findall(user)}
    sources = [i for i in passages if i.startswith("S")]
    findings: list[dict[str, Any]] = []
    for ident, text in passages.items():
        duty = next((m.group(1) for m in _SENTENCE.finditer(text) if _DUTY.search(m.group(1))),
                    None)
        if ident.startswith("T") and duty:
            findings.append({"kind": "gap", "severity": "High" if not findings else "Medium",
                             "target_evidence": ident,
                             "source_evidence": sources[0] if sources else None,
                             "requirement": duty[:400],
                             "consequence": "The policy does not show how it meets this rule.",
                             "suggestion": "State how the policy meets this requirement.",
                             "confidence_score": 0.7})
    return {"findings": findings[:3]}


def _explicit(line: str) -> list[Any]:
    from regintel.domain.documents import DocStatus, DocType, Document

    docs = []
    for ident, title, kind in re.findall(r"([0-9a-f-]{36}) \(([^;]*); (\w+)\)", line):
        docs.append(Document(id=UUID(ident), title=title, version="", doc_type=DocType(kind),
                             status=DocStatus.READY, original_filename="x", mime_type="x",
                             size_bytes=0, created_at=datetime.now(UTC), content_hash="x",
                             file_path="x"))
    return docs


def _registry(user: str) -> list[Any]:
    rows = re.findall(r"^([0-9a-f-]{36}) \| (.*?) \| (\w+) \| (\d+)$", user, re.M)
    return [{"id": i, "title": t, "version": "", "doc_type": k, "turn": int(n)}
            for i, t, k, n in rows]


def web_results(query: str) -> dict[str, Any]:
    """Tavily's response shape: ``results`` with title, url, content and score."""
    return {"query": query, "results": [
        {"title": "FSRA consults on AML rule changes", "url": "https://www.adgm.com/news/aml-2026",
         "content": "The FSRA published amendments to its AML Rules in 2026. Firms must "
                    "update their policies within six months.", "score": 0.91},
        {"title": "Sanctions update", "url": "https://www.adgm.com/news/sanctions",
         "content": "New targeted financial sanctions guidance applies from March 2026.",
         "score": 0.72}]}
