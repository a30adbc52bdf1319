"""Which version of a document's family is current, in SQL: one rule for the library's
listing, a version chain and search, computed when read so that a version dated in the
future becomes current on its date without anyone writing anything.

The rule (issue 48). A version is *in force* from its effective date, or from the day it was
uploaded when it has none. Versions are ordered by their effective date; one without a date
takes the place after every version uploaded before it (the latest date among them), so
"v2012 (no date), then v2014 effective 2014-01-01" and "v2012 effective 2012-01-01, then
v2014 (no date)" both end with v2014; between equals, the later upload is the later version.
The current version on a day is the last in that order of the *ready* versions in force on
that day; when none is in force yet, the earliest, so a family never vanishes from search.

``on`` is a SQL date expression (``CURRENT_DATE``, or a bound ``:as_of``); ``doc`` the alias
of the ``documents`` row whose family is meant."""

from __future__ import annotations

TODAY = "CURRENT_DATE"


def _ranked(where: str) -> str:
    """Family members with the day they are in force from and their place in the chain."""
    return (
        "SELECT m.id, m.family_id, m.status, m.created_at, "
        "coalesce(m.effective_date, m.created_at::date) AS in_force_from, "
        "coalesce(m.effective_date, max(m.effective_date) OVER ("
        "PARTITION BY m.family_id ORDER BY m.created_at), '-infinity'::date) AS chain_date "
        f"FROM documents m WHERE {where}")


def _current_order(on: str) -> str:
    """ORDER BY terms over ``v`` (ranked members) that put the current version first."""
    in_force = f"v.in_force_from <= {on}"
    return (f"v.in_force_from > {on}, "
            f"CASE WHEN {in_force} THEN v.chain_date END DESC, "
            f"CASE WHEN {in_force} THEN v.created_at END DESC, "
            "v.chain_date, v.created_at")


def current_of(doc: str, on: str = TODAY) -> str:
    """Scalar subquery: the id of the current version of ``doc``'s family (NULL when no
    version of it is ready)."""
    members = _ranked(f"m.tenant_id = {doc}.tenant_id AND m.family_id = {doc}.family_id")
    return (f"(SELECT v.id FROM ({members}) v WHERE v.status = 'ready' "
            f"ORDER BY {_current_order(on)} LIMIT 1)")


def is_current(doc: str, on: str = TODAY) -> str:
    """Boolean expression: ``doc`` is a document with no versions, or its family's current
    version."""
    return (f"(CASE WHEN {doc}.family_id IS NULL THEN true "
            f"ELSE coalesce({doc}.id = {current_of(doc, on)}, false) END)")


def superseded(tenant: str, on: str = TODAY) -> str:
    """Array expression: the ids of the tenant's versions that are not current on ``on``
    (every member of a family but its current version). An uncorrelated subquery, so a
    search computes it once, not once per chunk."""
    members = _ranked(f"m.tenant_id = {tenant} AND m.family_id IS NOT NULL")
    current = (f"SELECT DISTINCT ON (v.family_id) v.id FROM ({members}) v "
               f"WHERE v.status = 'ready' ORDER BY v.family_id, {_current_order(on)}")
    return (f"ARRAY(SELECT o.id FROM documents o WHERE o.tenant_id = {tenant} "
            f"AND o.family_id IS NOT NULL AND o.id NOT IN ({current}))")


def chain(tenant: str, family: str) -> str:
    """Query: the ids of a family's versions in chain order, earliest first."""
    members = _ranked(f"m.tenant_id = {tenant} AND m.family_id = {family}")
    return f"SELECT v.id FROM ({members}) v ORDER BY v.chain_date, v.created_at"
