"""A report's JSON schema narrowed to one call: what the model was shown and what its output
budget holds.

A provider that constrains its output to the schema (llama.cpp's grammar) then cannot write a
document id or an evidence number it was not shown (the 0.5B model cited document '1'), nor
run past its token limit in the middle of the JSON (a cut answer is thrown away whole): the
lists of statements are capped so that all of them fit the route's output tokens. A provider
that does not constrain its output is asked for the same through the schema; the answer is
validated (``reports``) either way.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

# One cited statement in the JSON: a short sentence and its evidence numbers, with the keys and
# punctuation around them (Qwen's tokenizer: ~4 characters of English text a token).
STATEMENT_TOKENS = 70
# A statement's text on a small output budget: one sentence, not a paragraph.
SHORT_TEXT_CHARS = 200
SMALL_OUTPUT_TOKENS = 1024
EVIDENCE_PER_STATEMENT = 3  # a statement rests on a few items, not the whole evidence
MAX_CAP = 8

Schema = dict[str, Any]


def narrowed(schema: Schema, *, documents: Sequence[str], evidence: int,
             output_tokens: int) -> Schema:
    """``schema`` (pydantic's, with ``$defs``) where ``document_id`` is one of ``documents``,
    an evidence number is one of 1..``evidence``, a list with one entry per document has
    exactly that many, and every other list of statements is capped so that the whole answer
    fits ``output_tokens``."""
    out = copy.deepcopy(schema)
    defs: dict[str, Schema] = out.get("$defs", {})
    for node in [out, *defs.values()]:
        props: dict[str, Schema] = node.get("properties", {})
        if "document_id" in props:
            props["document_id"] = {"type": "string", "enum": list(documents)}
        if "evidence" in props:
            props["evidence"] = {"type": "array", "maxItems": EVIDENCE_PER_STATEMENT,
                                 "items": {"type": "integer",
                                           "enum": list(range(1, evidence + 1))}}
            if "evidence" in node.get("required", []) and "addressed" not in props:
                props["evidence"]["minItems"] = 1  # a statement must cite (a cell may not)
        if "text" in props and output_tokens < SMALL_OUTPUT_TOKENS:
            props["text"]["maxLength"] = min(props["text"].get("maxLength", SHORT_TEXT_CHARS),
                                             SHORT_TEXT_CHARS)
    budget = max(1, output_tokens // STATEMENT_TOKENS)
    cap = max([c for c in range(1, MAX_CAP + 1)
               if _statements(out, defs, c, len(documents)) <= budget], default=1)
    for node in [out, *defs.values()]:
        for prop in node.get("properties", {}).values():
            if prop.get("type") != "array" or "$ref" not in prop.get("items", {}):
                continue
            if _per_document(prop, defs):
                prop["minItems"] = prop["maxItems"] = len(documents)
            else:
                prop["maxItems"] = min(prop.get("maxItems", cap), cap)
    return out


def _target(node: Schema, defs: dict[str, Schema]) -> Schema:
    ref = node.get("$ref")
    return defs[ref.rsplit("/", 1)[1]] if isinstance(ref, str) else node


def _per_document(array: Schema, defs: dict[str, Schema]) -> bool:
    return "document_id" in _target(array["items"], defs).get("properties", {})


def _statements(node: Schema, defs: dict[str, Schema], cap: int, documents: int) -> int:
    """How many statements an answer to ``node`` holds at most with lists capped at ``cap``."""
    node = _target(node, defs)
    if node.get("type") == "array":
        if "$ref" not in node.get("items", {}):
            return 0
        count = documents if _per_document(node, defs) else min(node.get("maxItems", cap), cap)
        return count * _statements(node["items"], defs, cap, documents)
    props: dict[str, Schema] = node.get("properties", {})
    if "text" in props and "evidence" in props:
        return 1
    return sum(_statements(p, defs, cap, documents) for p in props.values())
