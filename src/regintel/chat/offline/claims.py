"""Text-mode audit (policypal spec, Mode 1): a short pasted text - an email, marketing copy -
checked claim by claim against each target. A sentence is a claim worth checking when it
carries a risk cue: it waives what a rule requires ("no ID needed"), promises what a rule
forbids ("fully anonymous", "guaranteed returns") or invites what a rule guards against
("funds from any source"). Each cue family names, in plain words, the kind of obligation it
collides with; that phrase and the claim search each target, and the closest obligation in
the evidence is the one the claim is checked against."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np

from regintel.chat.evidence import CitationBook, normalise, sentences, verify
from regintel.chat.offline import obligations
from regintel.chat.offline.drafts import conflict_confidence
from regintel.chat.offline.lexical import terms
from regintel.chat.offline.report import overall_status, summary
from regintel.chat.offline.segments import Unit, citable, page_texts, segment
from regintel.chat.offline.unit_lists import group_lists, in_its_list
from regintel.domain.chat import (
    MAX_QUOTE_CHARS,
    SEVERITY_ORDER,
    AuditFinding,
    AuditResult,
    quoted,
)
from regintel.domain.documents import ChunkHit, Document, StoredChunk
from regintel.errors import InvalidRequest
from regintel.ports.embedder import Embedder
from regintel.ports.library import ChunkIndex
from regintel.retrieval import abbreviations
from regintel.retrieval.hybrid import MAX_QUERY_CHARS, HybridRetriever
from regintel.retrieval.strategies import per_document

MAX_WORDS = 1000
PER_TARGET = 5  # chunks per target for the whole text (spec: 3–5)
PER_CLAIM = 3  # and for each risky claim
MAX_CLAIMS = 8
# A claim (or its family's phrase) and an obligation this close (cosine, plus WORDS_WEIGHT ×
# the share of the phrase's words the rule uses) are about the same thing; below it the
# claim is not reported against that target.
CLAIM_MATCH = 0.6
WORDS_WEIGHT = 0.25
TEXT_FIRM = ("Authorised Person",)  # what a pasted text's firm is taken to be


@dataclass(frozen=True)
class _Risk:
    why: str  # what the claim does, for the finding
    concept: str  # the kind of obligation it collides with, as a search phrase
    cue: re.Pattern[str]
    unless: re.Pattern[str] | None = None  # a claim another family reads more exactly


_RISKS: tuple[_Risk, ...] = (
    _Risk("waives identification or due diligence",
          "identify the customer and verify the customer's identity before establishing a "
          "business relationship (customer due diligence)",
          re.compile(r"\bno (?:id|identification|documents?|paperwork|kyc|checks?|questions?)\b"
                     r"|\bwithout (?:any )?(?:id|identification|documents?|paperwork|kyc|"
                     r"checks?|verification|questions)\b|\b(?:don'?t|do not|won'?t|will not|no "
                     r"longer|never) (?:need|require|ask for|check|verify)\b|\bno need (?:to|"
                     r"for)\b|\bskip (?:the )?(?:kyc|checks?)\b", re.I),
          # "no need to check where his funds come from" is about the source of funds.
          unless=re.compile(r"\b(?:where|source|origin)\b[^.;]{0,30}\b(?:funds|money|wealth)\b",
                            re.I)),
    _Risk("puts identification off until after the relationship has started",
          "the appropriate CDD obligations must be fulfilled before the Relevant Person "
          "establishes a business relationship or undertakes any Transaction for the customer",
          re.compile(r"^(?=.*\b(?:id|identification|identity|documents?|kyc|passport|"
                     r"verif\w*)\b)(?=.*\b(?:later|next (?:week|month)|afterwards|in due "
                     r"course|at a later (?:date|stage)|after (?:the )?(?:account|onboarding|"
                     r"opening|first))\b)(?=.*\b(?:open\w*|onboard\w*|set \w+ up|activat\w*|"
                     r"start\w*|accept\w*|win\w*|sign\w* (?:him|her|them|\w+ up)|new "
                     r"(?:client|customer)s?)\b)", re.I | re.S)),
    _Risk("keeps a matter from compliance or the MLRO",
          "an Employee must report any knowledge or suspicion of money laundering to the "
          "MLRO (internal reporting)",
          re.compile(r"\b(?:don'?t|do not|never|no need to|without|avoid)\s+(?:tell\w*|"
                     r"mention\w*|inform\w*|involv\w*|copy\w*|cc|escalat\w*|report\w*|flag\w*|"
                     r"loop\w* in)\b[^.;]{0,40}\b(?:compliance|mlro|reporting officer)\b|"
                     r"\bkeep\b[^.;]{0,20}\b(?:from|away from|out of)\b[^.;]{0,10}"
                     r"\bcompliance\b", re.I)),
    _Risk("waives sanctions screening",
          "review customers, their businesses and transactions against sanctions lists",
          re.compile(r"\b(?:not|never|no longer|without|skip\w*)\b[^.;]{0,40}\bsanction", re.I)),
    _Risk("discloses a suspicion or report to the customer (tipping off)",
          "must not disclose to the customer that a suspicious activity report has been or "
          "may be made (tipping off)",
          re.compile(r"\b(?:discuss\w*|tell|told|inform\w*|warn\w*|alert\w*)\b[^.;]{0,60}"
                     r"\b(?:customer|client)s?\b[^.;]{0,60}\b(?:report\w*|investigat\w*|"
                     r"suspicio\w*)|\b(?:suspicio\w*|report\w*)\b[^.;]{0,60}\b(?:discuss\w*|"
                     r"shared?|told|tell)\b[^.;]{0,30}\b(?:customer|client)", re.I)),
    _Risk("promises anonymity or secrecy",
          "must not establish or maintain an anonymous account or an account in a fictitious "
          "name",
          re.compile(r"\banonym\w*|\buntraceable\b|\boff the books\b|\bno ?one will know\b|"
                     r"\b(?:won'?t|will not|never) (?:be )?report\w*|\bin any name\b", re.I)),
    _Risk("promises returns or the absence of risk",
          "communicate information to customers in a way which is clear, fair and not "
          "misleading",
          re.compile(r"\bguarantee\w*\b|\brisk[- ]free\b|\bno risk\b|\bcan'?t lose\b|"
                     r"\b(?:certain|assured) (?:profit|return)s?\b", re.I)),
    _Risk("invites funds of unknown origin",
          "identify and verify the source of funds and the source of wealth of the customer",
          re.compile(r"\b(?:any|all) (?:source|origin)s? of (?:funds|money)\b|\bfunds from any "
                     r"source\b|\bcash (?:welcome|accepted)\b|\bno matter where\b|\b(?:never|"
                     r"not|won'?t) ask where\b|\b(?:no need to|don'?t|do not|won'?t|will not|"
                     r"never|not)\s+(?:check|ask|verify|look into|question)\w*\b[^.;]{0,30}"
                     r"\b(?:where|source|origin)\b[^.;]{0,30}\b(?:funds|money|wealth)\b",
                     re.I)),
)


# An intention not to do something, in any regime's terms: a word that sets an act aside,
# then the act, to the end of its clause ("skip the CDD this once", "not tell compliance",
# "hold off on reporting it"). The act is what a rule may require; it is checked against the
# rules that require an act (never those that forbid one: "we will not open the account
# before we have the passport" keeps a prohibition, it does not breach it).
_AVOIDS = re.compile(
    r"\b(?P<marker>skip(?:ping)?|waiv(?:e|ing)|bypass(?:ing)?|avoid(?:ing)?|"
    r"defer(?:ring)?|postpon(?:e|ing)|put(?:ting)? off|hold(?:ing)? off(?: on)?|"
    r"ignor(?:e|ing)|forget(?:ting)? about|(?:not|never) bother(?:ing)? (?:with|to)|"
    r"no need (?:to|for)|(?:do|does|did|will|would|should|shall|can|could|must)(?:n'?t| not)|"
    r"won'?t|never|not)\s+(?P<act>(?!(?:delay|undue|fail|only|just|be|been|yet|sure|"
    r"aware|later|a problem|an issue)\b)(?:(?!\b(?:and|or|but|so|then)\b)[^.;:!?,]){3,80})",
    re.I)
# Words around an act that say nothing of it ("this once", "for now").
_FILLER = re.compile(r"\b(?:this (?:once|time)|for now|just|again|at all|anymore|any more|"
                     r"please|(?:need|have|going) to)\b", re.I)
_PROHIBITS = re.compile(r"\b(?:must|shall|may|should) not\b|\bprohibit\w*|\bno (?:person|"
                        r"one|\w+ (?:may|shall|must))\b", re.I)


@dataclass(frozen=True)
class _Claim:
    text: str  # the sentence, verbatim
    risk: _Risk
    avoids: bool = False  # it sets aside an act: checked against rules requiring one


async def text_audit(tenant_id: UUID, targets: Sequence[Document], text: str, *,
                     retriever: HybridRetriever, index: ChunkIndex, embedder: Embedder,
                     book: CitationBook) -> AuditResult:
    text = text.strip()
    words = len(text.split())
    if words > MAX_WORDS:
        raise InvalidRequest(f"the text to audit has {words} words; text mode takes up to "
                             f"{MAX_WORDS}", hint="upload it as a document instead")
    claims = _risky_claims(text)
    target_ids = [t.id for t in targets]
    searches = [per_document(retriever, tenant_id, text[:MAX_QUERY_CHARS], target_ids,
                             per_doc=PER_TARGET)]
    searches += [per_document(retriever, tenant_id, q, target_ids, per_doc=PER_CLAIM)
                 for c in claims for q in (c.text, c.risk.concept)]
    hits = [h for batch in await asyncio.gather(*searches) for h in batch]
    findings: list[AuditFinding] = []
    rules: list[str] = []
    for document in targets:
        found = [h for h in hits if h.document_id == document.id]
        if claims and found:
            checked, made = await _check(document, claims, found, tenant_id, text,
                                         index=index, embedder=embedder, book=book)
            findings += made
            rules += [r for r in checked if r not in rules]
    findings.sort(key=lambda f: (target_ids.index(f.target_doc_id),
                                 SEVERITY_ORDER.index(f.severity)))
    return AuditResult(mode="text", overall_status=overall_status(findings),
                       findings=findings,
                       summary=summary(findings, targets, (), what="text", rules=rules),
                       targets_checked=len(targets), rules_checked=rules)


def _risky_claims(text: str) -> list[_Claim]:
    """The sentences that carry a risk cue, once per kind of risk they carry ("we no longer
    need ID and will not check sanctions lists" is two claims), then each act a sentence
    sets aside, at most MAX_CLAIMS."""
    out: list[_Claim] = []
    for sentence in sentences(text):
        read: list[tuple[int, int]] = []  # what the families already read of it
        for risk in _RISKS:
            cue = risk.cue.search(sentence)
            if cue and not (risk.unless and risk.unless.search(sentence)):
                out.append(_Claim(sentence.strip(), risk))
                read.append(cue.span())
        out += _avoided_acts(sentence, read)
    return out[:MAX_CLAIMS]


def _avoided_acts(sentence: str, read: Sequence[tuple[int, int]]) -> list[_Claim]:
    """A claim for each act the sentence sets aside that no family read more exactly,
    searched as the act itself with its abbreviations spelled out ("the CDD" as "customer
    due diligence")."""
    out = []
    for found in _AVOIDS.finditer(sentence):
        if any(found.start() < end and start < found.end() for start, end in read):
            continue
        act = " ".join(_FILLER.sub(" ", found["act"]).split())
        if len(terms(act)) < 1:
            continue
        said = " ".join(found.group(0).split())
        risk = _Risk(f"proposes to {quoted(said)}", abbreviations.expand(act),
                     cue=_AVOIDS)
        out.append(_Claim(sentence.strip(), risk, avoids=True))
    return out


async def _check(document: Document, claims: Sequence[_Claim], hits: Sequence[ChunkHit],
                 tenant_id: UUID, text: str, *, index: ChunkIndex, embedder: Embedder,
                 book: CitationBook) -> tuple[list[str], list[AuditFinding]]:
    """Each claim against the closest obligation of ``document`` in the evidence: the rules
    a claim was matched to (checked), and the findings."""
    chunks = await index.document_chunks(tenant_id, document.id)
    pages = page_texts(chunks)
    every = group_lists(segment(document.id, pages))
    # "A Representative Office must …" binds only a text that says it is one; an email
    # seldom says what its firm is, and is read as an authorised firm's (the rules on when
    # CDD is due, 8.2.1, are addressed to "an Authorised Person or Recognised Body").
    applies = obligations.applicability(every, text, assumed=TEXT_FIRM)
    units = [(u, score) for u, score in _obligations_in(every, hits) if applies(u)]
    if not units:
        return [], []
    n = len(claims)
    # A list is read whole and item by item (with its lead-in): "the Source of Funds" is
    # item (c)(i) of a long rule on Enhanced CDD, and the whole list's vector is mostly
    # about what comes first.
    readings = [(k, p) for k, (u, _) in enumerate(units) for p in (u, *u.parts[1:])]
    vectors = await asyncio.to_thread(
        embedder.embed, [c.text for c in claims] + [c.risk.concept for c in claims] +
        [obligations.context_text(p) for _, p in readings])
    rules = vectors[2 * n:]
    # The claim's own words, or the kind of rule it collides with, whichever is closer (a
    # promise of returns reads nothing like "clear, fair and not misleading"); plus a share
    # for the family's phrase in the rule's own words, since it is written as rules say it.
    closeness = np.maximum(vectors[:n] @ rules.T, vectors[n:2 * n] @ rules.T)
    similarity = np.full((n, len(units)), -1.0)
    for r, (k, _) in enumerate(readings):
        similarity[:, k] = np.maximum(similarity[:, k], closeness[:, r])
    similarity += WORDS_WEIGHT * np.array([[_share(c.risk.concept, u.body) for u, _ in units]
                                           for c in claims])
    out: list[AuditFinding] = []
    used: set[int] = set()
    checked: list[str] = []
    requires = np.array([not _PROHIBITS.search(u.body) for u, _ in units])
    for claim, row in zip(claims, similarity, strict=True):
        if claim.avoids:  # an act set aside breaches a rule requiring it, not forbidding it
            row = np.where(requires, row, -1.0)
        j = int(np.argmax(row))
        if float(row[j]) < CLAIM_MATCH or j in used:
            continue
        ref = obligations.reference(document.title, units[j][0].clause)
        checked += [ref] if ref not in checked else []
        finding = _finding(document, claim, units[j], float(row[j]), chunks, pages, text,
                           book)
        if finding is not None:
            used.add(j)
            out.append(finding)
    return checked, out


def _obligations_in(units: Sequence[Unit], hits: Sequence[ChunkHit]) -> list[tuple[Unit,
                                                                                  float]]:
    """The obligations the evidence touches, with the best score of the chunks holding
    them."""
    out: dict[int, tuple[Unit, float]] = {}
    for hit in hits:
        for i, unit in enumerate(units):
            inside = unit.page == hit.page_start and hit.char_start < unit.end and \
                unit.start < hit.char_end
            if inside and obligations.is_obligation(unit) and \
                    (i not in out or out[i][1] < hit.score):
                out[i] = (unit, hit.score)
    return [out[i] for i in sorted(out)]


def _finding(document: Document, claim: _Claim, pair: tuple[Unit, float], sim: float,
             chunks: list[StoredChunk], pages: dict[int, str], text: str,
             book: CitationBook) -> AuditFinding | None:
    unit, score = pair
    part = _closest_part(unit, claim)
    shown = in_its_list(part, unit)
    found = citable(shown, chunks, pages.get(part.page, ""), document)
    source_quote = _fit(claim.text)
    if found is None or not verify(source_quote, text):
        return None
    n = book.cite(*found)
    if n is None:
        return None
    level = obligations.subject_severity(unit)
    if claim.risk.why.startswith("promises returns") and level in ("Medium", "Low"):
        level = "High"  # a promise of returns misleads whatever rule it meets
    ref = obligations.reference(document.title, part.clause)
    # The item with its lead-in when the quote has it ("identify and verify: the Source of
    # Funds"); closing words, which say what the list is for, as they are.
    rule = _fit(_LIST_TAIL.sub("", (part if shown is unit else shown).body), 200)
    return AuditFinding(
        target_doc_id=document.id, target_doc_title=document.title, theme=None,
        kind="conflict", severity=level,
        consequence=obligations.consequence(ref, level, kind="conflict", what="text"),
        source_quote=source_quote, target_quote=found[1], target_clause=part.clause,
        target_page=part.page if found[0].paged else None,
        suggestion=f"Remove or rewrite this statement: it {claim.risk.why}, which {ref} does "
                   f"not allow ({quoted(rule)}).",
        confidence_score=round(conflict_confidence(sim, score), 3),
        citations=[n])


_LIST_TAIL = re.compile(r"\s*(?:[;,]\s*(?:and|or)?|\band|\bor)\s*$")


def _share(phrase: str, text: str) -> float:
    wanted = set(terms(phrase))
    return len(wanted & set(terms(text))) / len(wanted) if wanted else 0.0


def _closest_part(unit: Unit, claim: _Claim) -> Unit:
    """The item of a list that the claim collides with (most words shared with the claim
    and with its family's phrase; a word in both counts twice), or the unit itself."""
    if not unit.parts:
        return unit
    said, meant = set(terms(claim.text)), set(terms(claim.risk.concept))
    return max(unit.parts, key=lambda p: len(said & set(terms(p.body))) +
               len(meant & set(terms(p.body))))


def _fit(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    """``text`` whitespace normalised and cut at a word to ``limit`` characters (still a
    verbatim prefix, so still a valid quote)."""
    text = normalise(text)
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > 0 else limit]
