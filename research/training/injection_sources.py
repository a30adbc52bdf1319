"""Build ``research/training/data/injection_public_train.jsonl``: public prompt-injection rows,
injections and benign prompts, that widen the injection model's training beyond deepset.

Every row is ``{"text", "label", "source", "group"}`` (1 = injection); ``group`` ties rows that
share a template, so cross-validation never splits them. The sources (attribution in
``research/training/data/README.md``):

- bastioncorpus 0.6.0 (PyPI wheel, MIT): all 181 rows of ``corpus/injections.jsonl``, the
  ``malicious`` ones as injections and the benign false-positive traps ("Please ignore my
  previous email …") as benign; the ``{canary}`` placeholder becomes a fixed token.
- spikee 0.9.2 (PyPI wheel, Apache-2.0): each distinct jailbreak template of its seed folders
  (``jailbreaks.jsonl``, the bare ``no-jailbreak`` one left out) filled, as ``spikee
  generate`` does, with one instruction of the injection-directed seed folders, picked by
  ``sha256(template) mod n``; and the 111 benign finance questions of
  ``seeds-investment-advice-fp`` (its false-positive set).
- awesome-chatgpt-prompts (GitHub f/awesome-chatgpt-prompts, ``prompts.csv`` at commit
  82f15563, CC0-1.0): 166 "act as" prompts, benign except "Unconstrained AI model DAN", a
  jailbreak.
- self-instruct (GitHub yizhongw/self-instruct at commit 0b26ccaa, Apache-2.0): the 175
  human-written seed tasks (``data/seed_tasks.jsonl``) and the 252 user-oriented instructions
  (``human_eval/user_oriented_instructions.jsonl``), each instruction followed by its first
  instance's input: benign everyday requests (rewrite this email, solve this puzzle, …).

Run from the repository root (the wheels come from ``pip download --no-deps``)::

    pip download --no-deps bastioncorpus==0.6.0 spikee==0.9.2 -d /tmp/wheels
    .venv/bin/python -m research.training.injection_sources \\
        --bastion /tmp/wheels/bastioncorpus-0.6.0-py3-none-any.whl \\
        --spikee /tmp/wheels/spikee-0.9.2-py3-none-any.whl \\
        --awesome prompts.csv --self-instruct seed_tasks.jsonl \\
        --self-instruct user_oriented_instructions.jsonl \\
        --out research/training/data/injection_public_train.jsonl

Rows repeated across sources (whitespace and case ignored) are kept once. The trainer, not
this script, leaves out the rows that overlap the unseen test source."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

CANARY = "RC-4471"
DAN_ACT = "Unconstrained AI model DAN"
SPIKEE_ROOT = "spikee/data/workspace/datasets/"
# Seed folders whose instructions are injection goals (exfiltration, XSS, system-prompt
# extraction, harmful requests); the investment-advice ones are ordinary finance requests.
SPIKEE_INSTRUCTIONS = ("seeds-cybersec-2026-01", "zzz_LEGACY_seeds-cybersec-2025-04",
                       "seeds-sysmsg-extraction-2025-04", "seeds-llm-mailbox",
                       "seeds-harmful-instructions-only")
SPIKEE_BENIGN = "seeds-investment-advice-fp/standalone_user_inputs.jsonl"

Row = dict[str, Any]


def _jsonl(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]


def bastion_rows(wheel: Path) -> list[Row]:
    with zipfile.ZipFile(wheel) as z:
        items = _jsonl(z.read("bastioncorpus/corpus/injections.jsonl"))
    return [{"text": str(r["text"]).replace("{canary}", CANARY),
             "label": int(r["label"] == "malicious"), "source": "bastioncorpus",
             "group": f"bastioncorpus:{r['id']}"} for r in items]


def spikee_rows(wheel: Path) -> list[Row]:
    with zipfile.ZipFile(wheel) as z:
        names = sorted(n for n in z.namelist() if n.startswith(SPIKEE_ROOT))
        templates: dict[str, str] = {}
        for name in names:
            if name.endswith("/jailbreaks.jsonl"):
                for r in _jsonl(z.read(name)):
                    text = str(r["text"])
                    if r.get("jailbreak_type") != "no-jailbreak" and "<INSTRUCTION>" in text:
                        templates.setdefault(text, str(r["id"]))
        instructions: list[str] = []
        for folder in SPIKEE_INSTRUCTIONS:
            for r in _jsonl(z.read(f"{SPIKEE_ROOT}{folder}/instructions.jsonl")):
                instruction = str(r["instruction"]).strip()
                if instruction not in instructions:
                    instructions.append(instruction)
        benign = _jsonl(z.read(SPIKEE_ROOT + SPIKEE_BENIGN))
    rows = []
    for template, tid in sorted(templates.items(), key=lambda kv: (kv[1], kv[0])):
        digest = int.from_bytes(hashlib.sha256(template.encode("utf-8")).digest(), "big")
        instruction = instructions[digest % len(instructions)]
        if not template.lstrip().startswith("<INSTRUCTION>"):
            instruction = instruction[:1].lower() + instruction[1:]
        rows.append({"text": template.replace("<INSTRUCTION>", instruction), "label": 1,
                     "source": "spikee", "group": f"spikee:{tid}"})
    rows += [{"text": str(r["text"]), "label": 0, "source": "spikee",
              "group": f"spikee:{r['id']}"} for r in benign]
    return rows


def awesome_rows(path: Path) -> list[Row]:
    items = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    return [{"text": r["prompt"], "label": int(r["act"].strip() == DAN_ACT),
             "source": "awesome-chatgpt-prompts", "group": f"awesome:{r['act'].strip()}"}
            for r in items]


def self_instruct_rows(path: Path) -> list[Row]:
    rows = []
    for r in _jsonl(path.read_bytes()):
        given = str(r["instances"][0]["input"]).strip() if r.get("instances") else ""
        text = str(r["instruction"]).strip() + (f"\n\n{given}" if given else "")
        rows.append({"text": text, "label": 0, "source": "self-instruct",
                     "group": f"self-instruct:{r['id']}"})
    return rows


def build(bastion: Path, spikee: Path, awesome: Path,
          self_instruct: list[Path] | None = None) -> list[Row]:
    seen: set[str] = set()
    out = []
    instructions = [row for path in self_instruct or [] for row in self_instruct_rows(path)]
    for row in [*bastion_rows(bastion), *spikee_rows(spikee), *awesome_rows(awesome),
                *instructions]:
        key = " ".join(row["text"].lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(row)
    return out


def main(
    bastion: Annotated[Path, typer.Option(exists=True, dir_okay=False,
                                          help="bastioncorpus-0.6.0 wheel.")],
    spikee: Annotated[Path, typer.Option(exists=True, dir_okay=False,
                                         help="spikee-0.9.2 wheel.")],
    awesome: Annotated[Path, typer.Option(exists=True, dir_okay=False,
                                          help="awesome-chatgpt-prompts prompts.csv.")],
    out: Annotated[Path, typer.Option(help="Where to write the JSONL.")],
    self_instruct: Annotated[list[Path] | None, typer.Option(
        exists=True, dir_okay=False,
        help="self-instruct JSONL (seed tasks, user-oriented instructions); repeatable.")
    ] = None,
) -> None:
    """Write the public training rows and print their counts by source and label."""
    rows = build(bastion, spikee, awesome, self_instruct)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    for (source, label), n in sorted(Counter((r["source"], r["label"]) for r in rows).items()):
        typer.echo(f"{source}\tlabel {label}\t{n}")


if __name__ == "__main__":
    typer.run(main)
