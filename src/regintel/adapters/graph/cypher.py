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
# Property names that may appear in query text (look-ups by property, list appends). Values
# never do; property maps written with ``SET n += $props`` travel as parameters.
PROPERTIES = frozenset({
    "key", "domain", "kind", "jurisdiction", "prefLabel", "altLabels", "labelsNorm",
    "definition", "sourceUrls", "document", "clause", "title", "url", "source",
})
# Deletions leave one of these so a change stream can report removals; never exported.
TOMBSTONE = "Tombstone"
_RETURN_NODE = "RETURN labels(n) AS labels, n.key AS key, properties(n) AS props"
_RETURN_EDGE = "RETURN type(e) AS rel, a.key AS src, b.key AS dst, properties(e) AS props"


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


def prop(name: str) -> str:
    if name not in PROPERTIES:
        raise InvalidRequest(f"graph property {name!r} cannot be queried",
                             hint=f"allowed: {', '.join(sorted(PROPERTIES))}")
    return name


def merge_node(node_label: str, extra_labels: tuple[str, ...] = (), *,
               create_only: bool = False) -> str:
    """``create_only``: the properties are written only if the node is new, so the loser of
    a creation race never overwrites what the winner wrote."""
    add = "".join(f", n:{label(x)}" for x in extra_labels)
    if create_only:
        return (f"MERGE (n:{label(node_label)} {{key: $key}}) "
                f"ON CREATE SET n += $props, n.created_at = $now, n.updated_at = $now{add} "
                + _RETURN_NODE)
    return (f"MERGE (n:{label(node_label)} {{key: $key}}) "
            "ON CREATE SET n.created_at = $now "
            f"SET n += $props, n.updated_at = $now{add} "
            + _RETURN_NODE)


def append_unique(node_label: str, list_prop: str) -> str:
    p = prop(list_prop)
    return (f"MATCH (n:{label(node_label)} {{key: $key}}) "
            f"SET n.{p} = coalesce(n.{p}, []) + "
            f"[x IN $values WHERE NOT x IN coalesce(n.{p}, [])], n.updated_at = $now "
            + _RETURN_NODE)


def get_nodes_by_keys() -> str:
    return f"MATCH (n) WHERE n.key IN $keys AND NOT n:{TOMBSTONE} " + _RETURN_NODE


def find_nodes(node_label: str, props: tuple[str, ...]) -> str:
    where = " AND ".join(f"n.{prop(p)} = $v{i}" for i, p in enumerate(props)) or "true"
    return f"MATCH (n:{label(node_label)}) WHERE {where} {_RETURN_NODE} ORDER BY key LIMIT $limit"


def find_nodes_with_any(node_label: str, list_prop: str) -> str:
    p = prop(list_prop)
    return (f"MATCH (n:{label(node_label)}) WHERE any(x IN coalesce(n.{p}, []) WHERE x IN $values) "
            f"{_RETURN_NODE} ORDER BY key LIMIT $limit")


def neighbours_of() -> str:
    return (f"MATCH (n)-[e]-(m) WHERE n.key IN $keys AND NOT n:{TOMBSTONE} "
            "RETURN type(e), startNode(e).key, endNode(e).key, properties(e), "
            "labels(m), m.key, properties(m), n.key LIMIT $limit")


def edges_among() -> str:
    return (f"MATCH (a)-[e]->(b) WHERE a.key IN $keys AND b.key IN $keys "
            f"AND NOT a:{TOMBSTONE} AND NOT b:{TOMBSTONE} "
            "RETURN type(e), a.key, b.key, properties(e) LIMIT $limit")


def delete_node(node_label: str) -> str:
    return (f"MATCH (n:{label(node_label)} {{key: $key}}) "
            "WITH n, labels(n) AS ls, n.key AS k DETACH DELETE n "
            f"WITH ls, k MERGE (t:{TOMBSTONE} {{ref: k}}) "
            "SET t.kind = 'node', t.labels = ls, t.deleted_at = $now RETURN k")


def delete_edge(src_label: str, rel_type: str, dst_label: str) -> str:
    return (f"MATCH (a:{label(src_label)} {{key: $src}})-[e:{rel(rel_type)}]->"
            f"(b:{label(dst_label)} {{key: $dst}}) DELETE e "
            f"WITH a, b MERGE (t:{TOMBSTONE} {{ref: $ref}}) "
            "SET t.kind = 'edge', t.rel = $rel, t.src = a.key, t.dst = b.key, "
            "t.deleted_at = $now RETURN t.ref")


def changed_nodes() -> str:
    return (f"MATCH (n) WHERE n.updated_at >= $since AND NOT n:{TOMBSTONE} "
            f"{_RETURN_NODE}, n.updated_at AS at ORDER BY at LIMIT $limit")


def changed_edges() -> str:
    return (f"MATCH (a)-[e]->(b) WHERE e.updated_at >= $since {_RETURN_EDGE}, "
            "e.updated_at AS at ORDER BY at LIMIT $limit")


def tombstones() -> str:
    # The purge horizon is a tombstone too (so every read already leaves it out), never
    # returned here: its deleted_at is -1.
    return (f"MATCH (t:{TOMBSTONE}) WHERE t.deleted_at >= $since "
            "RETURN t.kind, t.ref, t.deleted_at AS at, t.labels, t.rel, t.src, t.dst "
            "ORDER BY at LIMIT $limit")


HORIZON = "__purged_before__"


def purge_tombstones() -> str:
    return (f"MATCH (t:{TOMBSTONE}) WHERE t.deleted_at >= 0 AND t.deleted_at < $before "
            "DELETE t RETURN count(t)")


def purge_horizon() -> str:
    return f"MATCH (h:{TOMBSTONE} {{ref: '{HORIZON}'}}) RETURN h.purged_before"


def set_purge_horizon() -> str:
    return (f"MERGE (h:{TOMBSTONE} {{ref: '{HORIZON}'}}) "
            "SET h.kind = 'horizon', h.deleted_at = -1, h.purged_before = $before")


def all_nodes() -> str:
    return f"MATCH (n) WHERE NOT n:{TOMBSTONE} {_RETURN_NODE} ORDER BY key"


def all_edges() -> str:
    return f"MATCH (a)-[e]->(b) {_RETURN_EDGE} ORDER BY src, rel, dst"


def key_indexes(dialect: str) -> list[str]:
    """Statements that index ``key`` on every whitelisted label, per server dialect. On the
    Bolt servers ``:Concept`` keys are also unique: their MERGE does not lock a missing key,
    so the constraint is what keeps concurrent captures to one node (FalkorDB runs writes to
    one graph one at a time, which gives MERGE the same guarantee)."""
    labels = sorted(NODE_LABELS | {TOMBSTONE})
    if dialect == "falkordb":
        return [f"CREATE INDEX FOR (n:{x}) ON (n.{'ref' if x == TOMBSTONE else 'key'})"
                for x in labels]
    if dialect == "memgraph":
        return [f"CREATE INDEX ON :{x}(key)" for x in labels] + [
            "CREATE CONSTRAINT ON (n:Concept) ASSERT n.key IS UNIQUE"]
    return [f"CREATE INDEX regintel_{x.lower()}_key IF NOT EXISTS FOR (n:{x}) ON (n.key)"
            for x in labels if x != "Concept"] + [
        "CREATE CONSTRAINT regintel_concept_key IF NOT EXISTS "
        "FOR (n:Concept) REQUIRE n.key IS UNIQUE"]


def get_nodes(node_label: str) -> str:
    return f"MATCH (n:{label(node_label)}) WHERE n.key IN $keys " + _RETURN_NODE


def merge_edge(src_label: str, rel_type: str, dst_label: str) -> str:
    return (f"MATCH (a:{label(src_label)} {{key: $src}}), (b:{label(dst_label)} {{key: $dst}}) "
            f"MERGE (a)-[e:{rel(rel_type)}]->(b) "
            "ON CREATE SET e.created_at = $now "
            "SET e += $props, e.updated_at = $now "
            + _RETURN_EDGE)


def neighbours(node_label: str) -> str:
    return (f"MATCH (n:{label(node_label)} {{key: $key}})-[e]-(m) WHERE NOT m:{TOMBSTONE} "
            "RETURN type(e), startNode(e).key, endNode(e).key, properties(e), "
            "labels(m), m.key, properties(m)")


def count_nodes(node_label: str) -> str:
    return f"MATCH (n:{label(node_label)}) RETURN count(n)"
