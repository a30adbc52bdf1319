"""Intent, document resolution, validation of an action's requirements, and asking the user
(a LangGraph interrupt) when the pipeline cannot go on without a decision."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, assert_never

from langgraph.types import interrupt

from regintel.chat import document_references, instrument_names, prefetch, version_changes
from regintel.chat.named_documents import may_name_documents, named_documents
from regintel.chat.nodes.common import (
    Rt,
    Update,
    documents_of,
    hits_of,
    request_of,
    resolution,
)
from regintel.chat.question_text import is_follow_up
from regintel.chat.state import ChatState, DocRef
from regintel.domain.chat import Action, Inference, InputOption, NeedsInput, ResolvedDocument
from regintel.domain.documents import DocStatus, DocType, Document

ALL = "all"
SEARCH, WEB, TAG, CONTINUE = "search_library", "search_web", "tag_documents", "continue"


async def resolve_intent(state: ChatState, runtime: Rt) -> Update:
    request = request_of(state)
    if request.source_text:
        return {"action": Action.AUDIT.value}
    if request.action is not None:
        return {"action": request.action.value}
    guess = await prefetch.take_intent(runtime.context, state.get("message", ""))
    if guess.confident or guess.action is Action.INQUIRE or \
            await _has_something_to_act_on(guess.action, state, runtime):
        return {"action": guess.action.value}
    # A word every compliance question may contain ("comply", "difference", "key
    # obligations") with nothing given to audit, compare or summarise: answer the question.
    return {"action": Action.INQUIRE.value}


async def _has_something_to_act_on(action: Action, state: ChatState, runtime: Rt) -> bool:
    """Whether the user gave the action what it works on — a policy to audit, two documents
    to compare, a document to summarise — by tagging it now (a set counts as documents) or
    earlier in the thread (a follow-up such as "and the key differences?")."""
    request = request_of(state)
    deps = runtime.context
    if request.tagged_set_ids:
        return action is not Action.AUDIT or bool(request.tagged_doc_ids)
    in_play = {r["id"]: r["doc_type"] for r in state.get("registry") or []}
    for doc_id in request.tagged_doc_ids:
        in_play[str(doc_id)] = (await deps.documents.get(deps.tenant_id, doc_id)).doc_type.value
    match action:
        case Action.AUDIT:
            return DocType.POLICY.value in in_play.values()
        case Action.COMPARE:
            return len(in_play) >= 2
        case Action.SUMMARIZE:
            return len(in_play) >= 1
        case Action.INQUIRE:
            return True
        case _ as unreachable:
            assert_never(unreachable)


async def resolve_documents(state: ChatState, runtime: Rt) -> Update:
    deps = runtime.context
    request = request_of(state)
    action = Action(state.get("action") or Action.INQUIRE.value)
    explicit = [await deps.documents.get(deps.tenant_id, d) for d in request.tagged_doc_ids]
    # The library is read only when a set is tagged or a reference needs it (most questions
    # have neither: one query less before the answer).
    library = await deps.documents.list(deps.tenant_id) if request.tagged_set_ids else None
    for set_id in request.tagged_set_ids:
        explicit += [d for d in library or [] if d.set and d.set.id == set_id
                     and d not in explicit]
    chosen: list[tuple[Document, str]] = [(d, "explicit") for d in explicit]
    registry = state.get("registry") or []
    message = state.get("message", "")
    found = await deps.engine.resolve_references(message, action, explicit, registry)
    sources = instrument_names.sources(message)
    if library is None and (found.inference_confidence != "none" or registry or sources
                            or may_name_documents(message)):
        library = await deps.documents.list(deps.tenant_id)
    library = library or []
    by_id = {str(d.id): d for d in library}
    unheld = [n for n in sources if not instrument_names.held(n.text, _ready(library))]
    found = document_references.reread(found, message, explicit, registry, _ready(library),
                                       state.get("memory"), deps.limits.max_documents,
                                       ask_only=action is Action.INQUIRE)
    inference = Inference(confidence=found.inference_confidence, reasoning=found.reasoning)
    update: Update = {"inference": inference.model_dump(mode="json"), "pending": None,
                      "unheld": [{"text": n.text, "plain": n.plain} for n in unheld]}
    if found.inference_confidence == "high":
        chosen += [(by_id[i], "inferred") for i in found.inferred_doc_ids if i in by_id]
        # The thread's documents the message refers back to, and any it names beside them
        # ("and how do COBS and GEN differ on it?" after a turn on GEN): both are meant.
        named = _named(state.get("message", ""), action, explicit, library, unheld)
        held = {d.id for d, _ in chosen}
        chosen += [(d, "search") for d in named if d.id not in held]
        order = {d.id: n for n, d in enumerate(named)}  # as the message names them
        chosen = chosen[:len(explicit)] + sorted(chosen[len(explicit):],
                                                 key=lambda c: order.get(c[0].id, len(order)))
    elif found.inference_confidence == "medium":
        options = [InputOption(id=i, label=by_id[i].title) for i in found.candidates
                   if i in by_id]
        if len(options) > 1:
            options.append(InputOption(id=ALL, label="All of these documents"))
        update["pending"] = NeedsInput(
            kind="confirm_docs", options=options,
            message=f"{_doing(action)}. Please confirm which document you are referring to.",
        ).model_dump(mode="json")
    else:
        # A document the message names ("COBS", "the General Rulebook") is chosen as an
        # @mention would be; an audit's targets come from its tags, not from the audited text.
        named = _named(state.get("message", ""), action, explicit, library, unheld)
        if not named and not explicit and action is Action.INQUIRE and registry and \
                found.inference_confidence == "none" and is_follow_up(state.get("message", "")):
            # "for how long?" after a question about one rulebook stays in that rulebook.
            latest = max(r["turn"] for r in registry)
            named = [by_id[r["id"]] for r in registry if r["turn"] == latest and r["id"] in by_id]
            why, how = "a follow-up: continuing with the last turn's", "inferred"
        else:
            why, how = "named in the question, found in the library:", "search"
        if named:
            chosen += [(d, how) for d in named]
            titles = "; ".join(d.title for d in named)
            inference = Inference(confidence="high", reasoning=f"{why} {titles}")
            update["inference"] = inference.model_dump(mode="json")
        elif found.inference_confidence == "low":
            subject = f"{found.unmatched} documents" if found.unmatched else \
                "the document you refer to"
            update["pending"] = NeedsInput(
                kind="choose_docs",
                message=f"I do not have {subject} in this conversation. Would you like to:",
                options=[InputOption(id=SEARCH, label="Search uploaded documents"),
                         # Offered only where it works (a web search is configured).
                         *([InputOption(id=WEB, label="Search the web")]
                           if runtime.context.web is not None else []),
                         InputOption(id=TAG, label="Tag specific documents")],
            ).model_dump(mode="json")
    pair, versions = await _versions(state, runtime, [d for d, _ in chosen], library)
    # Read once here: a change question is answered from the alignment of the pair (actions).
    update["versions"] = _ids(pair)
    if versions:  # the versions asked about, in place of any other of their family
        chosen = [(d, how) for d, how in chosen if d.family_id != versions[0].family_id]
        chosen += [(d, "search") for d in versions]
        update["pending"] = None
        update["inference"] = Inference(
            confidence="high", reasoning=f"versions of {versions[0].title} named: "
            f"{', '.join(d.version for d in versions)}").model_dump(mode="json")
    unique = list({d.id: (d, how) for d, how in reversed(chosen)}.values())[::-1]
    return update | resolution([d for d, _ in unique], [how for _, how in unique])


async def _versions(state: ChatState, runtime: Rt, in_play: list[Document],
                    library: list[Document] | None
                    ) -> tuple[version_changes.Pair | None, list[Document]]:
    """The versions a message asks about: the pair a change question compares ("what changed
    between the 2012 and 2014 versions?") with its two versions; else no pair and the one
    version an ordinary question names ("in the 2012 version"), or none when it names no
    version of a document that has versions."""
    message = state.get("message", "")
    if not (version_changes.is_change_question(message)
            or version_changes.may_name_version(message)):
        return None, []
    deps = runtime.context
    library = library or await deps.documents.list(deps.tenant_id)
    pair = await version_changes.pair_for(deps.documents, deps.tenant_id, message, in_play,
                                          library)
    if pair is not None:
        return pair, [pair.old, pair.new]
    one = await version_changes.version_for(deps.documents, deps.tenant_id, message, in_play,
                                            library)
    return None, [one] if one is not None else []


def _ids(pair: version_changes.Pair | None) -> list[str] | None:
    return [str(pair.old.id), str(pair.new.id)] if pair is not None else None


def _ready(library: list[Document]) -> list[Document]:
    return [d for d in library if d.status == DocStatus.READY]


def _named(message: str, action: Action, explicit: list[Document], library: list[Document],
           unheld: Sequence[instrument_names.Name]) -> list[Document]:
    """The documents ``message`` names, chosen as @mentions would be; an audit's targets come
    from its tags, not from the audited text."""
    if action is Action.AUDIT and explicit:
        return []
    # A document with versions is named by its title, which its versions share: the name is
    # the current version's (a question naming a version is read in ``_versions``).
    current = [d for d in library if d.family_id is None or d.is_current]
    message = instrument_names.without(message, unheld)
    return [d for d in named_documents(message, current) if d.id not in {e.id for e in explicit}]


def _doing(action: Action) -> str:
    return {Action.AUDIT: "I will proceed with the audit", Action.COMPARE:
            "I will proceed with the comparison", Action.SUMMARIZE:
            "I will proceed with the summary"}.get(action, "I will proceed with the analysis")


async def validate_inputs(state: ChatState, runtime: Rt) -> Update:
    """The action's requirements: summarize ≥ 1 document, compare ≥ 2, audit a source (a
    document or pasted text) and 1–5 targets, never more than 5 documents."""
    if state.get("pending"):
        return {}
    deps = runtime.context
    request = request_of(state)
    action = Action(state.get("action") or Action.INQUIRE.value)
    resolved = [ResolvedDocument.model_validate(r) for r in state.get("resolved") or []]
    limit = deps.limits.max_documents
    problem: str | None = None
    wanted: DocType | None = None
    if len(resolved) > limit:
        problem = (f"{len(resolved)} documents are selected; one {action.value} can use at most "
                   f"{limit}. Please choose up to {limit} documents.")
    elif action is Action.SUMMARIZE and not resolved:
        problem = "Please specify which document you would like summarised."
    elif action is Action.COMPARE and len(resolved) < 2:
        have = f" Only {resolved[0].title} is selected." if resolved else ""
        problem = f"A comparison needs at least two documents.{have} Please add another."
    elif action is Action.AUDIT:
        source, targets = _audit_roles(state)
        if source is None and not request.source_text:
            problem = ("An audit needs the policy or text to audit. Please tag the policy, or "
                       "paste the text.")
            wanted = DocType.POLICY
        elif not targets:
            problem = ("Please specify which regulations to audit against (1 to "
                       f"{limit} documents).")
            wanted = DocType.REGULATION
        else:
            return {"source_doc": str(source.id) if source else None}
    if problem is None:
        return {}
    library = await deps.documents.list(deps.tenant_id)
    chosen = {r.id for r in resolved}
    options = [InputOption(id=str(d.id), label=d.title) for d in library
               if d.status == DocStatus.READY and d.id not in chosen
               and (wanted is None or d.doc_type == wanted)][:12]
    return {"pending": NeedsInput(kind="missing_docs", message=unheld_prefix(state) + problem,
                                  options=options).model_dump(mode="json")}


def _audit_roles(state: ChatState) -> tuple[Document | None, list[Document]]:
    """The audited document is the first company policy selected (else the first document
    tagged); every other document is a target. Pasted text makes all of them targets."""
    documents = documents_of(state)
    if request_of(state).source_text:
        return None, documents
    policies = [d for d in documents if d.doc_type == DocType.POLICY]
    source = policies[0] if policies else (documents[0] if len(documents) > 1 else None)
    return source, [d for d in documents if source is None or d.id != source.id]


def route_after_validation(state: ChatState) -> Literal["ask_user", "build_prompt"]:
    return "ask_user" if state.get("pending") else "build_prompt"


async def ask_user(state: ChatState, runtime: Rt) -> Update:
    """Interrupts the run with the pending question; resumes with the user's answer."""
    pending = NeedsInput.model_validate(state.get("pending"))
    answer = str(interrupt(pending.model_dump(mode="json"))).strip()
    deps = runtime.context
    chosen = _choices(answer, pending)
    if pending.kind in ("confirm_docs", "missing_docs") and chosen:
        library = {str(d.id): d for d in await deps.documents.list(deps.tenant_id)}
        documents = documents_of(state)
        how = [r["how"] for r in state.get("resolved") or []]
        for doc_id in chosen:
            if doc_id in library:
                documents.append(library[doc_id])
                how.append("inferred")
        inference = Inference(confidence="high", reasoning="confirmed by the user")
        # The documents confirmed may be versions a change question is about.
        pair = await version_changes.pair_for(deps.documents, deps.tenant_id,
                                              state.get("message", ""), documents,
                                              list(library.values()))
        return resolution(documents, how) | {
            "pending": None, "inference": inference.model_dump(mode="json"),
            "versions": _ids(pair)}
    if pending.kind == "choose_docs" and SEARCH in chosen:
        return {"pending": None}  # go on without documents: the library is searched
    if WEB in chosen and runtime.context.web is not None:
        return {"pending": None, "web_requested": True}  # the library and the web
    reply = ("Web search is not configured for this workspace. Please tag the documents to "
             "use, or search the uploaded documents." if WEB in chosen else
             "Please tag the documents to use with @ and ask again.")
    return {"pending": None, "halted": True, "answer": reply}


def _choices(answer: str, pending: NeedsInput) -> list[str]:
    """Option ids picked by an answer: ids, labels (case-insensitive), numbers, or "all"."""
    ids = [o.id for o in pending.options]
    picked: list[str] = []
    for part in re.split(r"\s*[,;]\s*|\s+and\s+", answer):
        part = part.strip().strip("\"'").lower()
        if not part:
            continue
        for i, option in enumerate(pending.options, start=1):
            if part in (option.id.lower(), option.label.lower(), str(i)):
                picked.append(option.id)
        if part in ("all", "both", "all of these documents") and ALL in ids:
            picked.append(ALL)
    if ALL in picked:
        picked = [i for i in ids if i != ALL]
    return list(dict.fromkeys(picked))


def route_after_ask(state: ChatState) -> Literal["validate_inputs", "format_response"]:
    return "format_response" if state.get("halted") else "validate_inputs"


def register(state: ChatState) -> list[DocRef]:
    """The thread's registry after this turn: its documents move to the latest turn."""
    turn = state.get("turn", 1)
    documents = documents_of(state)
    ids = {str(d.id) for d in documents}
    kept = [r for r in state.get("registry") or [] if r["id"] not in ids]
    kept += [DocRef(id=str(d.id), title=d.title, version=d.version,
                    doc_type=d.doc_type.value, turn=turn) for d in documents]
    return kept


def answer_notice(state: ChatState, resolved: list[ResolvedDocument],
                  fallback: str | None = None) -> str | None:
    """What the answer starts with: that an instrument the question names is not in the
    library (issue 49: said first, with what was searched instead), that the model's answer
    was replaced by the offline engine's (``fallback``, ``TurnRecord.notice``), then the brief
    professional notice of a high-confidence inference (spec: "Proceeding")."""
    missing = [] if state.get("halted") else unheld_names(state)
    if missing:
        opening = instrument_names.answer_opening(missing, hits_of(state),
                                                  [r.title for r in resolved])
        # The inference notice would name the documents searched a second time.
        inferred = _inference_notice(state, resolved) \
            if state.get("action") not in (None, Action.INQUIRE.value) else None
        return "\n\n".join(n for n in (opening, fallback, inferred) if n)
    inferred = _inference_notice(state, resolved)
    return "\n\n".join(n for n in (fallback, inferred) if n) or None


def unheld_names(state: ChatState) -> list[str]:
    """The instruments the question names as sources that the library does not hold, less
    the bare abbreviations the turn's evidence uses as terms ("under XYZ")."""
    names = [instrument_names.Name(**n) for n in state.get("unheld") or []]
    return instrument_names.still_unheld(names, hits_of(state))


def unheld_prefix(state: ChatState) -> str:
    """"MiFID II is not in your library. " before a question asked back, when it is so."""
    missing = unheld_names(state)
    return f"{instrument_names.not_in_library(missing)}. " if missing else ""


def _inference_notice(state: ChatState, resolved: list[ResolvedDocument]) -> str | None:
    if state.get("halted") or not any(r.how != "explicit" for r in resolved):
        return None
    titles = " and ".join(r.title for r in resolved)
    action = state.get("action")
    source = state.get("source_doc")
    if action == Action.AUDIT.value and source:
        audited = next((r.title for r in resolved if str(r.id) == source), "the policy")
        targets = " and ".join(r.title for r in resolved if str(r.id) != source)
        return f"Auditing {audited} against {targets}. Proceeding with analysis."
    verb = {"summarize": "Summarizing", "compare": "Comparing"}.get(action or "", "Analyzing")
    return f"{verb} {titles}."
