"""The four actions. Each retrieves with its own strategy (policypal spec, "retrieval per
action"), then ``check_confidence`` decides whether to go on, then ``compose`` writes the
answer with the engine. Retrieved passages carrying planted instructions are withheld."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import defaultdict
from dataclasses import replace
from typing import Any, Literal
from uuid import UUID

from langgraph.types import interrupt

from regintel.chat import (
    concepts,
    named_once,
    prefetch,
    projects,
    question_text,
    repeats,
    tools,
    version_changes,
    web,
)
from regintel.chat.engine import Composed
from regintel.chat.named_documents import without_document_names
from regintel.chat.nodes.common import Rt, Update, documents_of, hits_of, note, request_of
from regintel.chat.nodes.resolve import CONTINUE, TAG, WEB, answer_notice, unheld_prefix
from regintel.chat.offline import answer_kind
from regintel.chat.state import ChatState
from regintel.chat.streaming import AnswerStream, plural, step
from regintel.domain.chat import (
    Action,
    AuditResult,
    ConfidenceOut,
    InputOption,
    NeedsInput,
    ResolvedDocument,
)
from regintel.domain.documents import ChunkHit, Document, titled
from regintel.retrieval import abbreviations, calibration, preceding, reading, strategies
from regintel.retrieval.confidence import Tier, assess
from regintel.retrieval.evidence import CitationBook

log = logging.getLogger(__name__)
# An audit is High only when its surest finding is this sure (a finding's own confidence:
# closeness of the statement to the rule and strength of the evidence); not calibrated yet.
HIGH_FINDING = 0.75
MEDIUM_WITHOUT_FINDINGS = 0.5
MAX_NAMED_READ = 5  # documents of one answer looked up for their versions
LOW_CONFIDENCE = ("Limited information was found in the documents for this question. "
                  "Would you like to:")
DISCLAIMER = ("Limited information available: the evidence only weakly matches the question. "
              "Verification with the source documents is recommended.")
_PAST_ANSWER = re.compile(r"\b(?:repeat|show|give me|restate)\b.{0,20}\b(?:previous|last|earlier)"
                          r" (?:answer|response)\b", re.I)
_MEMORY_QUESTION = re.compile(
    r"\b(?:what|which) (?:did|have) we (?:discuss|talk|cover|say)\w*|\bearlier (?:you|we)\b|"
    r"\b(?:previous|last|earlier) (?:answer|question|discussion)\b|\bremind me\b", re.I)


async def build_prompt(state: ChatState, runtime: Rt) -> Update:
    """The prompt aspects of the turn. The offline engine reads the profile for its notices;
    the LLM engine renders them into the system prompt."""
    deps = runtime.context
    request = request_of(state)
    aspects = ["jurisdiction", "profile", "disclaimers"]
    if request.use_memory and (state.get("memory") or {}).get("recent"):
        aspects.append("memory")
    context = note(state, "aspects", aspects)
    profile: dict[str, str] = {}
    if deps.user_id is not None:
        try:
            profile = await deps.conversations.profile(deps.tenant_id, deps.user_id)
        except Exception:  # the profile only tailors wording; never block the answer on it
            log.exception("user profile could not be loaded")
    if profile:
        context["profile"] = {k: v for k, v in profile.items() if k in
                              ("industry", "country", "company")}
        deps.engine.aspects.append("## User profile\n" + "\n".join(
            f"- {k}: {v}" for k, v in context["profile"].items() if v))
    if deps.project_id is not None:
        if await projects.load(deps):
            project_aspect = projects.aspect(deps)
            projects.offer_tools(deps)
            if project_aspect:
                aspects.append("project")
                context["aspects"] = aspects
                deps.engine.aspects.append(project_aspect)
        else:
            context = {**context, "degraded": [*context.get("degraded", []), "project"]}
    start = await concepts.begin(deps)
    if start is not None and start.aspect:
        aspects.append("conversation_context")
        context["aspects"] = aspects
        deps.engine.aspects.append(start.aspect)
    if request.enable_web_search and deps.web is None:  # shown as unavailable, not ignored
        context = {**context, "notices": [*context.get("notices", []), web.UNAVAILABLE]}
    return {"context": context, "hits": [], "confidence": None, "web": []}


def route_action(state: ChatState) -> Literal["summarize", "inquire", "compare", "audit"]:
    action = state.get("action") or "inquire"
    return action if action in ("summarize", "compare", "audit") else "inquire"  # type: ignore[return-value]


async def _screen(hits: list[ChunkHit], runtime: Rt,
                  state: ChatState) -> tuple[list[ChunkHit], Update]:
    """Drops passages that carry instructions aimed at the assistant (indirect injection)."""
    guard = runtime.context.guard
    with runtime.context.timed("guardrails"):
        flags = await asyncio.to_thread(lambda: [guard.scan_passage(h.text) for h in hits])
    return _withhold(hits, flags, state)


def _withhold(hits: list[ChunkHit], flags: list[bool],
              state: ChatState) -> tuple[list[ChunkHit], Update]:
    kept = [h for h, flagged in zip(hits, flags, strict=True) if not flagged]
    if len(kept) == len(hits):
        return kept, {}
    withheld = len(hits) - len(kept)
    log.warning("withheld %d retrieved passage(s) with planted instructions", withheld)
    return kept, {"context": note(state, "notices", [
        f"{withheld} retrieved passage(s) were withheld: they contain instructions addressed "
        "to the assistant, not regulatory content."])}


def _evidence(hits: list[ChunkHit], state: ChatState, runtime: Rt,
              update: Update | None = None) -> Update:
    limits = runtime.context.limits
    confidence = assess(hits, high=limits.high_threshold, medium=limits.medium_threshold)
    out: Update = {"hits": [h.model_dump(mode="json") for h in hits],
                   "confidence": ConfidenceOut(tier=confidence.tier.value,
                                               score=confidence.score).model_dump()}
    return out | (update or {})


async def inquire(state: ChatState, runtime: Rt) -> Update:
    """Tool loop, bounded: ``search_knowledge_base`` over the resolved documents (adaptive-k)
    or the whole library; ``lookup_past_conversation`` when the question is about the thread."""
    deps = runtime.context
    question = state.get("message", "")
    tool_log: list[str] = []
    if _PAST_ANSWER.search(question) and request_of(state).use_memory:
        tool_log.append("retrieve_past_answer(last)")
        return {"tool_log": tool_log, "hits": [], "confidence": None}
    if _MEMORY_QUESTION.search(question) and request_of(state).use_memory:
        tool_log.append(f"lookup_past_conversation({question[:60]!r})")
        return {"tool_log": tool_log, "hits": [], "confidence": None}
    about_project = await projects.answer(deps, question)
    if about_project is not None:  # a question about the project itself: its graph answers
        tool_log.append(f"project_graph({about_project.intent})")
        return {"tool_log": tool_log, "hits": [], "confidence": None,
                "answer": about_project.text, "context": note(
                    state, "project_entities", [str(i) for i in about_project.entity_ids])}
    documents = documents_of(state)
    versions = await _versions_asked(state, runtime)
    if versions is not None:
        return versions
    # A follow-up ("and who has to approve it?") is searched with the questions before it.
    query = question_text.in_context(question, question_text.earlier_questions(
        state.get("memory") if request_of(state).use_memory else None))
    hits: list[ChunkHit] = []
    asked = request_of(state).enable_web_search or bool(state.get("web_requested"))
    _searching(runtime, "inquire", documents)
    searching = asyncio.create_task(web.search(deps, question)) if web.wanted(
        deps, question, asked=asked) else None  # runs while the documents are searched
    try:
        for _ in range(deps.limits.max_tool_rounds):
            tool_log.append(f"search_knowledge_base({query[:60]!r}, "
                            f"documents={len(documents)})")
            searched = await prefetch.take_search(deps, query, [d.id for d in documents],
                                                  request_of(state).tagged_set_ids)
            # The hits with what they need from the chunks around them (prefetch.search),
            # screened together.
            hits, update = _withhold(searched.hits, searched.injected, state)
            if hits or not documents:
                break
            documents = []  # nothing usable in the tagged documents: widen to the library
    except BaseException:
        if searching is not None:  # the turn failed or was cancelled: so is its web search
            searching.cancel()
        raise
    # Before the answer, only weak evidence is known (and asks first); the answer's own
    # calibrated confidence is decided once it is composed (``compose``).
    out = _evidence(hits, state, runtime, update) | {"tool_log": tool_log, "query": query}
    read = await _versions_read(runtime, hits, documents)
    if read:  # the answer's notice names the version it read
        out["resolved"] = [*(state.get("resolved") or []), *read]
    if searching is not None:
        results, notices = await searching
        tool_log.append(f"web_search({question[:60]!r}) -> {len(results)} result(s)")
        out["web"] = results
        if notices:
            out["context"] = note({**state, **out}, "notices", notices)  # type: ignore[typeddict-item]
    return out


async def _versions_read(runtime: Rt, hits: list[ChunkHit],
                         documents: list[Document]) -> list[dict[str, Any]]:
    """Documents with versions that a search of the library read, the question naming none:
    the search read their current version, and the answer says which one."""
    deps = runtime.context
    named = {d.id for d in documents}
    unnamed = list(dict.fromkeys(h.document_id for h in hits
                                 if h.document_id not in named))[:MAX_NAMED_READ]
    if not unnamed:
        return []
    # One read of the library (as resolve reads it), not one a document: on every inquiry.
    library = {d.id: d for d in await deps.documents.list(deps.tenant_id)}
    return [ResolvedDocument(id=document.id, how="search", title=titled(
                document.title, document.version)).model_dump(mode="json")
            for document in (library.get(i) for i in unnamed)
            if document is not None and document.family_id is not None]


async def _versions_asked(state: ChatState, runtime: Rt) -> Update | None:
    """A question about what changed between versions of a document: answered from their
    alignment in ``compose`` (the two versions kept in the context), not from a search. The
    pair is the one resolve read (``versions``)."""
    deps = runtime.context
    if deps.changes is None:
        return None
    pair = await _pair(state, runtime)
    if pair is None:
        return None
    step(runtime.stream_writer, "compare", f"Aligning {pair.old.title} "
         f"{pair.old.version or ''} with {pair.new.version or 'the later version'}…")
    context = dict(state.get("context") or {})
    context["versions"] = [str(pair.old.id), str(pair.new.id)]
    return {"tool_log": [f"version_changes({pair.old.id}, {pair.new.id})"], "hits": [],
            "confidence": ConfidenceOut(tier="high", score=1.0).model_dump(),
            "context": context}


async def _pair(state: ChatState, runtime: Rt) -> version_changes.Pair | None:
    """The two versions resolve found the question about: among the turn's documents (resolve
    puts them there), else read (the user confirmed other documents of their family)."""
    ids = state.get("versions")
    if not ids:
        return None
    deps = runtime.context
    known = {str(d.id): d for d in documents_of(state)}
    old, new = [known.get(i) or await deps.documents.get(deps.tenant_id, UUID(i))
                for i in ids]
    return version_changes.Pair(old, new)


async def _version_answer(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    assert deps.changes is not None
    pair = await _pair(state, runtime)
    assert pair is not None  # compose answers so only after _versions_asked found it
    book = CitationBook()
    composed = await version_changes.answer(
        reports=deps.changes, index=deps.index, tenant_id=deps.tenant_id,
        message=state.get("message", ""), pair=pair, book=book)
    stream = AnswerStream(runtime.stream_writer, prefix=_prefix(state, runtime))
    for line in composed.answer.splitlines(keepends=True):
        stream.write(line)
    return {"answer": composed.answer, "result": {}, "dropped_quotes": book.dropped,
            "citations": [c.model_dump(mode="json") for c in book.citations],
            "streamed": stream.text}


def _answer_confidence(question: str, hits: list[ChunkHit], book: CitationBook,
                       runtime: Rt, *, repeated: bool = False) -> ConfidenceOut:
    """Low too when the best passage retrieved scores under the retrieval tier's Low line:
    the model learnt on questions that all have an answer in the library. At most Medium
    when the answer says its passages add nothing to the previous answer (``repeated``):
    what the follow-up asked was not found, whatever the passages' match to the thread."""
    floor = runtime.context.limits.medium_threshold
    assessed = calibration.load_model().assess(question, hits, book.citations, floor=floor)
    tier = assessed.tier
    if tier is Tier.LOW and max((h.score for h in hits), default=0.0) >= floor:
        # A low probability on evidence retrieval found strong enough is shown as Medium
        # (with its caution), not asked back after the answer is written.
        tier = Tier.MEDIUM
    if repeated and tier is Tier.HIGH:
        tier = Tier.MEDIUM
    return ConfidenceOut(tier=tier.value, score=assessed.score)


async def summarize(state: ChatState, runtime: Rt) -> Update:
    """A summary with a focus ("the Regulation's rules on breach notification") reads what the
    documents say on it (adaptive-k, lists read whole); a whole-document summary samples
    15–20 % of each document's chunks, spread over the whole of it."""
    deps = runtime.context
    documents = documents_of(state)
    focus = summary_focus(state.get("message", ""), documents)
    _searching(runtime, "summarize", documents)
    hits: list[ChunkHit] = []
    with deps.timed("retrieval"):
        if focus:
            # A fixed depth per document: a summary reads more than an answer's few best
            # passages (adaptive-k stops at the first steep drop in relevance).
            hits = await strategies.per_document(deps.retriever, deps.tenant_id,
                                                 abbreviations.expand(focus),
                                                 [d.id for d in documents],
                                                 per_doc=FOCUSED_SUMMARY_PASSAGES)
        else:
            for document in documents:
                sample = await strategies.outline_sample(deps.index, deps.tenant_id,
                                                         document.id)
                hits += [ChunkHit.of(c, document, 1.0) for c in sample]
        hits = await preceding.attach(deps.index, deps.tenant_id, hits)
        if focus:
            hits += await reading.followed(deps.index, deps.tenant_id, hits, focus)
    hits, update = await _screen(hits, runtime, state)
    if focus:
        context = dict(update.get("context") or state.get("context") or {})
        context["summary_focus"] = focus
        return _evidence(hits, state, runtime, update) | {"context": context}
    return {"hits": [h.model_dump(mode="json") for h in hits],
            "confidence": ConfidenceOut(tier="high", score=1.0).model_dump()} | update


_SUMMARY_WORDS = re.compile(
    r"\b(?:summar\w*|obligations?|requir\w*|duties|provisions?|main|points?|brief|give|"
    r"me|us|tell|outline|gist|tl;?dr|short|quick|key|takeaways?|covers?|says?|sets? out|"
    r"under|within|whole|entire|document|rulebook|regulation|directive|act|guidance)\b", re.I)
MIN_FOCUS_WORDS = 2  # fewer left over is a whole-document summary
FOCUSED_SUMMARY_PASSAGES = 10  # per document


def summary_focus(message: str, documents: list[Document]) -> str | None:
    """What a summary is about when it is not the whole document ("security incident
    notification"): the words left once the request, the mentions and every word of the
    documents' titles are removed; None for a whole-document summary."""
    text = re.sub(r"@\[[^\]]*\]|@\S+", " ", message)
    text = re.sub(r"(\w)['’]s\b", r"\1", text)
    titled = {w.lower() for d in documents for w in re.findall(r"\w+", d.title)}
    text = _SUMMARY_WORDS.sub(" ", _COMPARE_WORDS.sub(" ", text))
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z%-]+|\d+", text)
             if len(w) > 2 and w.lower() not in titled]
    return " ".join(words) if len(words) >= MIN_FOCUS_WORDS else None


async def compare(state: ChatState, runtime: Rt) -> Update:
    """Focused on the question's topic with 3–5 chunks per document (adaptive-k); holistic
    comparisons sample each document evenly instead."""
    deps = runtime.context
    documents = documents_of(state)
    versions = await _versions_asked(state, runtime)
    if versions is not None:
        return versions
    topic = comparison_topic(state.get("message", ""), documents)
    _searching(runtime, "compare", documents)
    with deps.timed("retrieval"):
        if topic:
            hits = await strategies.adaptive_k(
                deps.retriever, deps.tenant_id, topic, [d.id for d in documents],
                threshold=deps.limits.adaptive_threshold)
        else:
            hits = []
            for document in documents:
                sample = await strategies.stratified_sample(deps.index, deps.tenant_id,
                                                            document.id)
                hits += [ChunkHit.of(c, document, 0.5) for c in sample]
        hits = await preceding.attach(deps.index, deps.tenant_id, hits)
        if topic:
            hits += await reading.followed(deps.index, deps.tenant_id, hits, topic)
    hits, update = await _screen(hits, runtime, state)
    context = dict(update.get("context") or state.get("context") or {})
    context["comparison_topic"] = topic
    out = _evidence(hits, state, runtime, update) | {"context": context}
    if not topic:
        out["confidence"] = ConfidenceOut(tier="high", score=1.0).model_dump()
    return out


_COMPARE_WORDS = re.compile(
    r"\b(?:compare|comparison|contrast|differences?|difference|differ|similarit\w*|versus|vs|"
    r"between|across|among|these|those|this|that|the|two|both|documents?|docs?|regulations?|"
    r"policies|"
    r"policy|rules?|what|are|is|key|main|in|on|of|for|regarding|about|and|with|how|do|does|"
    r"they|them|please|their|all|three|it|its|to|a|an|changes?|changed|from|each|other|"
    r"summari[sz]e|overall|holistic|general|generally|overview)\b", re.I)


# "… differ on conflicts of interest", "… with regard to complaints": the focus as written.
_FOCUS = re.compile(r"\b(?:on|regarding|concerning|about|with (?:regard|respect) to|"
                    r"in (?:terms of|relation to|respect of))\s+(?P<focus>[^?!.;]+)", re.I)
_LEADING = re.compile(r"^(?:(?:the|their|its|what|they|say|says)\s+)+", re.I)


def comparison_topic(message: str, documents: list[Document]) -> str | None:
    """The aspect a comparison is about ("capital requirements", "conflicts of interest"), or
    None for a holistic one: the phrase after its focus word ("on", "regarding"…) as written,
    else what is left once comparison vocabulary, mentions and document titles are removed."""
    text = without_document_names(re.sub(r"@\[[^\]]*\]|@\S+", " ", message), documents)
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z%-]+|\d+", _COMPARE_WORDS.sub(" ", text))
             if len(w) > 2]
    if not words:
        return None
    focus = _FOCUS.search(text)
    phrase = _LEADING.sub("", " ".join(focus["focus"].split())) if focus else ""
    # The phrase when it says something beyond comparison words ("on this" does not).
    if phrase and re.search(r"[A-Za-z]{3,}", _COMPARE_WORDS.sub(" ", phrase)):
        return phrase
    return " ".join(words)


async def audit(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    request = request_of(state)
    documents = {str(d.id): d for d in documents_of(state)}
    source_id = state.get("source_doc")
    source = documents.get(source_id) if source_id else None
    targets = [d for i, d in documents.items() if i != source_id]
    book = CitationBook()
    what = "the policy" if source is not None else "the text"
    step(runtime.stream_writer, "audit",
         f"Checking {what} against {plural(len(targets), 'document')}…")
    with deps.timed("composition"):
        composed = await deps.engine.compose_audit(
            deps.auditor, retriever=deps.retriever, index=deps.index, tenant_id=deps.tenant_id,
            targets=targets, source_document=source, source_text=request.source_text,
            book=book)
    result = composed.audit
    deps.audit_matrix = composed.matrix
    tier, score = audit_confidence(result)
    return {"answer": composed.answer, "citations": [c.model_dump(mode="json")
                                                      for c in book.citations],
            "dropped_quotes": book.dropped,
            "result": {"audit": result.model_dump(mode="json")} if result else {},
            "confidence": ConfidenceOut(tier=tier, score=score).model_dump()}


def audit_confidence(result: AuditResult | None) -> tuple[str, float]:
    """High only for findings that are themselves sure; an audit without findings has proven
    nothing beyond the rules it checked (medium), and one that matched no rule at all has
    checked nothing (low)."""
    if result is None:
        return "low", 0.0
    if result.findings:
        best = max(f.confidence_score for f in result.findings)
        return ("high" if best >= HIGH_FINDING else "medium"), round(best, 4)
    if result.rules_checked:
        return "medium", MEDIUM_WITHOUT_FINDINGS
    return "low", 0.0


async def check_confidence(state: ChatState, runtime: Rt) -> Update:
    """Low evidence stops and asks (tag documents / search the web / continue with a
    disclaimer); medium goes on with a caution; high goes on."""
    confidence = state.get("confidence")
    if (confidence is None or confidence["tier"] != "low" or state.get("proceed_low")
            or state.get("action") == Action.AUDIT.value):
        return {}
    if state.get("web"):  # the web answers what the documents do not: go on, with the caveat
        return {"proceed_low": True, "context": note(state, "notices", [DISCLAIMER])}
    # A named instrument the library lacks is said first: it is why little was found.
    ask = NeedsInput(kind="low_confidence", message=unheld_prefix(state) + LOW_CONFIDENCE,
                     options=[
                         InputOption(id=TAG, label="Tag specific documents"),
                         # Offered only where it works (a web search is configured).
                         *([InputOption(id=WEB, label="Search the web")]
                           if runtime.context.web is not None else []),
                         InputOption(id=CONTINUE, label="Continue anyway")])
    answer = str(interrupt(ask.model_dump(mode="json"))).strip().lower()
    if answer in (CONTINUE, "3", "continue", "continue anyway", "yes", "proceed"):
        return {"proceed_low": True, "context": note(state, "notices", [DISCLAIMER])}
    deps = runtime.context
    if answer in (WEB, "2", "search the web", "web") and deps.web is not None:
        results, notices = await web.search(deps, state.get("message", ""))
        return {"proceed_low": True, "web": results,
                "context": note(state, "notices", [DISCLAIMER, *notices])}
    reply = ("Web search is not configured for this workspace. Please tag the documents to "
             "use." if answer in (WEB, "2", "search the web", "web") else
             "Please tag the documents to use with @ and ask again.")
    return {"halted": True, "answer": reply}


def route_after_confidence(state: ChatState) -> Literal["compose", "format_response"]:
    return "format_response" if state.get("halted") else "compose"


async def compose(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    action = state.get("action") or "inquire"
    if action == Action.AUDIT.value:
        return {}
    hits = hits_of(state)
    book = CitationBook()
    documents = documents_of(state)
    streamed = ""
    if hits:
        provisions = {(h.document_id, h.clause or h.chunk_id) for h in hits}
        step(runtime.stream_writer, "compose", f"Reading {plural(len(provisions), 'provision')}…")
    with deps.timed("composition"):
        last_tool = (state.get("tool_log") or [""])[-1]
        if last_tool.startswith("version_changes"):
            return await _version_answer(state, runtime)
        if action == Action.INQUIRE.value and last_tool.startswith("project_graph"):
            return {"citations": [], "streamed": ""}  # answered from the project graph
        if action == Action.INQUIRE.value and last_tool.startswith("retrieve_past_answer"):
            return await _past_answer(state, runtime)
        if action == Action.INQUIRE.value and last_tool.startswith("lookup_past_conversation"):
            return await _from_memory(state, runtime)
        if action == Action.SUMMARIZE.value:
            focus = (state.get("context") or {}).get("summary_focus")
            composed = await deps.engine.compose_summary(documents, _by_document(hits), book,
                                                         focus=focus)
        elif action == Action.COMPARE.value:
            topic = (state.get("context") or {}).get("comparison_topic")
            composed = await deps.engine.compose_comparison(
                state.get("message", ""), documents, _by_document(hits), topic, book)
        else:
            tier = (state.get("confidence") or {}).get("tier")
            stream = AnswerStream(runtime.stream_writer, prefix=_prefix(state, runtime))
            message = question_text.without_mentions(state.get("message", ""))
            query = question_text.without_mentions(state.get("query") or message)
            asked = abbreviations.expand(query, unless_in=[h.text for h in hits])
            follow_up = abbreviations.expand(message, unless_in=[h.text for h in hits]) \
                if query != message else None
            composed = await deps.engine.compose_inquiry(asked, hits, book,
                                                         caution=tier == "medium",
                                                         stream=stream, follow_up=follow_up)
            streamed = stream.text
            if not streamed:  # composed at once (the offline engine): its wording is ours
                composed = replace(composed, answer="\n".join(named_once.shortened(
                    composed.answer.splitlines(), (h.document_title for h in hits))))
                if follow_up is not None:
                    composed = _unless_repeated(composed, follow_up, state)
            if state.get("web"):
                composed = replace(composed, answer=web.cite(composed.answer,
                                                             state.get("web") or [], book))
    if not streamed and composed.answer:
        # An engine that composes at once (the offline one) sends its answer line by line as
        # soon as it is composed: the checks after it change it rarely (a reset then).
        stream = AnswerStream(runtime.stream_writer, prefix=_prefix(state, runtime))
        for line in composed.answer.splitlines(keepends=True):
            stream.write(line)
        streamed = stream.text
    result = {key: value.model_dump(mode="json") for key, value in (
        ("summary", composed.summary), ("comparison", composed.comparison)) if value}
    out: Update = {"answer": composed.answer, "result": result, "dropped_quotes": book.dropped,
                   "citations": [c.model_dump(mode="json") for c in book.citations],
                   "streamed": streamed, "concepts": composed.concepts}
    if action == Action.INQUIRE.value:  # the confidence of the answer given, from its citations
        asked = abbreviations.expand(state.get("query") or state.get("message", ""))
        out["confidence"] = _answer_confidence(
            asked, hits, book, runtime,
            repeated=composed.answer.startswith(repeats.NOTHING_MORE)).model_dump()
    return out


def _unless_repeated(composed: Composed, follow_up: str, state: ChatState) -> Composed:
    """A follow-up's answer that only repeats the previous one says so first, unless it
    states the kind of fact the follow-up asks for ("and for how long?" answered by the
    provision already quoted, which gives the period) or speaks to the follow-up's own
    words."""
    previous = repeats.previous_answer(
        state.get("memory") if request_of(state).use_memory else None)
    if previous is None or not repeats.all_said(composed.answer, previous):
        return composed
    kind = answer_kind.asked(follow_up)
    if kind is not None and answer_kind.states(kind, composed.answer):
        return composed
    message = state.get("message", "")
    earlier = (state.get("query") or "").removesuffix(message)
    if repeats.addresses(composed.answer, follow_up, earlier):
        return composed
    return replace(composed, answer=f"{repeats.NOTHING_MORE}\n\n{composed.answer}")


def _searching(runtime: Rt, node: str, documents: list[Document]) -> None:
    step(runtime.stream_writer, node, f"Searching {plural(len(documents), 'document')}…"
         if documents else "Searching your library…")


def _prefix(state: ChatState, runtime: Rt) -> str:
    """The notice the final answer will start with, sent ahead of a streamed answer."""
    resolved = [ResolvedDocument.model_validate(r) for r in state.get("resolved") or []]
    notice = answer_notice(state, resolved, runtime.context.engine.record().notice)
    return f"{notice}\n\n" if notice else ""


def _by_document(hits: list[ChunkHit]) -> dict[UUID, list[ChunkHit]]:
    grouped: dict[UUID, list[ChunkHit]] = defaultdict(list)
    for h in hits:
        grouped[h.document_id].append(h)
    return grouped


async def _from_memory(state: ChatState, runtime: Rt) -> Update:
    """``lookup_past_conversation``: the Q&A index of this thread, searched by topic."""
    question = state.get("message", "")
    entries = await tools.lookup_past_conversation(runtime.context, question)
    if not entries:
        return {"answer": "This conversation has no earlier discussion on that topic."}
    lines = ["Earlier in this conversation:", ""]
    lines += [f"- {e.created_at:%Y-%m-%d %H:%M} — you asked: \"{e.question}\". "
              f"Answer: {e.answer_digest}" for e in entries]
    return {"answer": "\n".join(lines), "context": note(state, "past_exchanges",
                                                         [str(e.exchange_id) for e in entries])}


async def _past_answer(state: ChatState, runtime: Rt) -> Update:
    """``retrieve_past_answer``: the thread's last answer again, with its citations."""
    recent = [m for m in (state.get("memory") or {}).get("recent", [])
              if m["role"] == "assistant"]
    if not recent:
        return {"answer": "This conversation has no earlier answer yet."}
    message = await tools.retrieve_past_answer(runtime.context, UUID(recent[-1]["id"]))
    return {"answer": f"The previous answer was:\n\n{message.content}",
            "citations": list(message.metadata.get("citations", []))}
