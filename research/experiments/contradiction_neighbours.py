"""Is the policy clause that contradicts a rule the policy passage nearest it? (twenty-fourth
session, a measurement behind chat/llm/audit.py showing a whole policy.)

For each planted contradiction of the development policies whose rule and policy clause are
found in the stored chunks, the rank of the contradicting policy passage among the policy's
passages by cosine to: the rule passage's first sentence, the whole rule passage, and the
rule passage's best sentence. Printed: the share at rank 1, 2, 3 and the median rank. Seen:
81 contradictions; first sentence top-1 0.037, whole passage 0.074, best sentence 0.272.

    python -m research.experiments.contradiction_neighbours   # after audit_reach loaded
                                                              # /tmp/auditreach
"""
import asyncio, sys
from pathlib import Path
import numpy as np
from regintel.bench import adgm_corpus
from regintel.bench.audit import overlaps as _overlaps, load_gaps
from research.audit_dev.dev_policies import DEV_POLICIES
from regintel.retrieval.evidence import sentences
from regintel.cli.app import open_container
from regintel.settings import get_settings
sys.path.insert(0, "research/experiments")
from audit_reach import states, RULEBOOKS

async def main():
    settings = get_settings().model_copy(update={"data_dir": Path("/tmp/auditreach")})
    async with open_container(settings) as c:
        ranks = {"first": [], "whole": [], "best_sentence": []}
        for name, policy in DEV_POLICIES.items():
            corpus = await adgm_corpus.ingest(c, "audit-reach", RULEBOOKS, policy.pdf, policy.title)
            t = corpus.tenant_id
            aml = await c.chunk_index.document_chunks(t, corpus.aml.id)
            pol = await c.chunk_index.document_chunks(t, corpus.policy.id)
            pv = c.embedder.embed([p.text for p in pol])
            for g in load_gaps(policy.gaps):
                if g["kind"] != "contradiction" or not g["policy_text"]:
                    continue
                rule_chunks = [a for a in aml if states(a.text, g)]
                good = {i for i, p in enumerate(pol) if _overlaps(p.text, g["policy_text"])}
                if not rule_chunks or not good:
                    continue
                a = rule_chunks[0]
                sents = [s for s in sentences(a.text) if s.strip()] or [a.text]
                qs = [sents[0], a.text] + sents
                qv = c.embedder.embed(qs)
                sims = qv @ pv.T
                def rank(row):
                    order = list(np.argsort(-row))
                    return min(order.index(i) for i in good) + 1
                ranks["first"].append(rank(sims[0]))
                ranks["whole"].append(rank(sims[1]))
                ranks["best_sentence"].append(min(rank(r) for r in sims[2:]))
        for k, v in ranks.items():
            v = np.array(v)
            print(k, len(v), "top1", (v <= 1).mean().round(3), "top2", (v <= 2).mean().round(3), "top3", (v <= 3).mean().round(3), "median", np.median(v))
asyncio.run(main())
