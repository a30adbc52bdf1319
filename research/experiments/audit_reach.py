"""How much of the AML rulebook does the model-based audit ever show its model? (twenty-fourth
session, a measurement behind chat/llm/audit.py's DEPTH and BATCH.)

The LLM engine's policy audit asks the model for at most MAX_THEMES themes of the policy,
then shows it, per theme, the best passages of each target with some of the policy's
(``plan_theme``). A planted gap whose rule is in none of the passages shown cannot be found,
however good the model; a planted contradiction cannot be found unless one call shows both
its rule and the policy clause that contradicts it. The share of planted gaps so shown is the
design's ceiling on recall. Themes come from the model; two stand-ins bound them here:

- ``generic``: eight broad AML themes a model would plausibly name for any AML policy;
- ``parts``: eight of the policy's part headings ("Part 4 — Client due diligence"), the first
  (an introduction) left out: what a model reading a sample spread over the policy would most
  likely name.

A rule counts as shown when a passage shown carries its clause marker (the rule, a sub-clause
of it, or the clause it is a sub-clause of) or contains all its match terms; a contradiction's
policy clause when a source passage shown in the same call overlaps its text as the audit
scorer reads it (bench/audit.py). Development policies only (their gap lists are tuning data);
each is audited against the AML and General rulebooks, as the demo is.

    python -m research.experiments.audit_reach [DATA_DIR] [DEPTH ...]
    python -m research.experiments.audit_reach DATA_DIR --test 24   # the demo policy, once

Each call shows either the policy passages nearest the theme and each target passage
(``nearest``) or the whole policy (``whole``), as chat/llm/audit.py does by the policy's length
against the audit model's context.
"""
import asyncio
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from regintel.bench import adgm_corpus
from regintel.bench.audit import overlaps as _overlaps, clause_matches, load_gaps
from research.audit_dev.dev_policies import DEV_POLICIES, TEST_GAPS, TEST_PDF
from regintel.chat.llm import audit_plan as audit
from regintel.cli.app import open_container
from regintel.ingestion.clauses import find_clauses
from regintel.settings import get_settings

RULEBOOKS = Path("../shared/data/obliqa/rulebooks_txt")
GENERIC = ("customer due diligence", "enhanced due diligence and politically exposed persons",
           "record keeping", "suspicious activity reporting",
           "money laundering reporting officer", "sanctions screening", "staff training",
           "business risk assessment")
_PART = re.compile(r"^##\s+(?:Part|Section|Chapter)\s+\w+\s*[—:.-]?\s+(.+?)\s*(?:\{\w+\})?$",
                   re.M)


def parts(markdown: str) -> list[str]:
    return list(dict.fromkeys(m.group(1).strip() for m in _PART.finditer(markdown)))[1:9]


def states(text: str, gap: dict) -> bool:
    plain = " ".join(text.lower().split())
    if gap["match_terms"] and all(" ".join(t.lower().split()) in plain
                                  for t in gap["match_terms"]):
        return True
    return any(clause_matches(label, gap["rule"]) or clause_matches(gap["rule"], label)
               for _, label in find_clauses(text))


def reached(calls, gap, aml_id) -> bool:
    for shown in calls:
        if any(h.document_id == aml_id and states(h.text, gap) for h in shown.targets):
            # A contradiction also needs its policy clause shown in the same call.
            if gap["kind"] != "contradiction" or not gap["policy_text"]:
                return True
            if any(_overlaps(s.text, gap["policy_text"]) for s in shown.sources):
                return True
    return False


async def main(data_dir: Path, depths: list[int], test: bool) -> None:
    settings = get_settings().model_copy(update={"data_dir": data_dir})
    policies = {"falcon (test)": TEST} if test else DEV_POLICIES
    async with open_container(settings) as container:
        totals: dict[tuple[str, str, int], list[int]] = {}
        for name, policy in policies.items():
            corpus = await adgm_corpus.ingest(container, "audit-reach", RULEBOOKS, policy.pdf,
                                              policy.title)
            gaps = load_gaps(policy.gaps)
            whole = audit.whole_source(await container.chunk_index.document_chunks(
                corpus.tenant_id, corpus.policy.id), corpus.policy, 10**9)
            themes = {"generic": list(GENERIC),
                      "parts": parts(policy.source.read_text(encoding="utf-8"))}
            row = [f"{name:<11} {len(gaps):>2} gaps"]
            for mode, shown in (("nearest", None), ("whole", whole)):
                for proxy, names in themes.items():
                    for depth in depths:
                        audit.DEPTH = depth
                        calls = [c for theme in names for c in await audit.plan_theme(
                            container.retriever, container.chunk_index, corpus.tenant_id,
                            theme, corpus.policy, [corpus.aml, corpus.gen], shown)]
                        found = sum(reached(calls, g, corpus.aml.id) for g in gaps)
                        total = totals.setdefault((mode, proxy, depth), [0, 0, 0, 0])
                        aml = {h.chunk_id for c in calls for h in c.targets
                               if h.document_id == corpus.aml.id}
                        for i, v in enumerate((found, len(gaps), len(calls), len(aml))):
                            total[i] += v
                        row.append(f"{mode[0]}{proxy[0]}{depth}:{found:>2}")
            print("  ".join(row), f"parts: {len(themes['parts'])}", flush=True)
        n = len(policies)
        print()
        for (mode, proxy, depth), (found, gaps, calls, passages) in totals.items():
            print(f"{mode:<8} {proxy:<8} DEPTH={depth:<3} BATCH={audit.BATCH}: gaps reachable "
                  f"{found:>3} of {gaps} ({found / gaps:.3f}); {calls / n:.1f} findings calls "
                  f"and {passages / n:.0f} distinct AML passages per policy")


@dataclass(frozen=True)
class _Test:
    """The demo policy, for its one figure (never to choose anything on)."""

    title: str = "Falcon Crest AML Policy"
    pdf: Path = TEST_PDF
    gaps: Path = TEST_GAPS
    source: Path = Path("src/regintel/demo/aml_policy.md")


TEST = _Test()

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--test"]
    asyncio.run(main(Path(args[0]) if args else Path("/tmp/auditreach"),
                     [int(d) for d in args[1:]] or [3, 12, 16, 24], "--test" in sys.argv))
