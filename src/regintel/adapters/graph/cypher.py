"""Every Cypher statement the product sends, in one place.

Values always travel as ``$params``. Labels and relationship types cannot be parameters in
Cypher, so they pass ``label()``/``rel()`` against a whitelist before they touch query text.
"""

from __future__ import annotations

from regintel.errors import InvalidRequest

# Concept labels: one generic plus one per regulatory domain (SKOS concepts of that domain).
CONCEPT_LABELS = frozenset({
    "Concept", "TaxConcept", "AmlConcept", "DataProtectionConcept", "AiConcept",
    "PrudentialConcept", "ConductConcept", "MarketsConcept", "GovernanceConcept",
})
NODE_LABELS = CONCEPT_LABELS | frozenset({"Label", "Section", "Rule", "Source"})
REL_TYPES = frozenset({
    "BROADER", "NARROWER", "RELATED", "DEFINED_IN", "MENTIONED_IN", "HAS_LABEL", "PART_OF",
})


def label(name: str) -> str:
    if name not in NODE_LABELS:
        raise InvalidRequest(f"graph label {name!r} is not allowed",
                             hint=f"allowed: {', '.join(sorted(NODE_LABELS))}")
    return name


def rel(name: str) -> str:
    if name not in REL_TYPES:
        raise InvalidRequest(f"graph relationship {name!r} is not allowed",
                             hint=f"allowed: {', '.join(sorted(REL_TYPES))}")
    return name


def merge_node(node_label: str) -> str:
    return (f"MERGE (n:{label(node_label)} {{key: $key}}) "
            "ON CREATE SET n.created_at = $now "
            "SET n += $props, n.updated_at = $now "
            "RETURN labels(n), n.key, properties(n)")


def get_nodes(node_label: str) -> str:
    return (f"MATCH (n:{label(node_label)}) WHERE n.key IN $keys "
            "RETURN labels(n), n.key, properties(n)")


def merge_edge(src_label: str, rel_type: str, dst_label: str) -> str:
    return (f"MATCH (a:{label(src_label)} {{key: $src}}), (b:{label(dst_label)} {{key: $dst}}) "
            f"MERGE (a)-[e:{rel(rel_type)}]->(b) "
            "ON CREATE SET e.created_at = $now "
            "SET e += $props, e.updated_at = $now "
            "RETURN type(e), a.key, b.key, properties(e)")


def neighbours(node_label: str) -> str:
    return (f"MATCH (n:{label(node_label)} {{key: $key}})-[e]-(m) "
            "RETURN type(e), startNode(e).key, endNode(e).key, properties(e), "
            "labels(m), m.key, properties(m)")


def count_nodes(node_label: str) -> str:
    return f"MATCH (n:{label(node_label)}) RETURN count(n)"
