"""A report's schema narrowed to one call: the ids and numbers shown, lists that fit the
output tokens (a small model's summary was cut at its token limit and thrown away)."""

from __future__ import annotations

from typing import Any

from regintel.chat.llm import prompts as p
from regintel.chat.llm.output_schema import SHORT_TEXT_CHARS, narrowed


def _props(schema: dict[str, Any], name: str) -> dict[str, Any]:
    props: dict[str, Any] = schema["$defs"][name]["properties"]
    return props


def test_ids_and_evidence_numbers_are_the_ones_shown() -> None:
    schema = narrowed(p.SummaryOutput.model_json_schema(), documents=["D1", "D2"], evidence=5,
                      output_tokens=4096)
    assert _props(schema, "SummarySectionOutput")["document_id"]["enum"] == ["D1", "D2"]
    evidence = _props(schema, "CitedOutput")["evidence"]
    assert evidence["items"]["enum"] == [1, 2, 3, 4, 5] and evidence["minItems"] == 1
    # One section per document, exactly.
    assert schema["properties"]["documents"]["minItems"] == 2 == \
        schema["properties"]["documents"]["maxItems"]
    # A large budget keeps the model's own bounds.
    assert _props(schema, "SummarySectionOutput")["key_obligations"]["maxItems"] == 8
    assert _props(schema, "CitedOutput")["text"]["maxLength"] == 600


def test_a_small_output_budget_caps_the_statements_and_their_length() -> None:
    summary = narrowed(p.SummaryOutput.model_json_schema(), documents=["D1"], evidence=6,
                       output_tokens=256)
    # 256 tokens hold an overview and 2 obligations (70 tokens a statement).
    assert _props(summary, "SummarySectionOutput")["key_obligations"]["maxItems"] == 2
    assert _props(summary, "CitedOutput")["text"]["maxLength"] == SHORT_TEXT_CHARS
    focused = narrowed(p.FocusedComparisonOutput.model_json_schema(), documents=["D1", "D2"],
                       evidence=6, output_tokens=512)
    assert focused["properties"]["rows"]["maxItems"] == 1
    cells = _props(focused, "ComparisonRowOutput")["cells"]
    assert cells["minItems"] == cells["maxItems"] == 2
    # A cell may say its document is silent: no citation required there.
    assert "minItems" not in _props(focused, "ComparisonCellOutput")["evidence"]
