"""Development tool (issue 47): per development policy, each party of the regulation's
register with its obligations, how many the policy restates (closest sentence at least the
covered threshold) and how many it relates to (at least the related threshold) - what
applicability.py decides on.

    python research/audit_queue/parties.py DATA_DIR aml=REG ..."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from regintel.bench.audit_policies import TENANT, cases_in, policy_upload, regulation_upload
from regintel.cli.app import load_settings, open_container
from regintel.obligations.applicability import party_of
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import SHIPPED, closeness, row_text
from regintel.obligations.policy_text import policy_units

POLICIES = Path("tests/data/dev_policies")


async def main(data_dir: Path, pairs: list[str]) -> None:
    settings = load_settings().model_copy(update={"data_dir": data_dir})
    async with open_container(settings) as container:
        tenant = await container.documents.ensure_tenant(TENANT)
        by_title = {d.title: d for d in await container.documents.list(tenant)}
        auditor = container.matrix_auditor()
        for pair in pairs:
            name, regulation_file = pair.split("=", 1)
            document = by_title[regulation_upload(Path(regulation_file)).title]
            regulation = await auditor.regulation(tenant, document)
            binding = [i for i, r in enumerate(regulation.rows) if r.strength != "recommendation"]
            for case in cases_in(POLICIES / name):
                policy = by_title[policy_upload(case.policy).title]
                units = policy_units(await container.chunk_index.document_chunks(tenant,
                                                                                 policy.id))
                vectors = await auditor._vectors(tenant, [(policy.id, u.context) for u in units])
                scores = closeness(regulation.vectors[binding],
                                   [row_text(regulation.rows[i]) for i in binding], vectors,
                                   [content_words(u.text) for u in units])
                best = scores.max(axis=1)
                tally: dict[str, list[int]] = {}
                for position, index in enumerate(binding):
                    party = party_of(regulation.rows[index].actor) or "(none)"
                    t = tally.setdefault(party, [0, 0, 0])
                    t[0] += 1
                    t[1] += best[position] >= SHIPPED.covered
                    t[2] += best[position] >= SHIPPED.related
                print(f"== {name}/{case.name}")
                for party, (n, restated, related) in sorted(tally.items(),
                                                            key=lambda kv: -kv[1][0])[:14]:
                    print(f"   {party[:40]:40} {n:4} restated {restated:3} related {related:3} "
                          f"({related / n:.2f})")


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), sys.argv[2:]))
