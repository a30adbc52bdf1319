"""Offline (no LLM) answers to common questions about a compliance project, composed from the
loaded project graph and the detail tools, every entity cited as ``[kind:uuid]``.

``answer_project_question`` returns None when the question is not one of these, so the chat
falls through to its normal (document-grounded) path.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from uuid import UUID

from regintel.domain.ontology import (
    ALWAYS_INCLUDED,
    DONE_STATES,
    Entity,
    EntityKind,
    ProjectAnswer,
)
from regintel.ontology.graph import is_done, is_mitigated, is_overdue, short_date
from regintel.ontology.loader import ProjectContext
from regintel.ontology.tools import ProjectTools

HIGH_IMPACTS = ("high", "critical")
_STOP = frozenset(("a", "an", "the", "of", "to", "for", "in", "on", "and", "or", "is", "are",
                   "what", "which", "who", "how", "why", "when", "goal", "goals", "blocking",
                   "blocks", "block", "blocked", "our", "my", "this", "that", "with", "from",
                   "by"))
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def cite(entity: Entity) -> str:
    return f"[{entity.kind.value}:{entity.id}]"


class _Composer:
    def __init__(self, intent: str) -> None:
        self.intent = intent
        self.lines: list[str] = []
        self.used: dict[UUID, Entity] = {}

    def item(self, entity: Entity, detail: str = "", indent: int = 0) -> None:
        self.used[entity.id] = entity
        suffix = f" ({detail})" if detail else ""
        self.lines.append(f"{'  ' * indent}- {cite(entity)} {entity.label}{suffix}")

    def answer(self) -> ProjectAnswer:
        return ProjectAnswer(intent=self.intent, text="\n".join(self.lines),
                             entity_ids=list(self.used),
                             citations=[cite(e) for e in self.used.values()])


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 2}


def _mitigations(ctx: ProjectContext, risk: Entity) -> list[Entity]:
    return [m for m in ctx.neighbours(risk.id, rel="mitigates", incoming=True)
            if m.state not in {"cancelled", "archived"}]


def _due(entity: Entity) -> str:
    return short_date(entity.data.get("due_at")) or "no due date"


def _due_on(entity: Entity) -> str:
    """"due 12 Dec 2026", or "no due date" (never "due no due date")."""
    date = short_date(entity.data.get("due_at"))
    return f"due {date}" if date else "no due date"


def _said(state: str | None) -> str:
    """A workflow state in words: "in_progress" is "in progress", "todo" "to do"."""
    words = (state or "").replace("_", " ").replace("-", " ").strip()
    return {"todo": "to do"}.get(words, words)


async def _unmitigated_risks(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    high_only = any(w in q for w in ("high", "critical", "major", "top", "severe"))
    c = _Composer("unmitigated_risks")
    risks = [r for r in ctx.members.get(EntityKind.RISK, [])
             if not is_mitigated(r) and not _mitigations(ctx, r)
             and (not high_only or r.data.get("impact") in HIGH_IMPACTS)]
    scope = "high or critical impact risks" if high_only else "risks"
    if not risks:
        c.lines.append(f"Every open {scope.removesuffix('s')} in {cite(ctx.project)} "
                       f"{ctx.project.label} has a mitigation linked or is mitigated.")
        c.used[ctx.project.id] = ctx.project
        return c.answer()
    c.used[ctx.project.id] = ctx.project
    count = f"1 {scope.removesuffix('s')} has" if len(risks) == 1 else f"{len(risks)} {scope} have"
    c.lines.append(f"In {cite(ctx.project)} {ctx.project.label}, {count} no mitigation (no "
                   "mitigating task, decision, plan or requirement is linked, and not marked "
                   "mitigated):")
    for risk in ctx.ranked(risks):
        probability = risk.data.get("probability")
        detail = f"impact {risk.data.get('impact') or 'unrated'}"
        if probability is not None:
            detail += f", probability {float(probability):.2f}"
        c.item(risk, detail)
    return c.answer()


def _find_goal(q: str, ctx: ProjectContext) -> Entity | None:
    goals = ctx.members.get(EntityKind.GOAL, [])
    for match in _UUID.findall(q):
        found = ctx.index.get(UUID(match))
        if found is not None and found.kind is EntityKind.GOAL:
            return found
    wanted = _words(q)
    scored = [(len(wanted & _words(g.label)), g) for g in goals]
    scored = [(s, g) for s, g in scored if s > 0]
    if scored:
        return max(scored, key=lambda sg: (sg[0], -len(sg[1].label)))[1]
    return goals[0] if len(goals) == 1 else None


async def _blocking_goal(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    c = _Composer("goal_blockers")
    goal = _find_goal(q, ctx)
    if goal is None:
        c.lines.append("Which goal do you mean? The project's goals are:")
        for g in ctx.ranked(ctx.members.get(EntityKind.GOAL, [])):
            c.item(g, _said(g.state))
        return c.answer()
    c.used[goal.id] = goal
    tasks = ctx.neighbours(goal.id, EntityKind.TASK)
    blocked = [t for t in tasks if t.state == "blocked"]
    late = [t for t in tasks if is_overdue(t, ctx.now) and t.state != "blocked"]
    milestones = [m for m in ctx.neighbours(goal.id, EntityKind.MILESTONE)
                  if is_overdue(m, ctx.now)]
    risks = [r for r in ctx.neighbours(goal.id, EntityKind.RISK, rel="threatens")
             if not is_mitigated(r)]
    if not (blocked or late or milestones or risks):
        c.lines.append(f"Nothing is blocking {cite(goal)} {goal.label}: none of its "
                       f"{len(tasks)} linked tasks is blocked or overdue, and no unmitigated "
                       "risk threatens it.")
        return c.answer()
    c.lines.append(f"What is holding up {cite(goal)} {goal.label}:")
    for task in ctx.ranked(blocked):
        details = await tools.get_task_details(task.id)
        reason = (details.get("props") or {}).get("blocked_reason")
        c.item(task, "blocked" + (f": {reason}" if reason else ""))
        for dep in ctx.neighbours(task.id, EntityKind.TASK, rel="depends_on", incoming=False):
            if not is_done(dep):
                c.item(dep, f"waiting on this task, {_said(dep.state)}, {_due_on(dep)}", indent=1)
    for task in ctx.ranked(late):
        c.item(task, f"overdue since {_due(task)}")
    for milestone in milestones:
        c.item(milestone, f"milestone overdue since {_due(milestone)}")
    for risk in ctx.ranked(risks):
        mitigated = "with a mitigation in progress" if _mitigations(ctx, risk) else \
            "no mitigation"
        c.item(risk, f"{risk.data.get('impact') or 'unrated'} impact risk, {mitigated}")
    return c.answer()


async def _overdue(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    c = _Composer("overdue")
    kinds = (EntityKind.TASK,) if "task" in q else (EntityKind.TASK, EntityKind.MILESTONE)
    late = [e for k in kinds for e in ctx.members.get(k, []) if is_overdue(e, ctx.now)]
    c.used[ctx.project.id] = ctx.project
    if not late:
        c.lines.append(f"Nothing in {cite(ctx.project)} {ctx.project.label} is overdue "
                       f"as of {ctx.now:%Y-%m-%d}.")
        return c.answer()
    c.lines.append(f"{len(late)} item(s) in {cite(ctx.project)} {ctx.project.label} are "
                   f"overdue as of {ctx.now:%Y-%m-%d}:")
    late.sort(key=lambda e: (e.data["due_at"], str(e.id)))
    for entity in late:
        c.item(entity, f"{entity.kind.value}, {_due_on(entity)}, {_said(entity.state)}")
    return c.answer()


async def _open_requirements(q: str, ctx: ProjectContext, tools: ProjectTools
                             ) -> ProjectAnswer:
    c = _Composer("open_requirements")
    open_reqs = [r for r in ctx.members.get(EntityKind.REQUIREMENT, [])
                 if r.state not in DONE_STATES]
    c.used[ctx.project.id] = ctx.project
    if not open_reqs:
        c.lines.append(f"{cite(ctx.project)} {ctx.project.label} has no open requirements.")
        return c.answer()
    c.lines.append(f"{len(open_reqs)} open requirement(s) in {cite(ctx.project)} "
                   f"{ctx.project.label}:")
    for req in sorted(open_reqs, key=lambda r: (r.data.get("priority") or 9, r.label)):
        work = ctx.neighbours(req.id, rel="addresses", incoming=True)
        detail = f"priority {req.data.get('priority') or '-'}, " + (
            f"addressed by {len(work)} item(s)" if work else "nothing addresses it yet")
        c.item(req, detail)
        for w in work:
            c.item(w, f"{w.kind.value}, {_said(w.state)}", indent=1)
    return c.answer()


async def _blocked_tasks(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    c = _Composer("blocked_tasks")
    blocked = [t for t in ctx.members.get(EntityKind.TASK, []) if t.state == "blocked"]
    c.used[ctx.project.id] = ctx.project
    c.lines.append(f"{len(blocked)} blocked task(s) in {cite(ctx.project)} "
                   f"{ctx.project.label}" + (":" if blocked else "."))
    for task in ctx.ranked(blocked):
        c.item(task, _due_on(task))
        for dep in ctx.neighbours(task.id, EntityKind.TASK, rel="depends_on", incoming=False):
            if not is_done(dep):
                c.item(dep, f"dependency, {_said(dep.state)}", indent=1)
    return c.answer()


HIGH_PRIORITY = 2  # priorities 1 (a Critical finding's work) and 2 (High)


async def _open_tasks(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    """The tasks not done, most pressing first; only priorities 1-2 when the question asks
    for the urgent ones."""
    c = _Composer("open_tasks")
    urgent = any(w in q for w in _URGENT)
    tasks = [t for t in ctx.members.get(EntityKind.TASK, []) if not is_done(t)
             and (not urgent or (t.data.get("priority") or 9) <= HIGH_PRIORITY)]
    c.used[ctx.project.id] = ctx.project
    what = "open high-priority task(s)" if urgent else "open task(s)"
    c.lines.append(f"{len(tasks)} {what} in {cite(ctx.project)} {ctx.project.label}"
                   + (":" if tasks else "."))
    for task in ctx.ranked(tasks):
        late = ", overdue" if is_overdue(task, ctx.now) else ""
        c.item(task, f"priority {task.data.get('priority') or '-'}, {_said(task.state)}, "
                     f"{_due_on(task)}{late}")
    return c.answer()


async def _decisions(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    c = _Composer("decisions")
    decisions = sorted(ctx.members.get(EntityKind.DECISION, []),
                       key=lambda d: d.data.get("decision_at") or d.data["created_at"],
                       reverse=True)
    c.used[ctx.project.id] = ctx.project
    c.lines.append(f"{len(decisions)} decision(s) recorded in {cite(ctx.project)} "
                   f"{ctx.project.label}" + (":" if decisions else "."))
    for d in decisions[:10]:
        when = short_date(d.data.get("decision_at")) or short_date(d.data.get("created_at"))
        outcome = d.data.get("outcome") or ""
        c.item(d, f"{when}" + (f": {outcome[:120]}" if outcome else ""))
    return c.answer()


async def _status(q: str, ctx: ProjectContext, tools: ProjectTools) -> ProjectAnswer:
    c = _Composer("project_status")
    p = ctx.project
    c.used[p.id] = p
    counts = ", ".join(f"{len(v)} {k.plural}" for k, v in ctx.members.items() if v)
    c.lines.append(f"{cite(p)} {p.label} is {_said(p.state) or 'active'}: "
                   f"{counts or 'no entities'}.")
    for goal in ctx.ranked(ctx.members.get(EntityKind.GOAL, []))[:10]:
        tasks = ctx.neighbours(goal.id, EntityKind.TASK)
        done = sum(1 for t in tasks if is_done(t))
        c.item(goal, f"{_said(goal.state)}, {done}/{len(tasks)} tasks done")
    blocked = sum(1 for t in ctx.members.get(EntityKind.TASK, []) if t.state == "blocked")
    late = sum(1 for t in ctx.members.get(EntityKind.TASK, []) if is_overdue(t, ctx.now))
    c.lines.append(f"{blocked} blocked and {late} overdue task(s).")
    unlinked = [f"{cov.unlinked} {k}" for k, cov in ctx.coverage.items()
                if cov.unlinked and EntityKind(k.removesuffix("s")) not in ALWAYS_INCLUDED]
    if unlinked:
        c.lines.append("Not linked to the project: " + ", ".join(unlinked) + ".")
    return c.answer()


Handler = Callable[[str, ProjectContext, ProjectTools], Awaitable[ProjectAnswer]]


# Phrases that make a question about the project's own work, not about what a regulation
# requires: "how should a firm mitigate risk" or "penalties for late filing" must fall through
# to the document-grounded chat.
_UNMITIGATED = ("no mitigation", "without mitigation", "without a mitigation", "unmitigated",
                "not mitigated", "not yet mitigated", "lack mitigation", "lacking mitigation",
                "missing mitigation", "no mitigating", "have no mitigation")
_BLOCKING = ("blocking", "blocks", "holding up", "in the way of", "stopping")
_OVERDUE = ("overdue", "past due", "behind schedule", "missed deadline", "missed its deadline",
            "missed their deadline")
_OPEN = ("open", "unmet", "outstanding", "not met", "not yet met", "remaining", "our ",
         "project requirement", "programme requirement")
_BLOCKED_WORK = ("blocked task", "tasks are blocked", "tasks blocked", "task is blocked",
                 "what is blocked", "what's blocked", "blocked work")
# "open high-priority tasks", "tasks still outstanding", "what tasks are left" - not "what
# tasks must the MLRO perform when an account is opened" (a question for the regulations).
_OPEN_TASKS = re.compile(
    r"\b(?:open|outstanding|remaining|pending|unfinished|urgent|high[- ]priority|critical|"
    r"top[- ]priority)\b(?:\s+[\w-]+)?\s+tasks?\b|\btasks?\s+(?:(?:are|is|that are)\s+)?"
    r"(?:still\s+)?(?:open|outstanding|remaining|pending|left|to do|in progress|not done)\b")
_URGENT = ("high-priority", "high priority", "urgent", "critical", "top priority",
           "top-priority", "priority 1")
_DECISIONS = ("decisions have", "decisions did", "decisions were", "decisions made",
              "recorded decisions", "our decisions", "project decisions", "decision log",
              "what did we decide", "what have we decided")
_STATUS = ("status", "overview", "progress", "how is", "how's", "summary")


def _routes(q: str) -> list[Handler]:
    """Every project question ``q`` asks, in a fixed order: "what is overdue and which risks
    have no mitigation?" asks two, and an answer must address both."""
    def has(words: tuple[str, ...]) -> bool:
        return any(w in q for w in words)

    asked = [
        (_unmitigated_risks, "risk" in q and has(_UNMITIGATED)),
        (_blocking_goal, "goal" in q and has(_BLOCKING)),
        (_overdue, has(_OVERDUE)),
        (_open_requirements, "requirement" in q and has(_OPEN)),
        (_blocked_tasks, has(_BLOCKED_WORK)),
        (_open_tasks, bool(_OPEN_TASKS.search(q))),
        (_decisions, has(_DECISIONS)),
        (_status, has(("project", "programme", "program")) and has(_STATUS)),
    ]
    return [handler for handler, wanted in asked if wanted]


async def answer_project_question(question: str, context: ProjectContext,
                                  tools: ProjectTools) -> ProjectAnswer | None:
    """Answer ``question`` from the project graph, or None when it is not one of the project
    questions this answers (the caller then runs the normal document-grounded turn). Call it
    only for a thread scoped to ``context``'s project. A question asking several of them gets
    each answer in turn, one paragraph each."""
    handlers = _routes(" ".join(question.lower().split()))
    if not handlers:
        return None
    answers = [await handler(question.lower(), context, tools) for handler in handlers]
    if len(answers) == 1:
        return answers[0]
    ids = list(dict.fromkeys(i for a in answers for i in a.entity_ids))
    return ProjectAnswer(intent="+".join(a.intent for a in answers),
                         text="\n\n".join(a.text for a in answers), entity_ids=ids,
                         citations=list(dict.fromkeys(c for a in answers for c in a.citations)))
