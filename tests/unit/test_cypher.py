from __future__ import annotations

import pytest

from regintel.adapters.graph import cypher
from regintel.errors import InvalidRequest


@pytest.mark.parametrize("bad", [
    "Concept) DETACH DELETE (n",
    "Concept:Admin",
    "concept",
    "User",
    "Conversation",
    "",
])
def test_labels_outside_the_whitelist_never_reach_query_text(bad: str) -> None:
    with pytest.raises(InvalidRequest):
        cypher.merge_node(bad)
    with pytest.raises(InvalidRequest):
        cypher.get_nodes(bad)


@pytest.mark.parametrize("bad", ["RELATED]->(x) DELETE x //", "KNOWS", "related"])
def test_relationship_types_outside_the_whitelist_are_refused(bad: str) -> None:
    with pytest.raises(InvalidRequest):
        cypher.merge_edge("Concept", bad, "Concept")


def test_values_are_parameters_not_text() -> None:
    query = cypher.merge_node("AmlConcept")
    assert "$key" in query and "$props" in query and "$now" in query
    assert "AmlConcept" in query
