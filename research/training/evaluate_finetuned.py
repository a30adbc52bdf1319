"""Score a fine-tuned injection classifier (``finetune_injection``) on the held-out figures the
bench reports for the shipped model: the deepset held-out slice, ObliQA fold 1, the held-out
chat follow-ups, the held-out BIPIA strings and, with ``--unseen``, the unseen source.

Research only: the numbers are the ones ``regintel bench guardrails`` would give if the model
shipped (same rules and files); the per-message cost is measured on one short question."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from research.training.finetune_injection import (
    MAX_TOKENS,
    TopClassifier,
    _torch,
    load_base,
)

from regintel.bench.guardrail_data import (
    BIPIA_TASK_KINDS,
    OBLIQA_MEASURE_FOLD,
    is_heldout,
    obliqa_fold,
    read_attacks,
    read_benign,
    read_labelled,
    read_obliqa,
    read_unseen,
)


class Scorer:
    def __init__(self, weights: Path) -> None:
        from safetensors import safe_open
        from safetensors.torch import load_file

        self.torch = _torch()
        with safe_open(str(weights), "pt") as f:
            self.meta = json.loads(f.metadata()["regintel"])
        self.tokenizer, base = load_base(self.torch)
        net = TopClassifier(self.torch, base, int(self.meta["top_layers"]))
        net.load_state_dict({k: v.float() for k, v in load_file(str(weights)).items()})
        net.eval()
        self.base, self.net = base, net
        self.frozen = base.config.num_hidden_layers - int(self.meta["top_layers"])
        self.threshold = float(self.meta["threshold"])

    def probabilities(self, texts: list[str], batch: int = 32) -> np.ndarray:
        torch = self.torch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros(len(texts))
        with torch.no_grad():
            for s in range(0, len(order), batch):
                idx = order[s:s + batch]
                enc = self.tokenizer([texts[i] for i in idx], truncation=True,
                                     max_length=MAX_TOKENS, padding=True, return_tensors="pt")
                hidden = self.base(**enc, output_hidden_states=True).hidden_states[self.frozen]
                out[idx] = torch.sigmoid(self.net(hidden, enc["attention_mask"])).numpy()
        return out


def rates(flagged: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    tp = int((flagged & (gold == 1)).sum())
    fp = int((flagged & (gold == 0)).sum())
    fn = int((~flagged & (gold == 1)).sum())
    tn = len(gold) - tp - fp - fn
    return {"n": len(gold), "accuracy": round((tp + tn) / max(1, len(gold)), 4),
            "precision": round(tp / max(1, tp + fp), 4),
            "recall": round(tp / max(1, tp + fn), 4), "fpr": round(fp / max(1, fp + tn), 4)}


def main(
    weights: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    data: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    benign: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    chat: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    attacks: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    unseen: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
    threshold: Annotated[float | None, typer.Option(help="Override the shipped one.")] = None,
) -> None:
    scorer = Scorer(weights)
    t = scorer.threshold if threshold is None else threshold
    figures: dict[str, Any] = {"threshold": t}
    texts, labels = read_labelled(data)
    keep = [i for i, x in enumerate(texts) if is_heldout(x)]
    p = scorer.probabilities([texts[i] for i in keep])
    figures["deepset_heldout"] = rates(p >= t, np.array([labels[i] for i in keep]))
    questions = [q for qid, q in read_obliqa(benign) if obliqa_fold(qid) == OBLIQA_MEASURE_FOLD]
    p = scorer.probabilities(questions)
    figures["obliqa_fold1"] = {"n": len(questions), "flagged": int((p >= t).sum()),
                               "max_probability": round(float(p.max()), 4)}
    follow = read_benign(chat)
    p = scorer.probabilities(follow)
    figures["chat_followups"] = {"n": len(follow), "flagged": int((p >= t).sum()),
                                 "flagged_texts": [f for f, q in zip(follow, p, strict=True)
                                                   if q >= t]}
    pairs = [(k, a) for k, a in read_attacks(attacks) if is_heldout(a)]
    p = scorer.probabilities([a for _, a in pairs])
    out_dir = [q >= t for (k, _), q in zip(pairs, p, strict=True) if k not in BIPIA_TASK_KINDS]
    figures["bipia_heldout_output_directed"] = f"{sum(out_dir)} of {len(out_dir)}"
    if unseen:
        _, rows = read_unseen(unseen)
        p = scorer.probabilities([r["text"] for r in rows])
        gold = np.array([r["label"] for r in rows])
        r = rates(p >= t, gold)
        figures["unseen"] = {**r, "benign_fpr": r["fpr"]}
    started = time.perf_counter()
    for _ in range(50):
        scorer.probabilities(["What are the record-keeping rules for terrorist financing "
                              "investigations?"])
    figures["ms_per_message"] = round((time.perf_counter() - started) / 50 * 1000, 1)
    typer.echo(json.dumps(figures, indent=1))


if __name__ == "__main__":
    typer.run(main)
