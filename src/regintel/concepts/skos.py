"""SKOS interchange: the concept graph as Turtle or JSON, and a team's own taxonomy in.

Export: every concept is a ``skos:Concept`` (``prefLabel``, ``altLabel``, ``definition``,
``broader``/``narrower``/``related``) with our canonical fields as ``ri:domain``, ``ri:kind``,
``ri:jurisdiction``; sections are ``ri:Section`` with ``dcterms:title`` and the document,
clause and URL; ``DEFINED_IN``/``MENTIONED_IN`` are ``ri:definedIn``/``ri:mentionedIn``.

Import: every ``skos:Concept`` of a Turtle file goes through the canonical resolver and the
ingress guard like any captured concept (so importing twice, or importing a concept the graph
already has, reuses the node); ``broader``/``narrower``/``related`` between imported concepts
become edges. Concepts without ``ri:`` fields take the domain and jurisdiction given on the
command line and a kind made from their preferred label."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from regintel.concepts.graph import GraphClient, GraphWriteService
from regintel.concepts.guard import CONCEPT_LABELS
from regintel.concepts.resolver import CanonicalConceptResolver
from regintel.domain.concepts import CONCEPT, CapturedConcept, code
from regintel.errors import ConfigurationError, InvalidRequest

log = logging.getLogger(__name__)

BASE = "https://regintel.dev/graph/"
RI = "https://regintel.dev/ns#"
_REL_TO_SKOS = {"BROADER": "broader", "NARROWER": "narrower", "RELATED": "related"}
_REL_TO_RI = {"DEFINED_IN": "definedIn", "MENTIONED_IN": "mentionedIn"}


def _rdflib() -> Any:
    try:
        import rdflib
    except ImportError as exc:
        raise ConfigurationError("SKOS interchange needs the 'graph' extra",
                                 hint="pip install 'regintel[graph]'") from exc
    return rdflib


def node_uri(key: str) -> str:
    return BASE + quote(key, safe=":()")


async def export_json(client: GraphClient) -> dict[str, Any]:
    nodes, edges = await client.store.dump()
    return {"nodes": [{"id": n.key, "labels": list(n.labels), "properties": dict(n.properties)}
                      for n in nodes],
            "edges": [{"source": e.src_key, "rel": e.rel, "target": e.dst_key,
                       "properties": dict(e.properties)} for e in edges]}


async def export_turtle(client: GraphClient) -> str:
    rdflib = _rdflib()
    from rdflib.namespace import DCTERMS, RDF, SKOS, XSD

    ri = rdflib.Namespace(RI)
    g = rdflib.Graph()
    g.bind("skos", SKOS)
    g.bind("dcterms", DCTERMS)
    g.bind("ri", ri)
    nodes, edges = await client.store.dump()
    for n in nodes:
        s, p = rdflib.URIRef(node_uri(n.key)), n.properties
        if CONCEPT_LABELS & set(n.labels):
            g.add((s, RDF.type, SKOS.Concept))
            g.add((s, SKOS.prefLabel, rdflib.Literal(str(p.get("prefLabel", "")), lang="en")))
            for alt in _list(p.get("altLabels")):
                g.add((s, SKOS.altLabel, rdflib.Literal(alt, lang="en")))
            if p.get("definition"):
                g.add((s, SKOS.definition, rdflib.Literal(str(p["definition"]), lang="en")))
            for name in ("domain", "kind", "jurisdiction"):
                if p.get(name):
                    g.add((s, ri[name], rdflib.Literal(str(p[name]))))
            for url in _list(p.get("sourceUrls")):
                g.add((s, DCTERMS.source, rdflib.URIRef(url)))
        else:
            g.add((s, RDF.type, ri.Section))
            for name, pred in (("title", DCTERMS.title), ("document", ri.document),
                               ("clause", ri.clause), ("jurisdiction", ri.jurisdiction)):
                if p.get(name):
                    g.add((s, pred, rdflib.Literal(str(p[name]))))
            if p.get("url"):
                g.add((s, ri.url, rdflib.Literal(str(p["url"]), datatype=XSD.anyURI)))
    for e in edges:
        src, dst = rdflib.URIRef(node_uri(e.src_key)), rdflib.URIRef(node_uri(e.dst_key))
        if e.rel in _REL_TO_SKOS:
            g.add((src, SKOS[_REL_TO_SKOS[e.rel]], dst))
        elif e.rel in _REL_TO_RI:
            g.add((src, ri[_REL_TO_RI[e.rel]], dst))
    return str(g.serialize(format="turtle"))


def _list(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


@dataclass
class ImportReport:
    concepts: int = 0
    edges: int = 0
    refused: int = 0
    skipped: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"concepts": self.concepts, "edges": self.edges, "refused": self.refused,
                "skipped": len(self.skipped)}


async def import_turtle(data: str, resolver: CanonicalConceptResolver,
                        writer: GraphWriteService, *, domain: str = "GENERAL",
                        jurisdiction: str = "INTERNATIONAL") -> ImportReport:
    rdflib = _rdflib()
    from rdflib.namespace import DCTERMS, RDF, SKOS

    ri = rdflib.Namespace(RI)
    g = rdflib.Graph()
    try:
        g.parse(data=data, format="turtle")
    except Exception as exc:  # rdflib raises several parser-specific types
        raise InvalidRequest(f"not a readable Turtle file: {exc}") from exc
    report = ImportReport()
    keys: dict[Any, str] = {}
    for subject in sorted(set(g.subjects(RDF.type, SKOS.Concept)), key=str):
        pref = _literal(g, subject, SKOS.prefLabel)
        if not pref:
            report.skipped.append(str(subject))
            continue
        concept = CapturedConcept(
            domain=_literal(g, subject, ri.domain) or domain,
            kind=_literal(g, subject, ri.kind) or code(pref),
            jurisdiction=_literal(g, subject, ri.jurisdiction) or jurisdiction,
            prefLabel=pref,
            altLabels=sorted(str(o) for o in g.objects(subject, SKOS.altLabel))[:50],
            definition=(_literal(g, subject, SKOS.definition) or None),
            sourceUrls=sorted(str(o) for o in g.objects(subject, DCTERMS.source))[:20])
        try:
            ref = await resolver.resolve_or_create(concept.normalised())
        except InvalidRequest as exc:  # refused by the guard: logged there, counted here
            report.refused += 1
            log.info("skos import: %s skipped (%s)", subject, exc.code)
            continue
        keys[subject] = ref.id
        report.concepts += 1
    for subject, key in keys.items():
        for rel, pred in (("BROADER", SKOS.broader), ("NARROWER", SKOS.narrower),
                          ("RELATED", SKOS.related)):
            for target in g.objects(subject, pred):
                other = keys.get(target) or _our_key(str(target))
                if other is None:
                    continue
                try:
                    await writer.link(CONCEPT, key, rel, CONCEPT, other, {"source": "skos"})
                    report.edges += 1
                except (InvalidRequest, LookupError):
                    report.refused += 1
    return report


def _literal(g: Any, subject: Any, predicate: Any) -> str:
    """The English literal when there is one, else any."""
    values = list(g.objects(subject, predicate))
    english = [v for v in values if getattr(v, "language", None) in ("en", None)]
    chosen = (english or values)[:1]
    return str(chosen[0]).strip() if chosen else ""


def _our_key(uri: str) -> str | None:
    """A URI from our own export that names a concept already in the graph."""
    if uri.startswith(BASE):
        key = unquote(uri[len(BASE):])
        return key if key.startswith("concept:") else None
    return None

