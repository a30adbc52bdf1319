"""``regintel bench …``: measurements printed as a table, or as JSON with ``--json``."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from regintel.bench.report import render_json, render_table
from regintel.cli.app import JsonOption, bench_app, fail, load_settings, open_container, run
from regintel.errors import InvalidRequest, RegintelError
from regintel.settings import Settings

if TYPE_CHECKING:
    from regintel.container import Container


Figures = dict[str, Any]
CorpusOption = Annotated[Path, typer.Option(
    exists=True, file_okay=False, help="ObliQA passages directory (N.json files).")]
QuestionsOption = Annotated[Path, typer.Option(
    exists=True, dir_okay=False, help="ObliQA questions file, e.g. ObliQA_dev.json.")]
FoldOption = Annotated[int | None, typer.Option(min=0, max=1,
                                                help="Only this fold (0 tune, 1 held-out).")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="First N questions only.")]
RulebooksOption = Annotated[Path, typer.Option(
    exists=True, file_okay=False, help="The ADGM rulebooks (text) directory.")]
RULEBOOKS = Path("../shared/data/obliqa/rulebooks_txt")


def _measure(work: Callable[[Container, Settings], Awaitable[Figures]], json_out: bool,
             show: Callable[[Figures], str]) -> None:
    """Run one benchmark on the configured stores; print its table, or its JSON figures."""
    settings = load_settings()

    async def go() -> Figures:
        async with open_container(settings) as container:
            return await work(container, settings)

    figures = run(go)
    typer.echo(render_json(figures) if json_out else show(figures))


@bench_app.command("startup")
def bench_startup(
    json_out: JsonOption = False,
    runs: Annotated[int, typer.Option(min=1, max=50, help="Warm starts to measure.")] = 5,
    data_dir: Annotated[Path | None, typer.Option(
        help="Empty directory to use (default: a temporary one).")] = None,
) -> None:
    """Cold and warm start times of the embedded Postgres and FalkorDB."""
    from regintel.bench import startup

    try:
        figures = startup.run(data_dir, warm_runs=runs)
    except RegintelError as exc:
        fail(exc)
    if json_out:
        typer.echo(render_json(figures))
    else:
        typer.echo(render_table("Embedded store start-up (seconds)",
                                ["phase", "postgres", "graph", "total"],
                                startup.table_rows(figures)))


@bench_app.command("retrieval")
def bench_retrieval(
    corpus: CorpusOption,
    questions: QuestionsOption,
    fold: FoldOption = None,
    limit: LimitOption = None,
    keep: Annotated[bool, typer.Option(help="Keep the benchmark tenant afterwards.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Recall@10, MAP@10, nDCG@10 and query latency of hybrid retrieval on ObliQA."""
    from regintel.bench import retrieval

    def show(figures: Figures) -> str:
        scores = render_table(
            f"ObliQA retrieval ({figures['passages']} passages; "
            f"p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms per query)",
            ["split", "questions", "recall@10", "map@10", "ndcg@10"],
            retrieval.table_rows(figures))
        tiers = render_table(
            "Confidence tiers (share of questions whose top passage is gold)",
            ["tier", "questions", "top-1 gold"],
            [[name, t["questions"], t["top1_gold"]] for name, t in figures["tiers"].items()])
        return f"{scores}\n\n{tiers}"

    _measure(lambda container, settings: retrieval.run(
        container, corpus, questions, fold=fold, limit=limit, keep=keep,
        cache_dir=settings.data_dir / "cache"), json_out, show)


@bench_app.command("answers")
def bench_answers(
    corpus: CorpusOption,
    questions: QuestionsOption,
    fold: FoldOption = None,
    limit: LimitOption = None,
    model: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="A confidence model file to measure instead of the shipped one.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Gold citations of offline-engine answers on ObliQA, and how well confidence predicts them.

    How many of the passages the answers cite are ObliQA gold passages, and how well the
    answers' confidence predicts it (tiers, reliability bins, ECE)."""
    from regintel.bench import answers

    def show(figures: Figures) -> str:
        cited = render_table(
            f"ObliQA answers, offline engine ({figures['passages']} passages; "
            f"p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms per answer)",
            ["split", "questions", "citations/answer", "gold share", "passages/answer",
             "gold passage share", "answers citing gold"],
            answers.table_rows(figures))
        confidence = render_table(
            f"Answer confidence (model: {figures['confidence_model']})",
            ["tier / probability bin", "questions", "answers citing gold"],
            answers.confidence_rows(figures))
        return f"{cited}\n\n{confidence}"

    _measure(lambda container, settings: answers.run(
        container, corpus, questions, fold=fold, limit=limit,
        cache_dir=settings.data_dir / "cache", model=model), json_out, show)


@bench_app.command("ingest")
def bench_ingest(
    directory: Annotated[Path, typer.Option("--dir", exists=True, file_okay=False,
                                            help="Directory of documents, e.g. the rulebooks.")],
    keep: Annotated[bool, typer.Option(help="Keep the benchmark tenant afterwards.")] = False,
    follow_ups: Annotated[bool, typer.Option(
        "--follow-ups", help="Then run the documents' follow-ups (audit units embedded), "
        "timed apart.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Documents/s, chunks/s, total time and embedding time of the full ingestion pipeline."""
    from regintel.bench import ingest

    def show(f: Figures) -> str:
        return render_table(
            f"Ingestion of {f['documents']} documents ({f['ready']} ready, {f['chunks']} chunks)",
            ["measure", "value"],
            [["total (s)", f["total_s"]], ["embedding alone (s)", f["embedding_s"]],
             ["parse (s)", f["parse_s"]], ["store (s)", f["store_s"]],
             ["other: chunking, queue, status (s)", f["other_s"]],
             ["total / embedding", f["total_over_embedding"]],
             ["documents/s", f["documents_per_s"]], ["chunks/s", f["chunks_per_s"]],
             *([["follow-ups, after (s)", f["follow_ups_s"]],
                ["follow-ups: texts embedded", f["follow_up_texts"]],
                ["follow-ups: embedding (s)", f["follow_up_embedding_s"]]]
               if "follow_ups_s" in f else [])])

    _measure(lambda container, _: ingest.run(container, directory, keep=keep,
                                             follow_ups=follow_ups), json_out, show)


@bench_app.command("chat")
def bench_chat(
    rulebooks: RulebooksOption = RULEBOOKS,
    rounds: Annotated[int, typer.Option(min=1, help="Passes over the 20 questions.")] = 1,
    audits: Annotated[int, typer.Option(min=1, help="Audit turns to time.")] = 3,
    json_out: JsonOption = False,
) -> None:
    """Offline-engine turn latency: inquire p50/p95 and the policy audit, by phase."""
    from regintel.bench import chat

    def show(f: Figures) -> str:
        return render_table(
            "Chat turn latency, offline engine (seconds; phases: mean ms per turn)",
            ["turn", "n", "p50", "p95", "max", "guardrails", "retrieval", "composition",
             "validation", "persistence", "other"], chat.table_rows(f)) + (
            f"\naudit_first: the units were embedded ahead, as each document's ingestion "
            f"follow-up does ({f['prepare_s']} s for the three documents); audit_cold: none "
            f"was (the follow-ups not run yet, or failed); audit_new_policy: the policy's were "
            f"not, the regulations' were (a policy audited as soon as it is uploaded)"
            f"\ninquire composition p95: {f['inquire']['p95_ms_by_phase']['composition']} ms "
            f"(target 150 ms)")

    _measure(lambda container, _: chat.run(container, rulebooks, rounds=rounds, audits=audits),
             json_out, show)


@bench_app.command("audit")
def bench_audit(
    rulebooks: RulebooksOption = RULEBOOKS,
    gaps: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False, help="Planted gaps of --policy (default: the demo "
        "policy's, tests/data/aml_policy_gaps.json).")] = None,
    policy: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False, help="A policy to audit (any file the product ingests); "
        "needs --regulation and --gaps.")] = None,
    policies: Annotated[Path | None, typer.Option(
        exists=True, file_okay=False, help="A directory of <name>_policy.* with "
        "<name>_gaps.json: each audited, one row each, pooled.")] = None,
    regulation: Annotated[list[Path] | None, typer.Option(
        exists=True, dir_okay=False, help="A regulation to audit against (repeat for up to "
        "5); GDPR-style JSON lines of articles are accepted.")] = None,
    include_held_out: Annotated[bool, typer.Option(
        help="With --policies, audit the held-out policies too (held_out.txt).")] = False,
    data_dir: Annotated[Path | None, typer.Option(
        file_okay=False, help="With --policy/--policies: a data directory to keep and reuse "
        "(default: a throwaway one).")] = None,
    json_out: JsonOption = False,
) -> None:
    """The policy audit scored against planted gaps: gaps found, precision, quotes checked.

    By default the demo policy against the AML and General rulebooks on the configured
    engine; with --policy or --policies, any policy against any regulation(s) on the offline
    engine. A quote is checked against the stored text of the document it cites."""
    if policy is None and policies is None:
        from regintel.bench import audit_recall

        demo_gaps = gaps or Path("tests/data/aml_policy_gaps.json")
        _measure(lambda container, _: audit_recall.run(container, rulebooks, demo_gaps),
                 json_out,
                 lambda f: render_table("Audit of the demo policy's planted gaps",
                                        ["measure", "value"], audit_recall.table_rows(f)))
        return
    _bench_policies(policy, policies, regulation or [], gaps, include_held_out, data_dir,
                    json_out)


def _bench_policies(policy: Path | None, policies: Path | None, regulations: list[Path],
                    gaps: Path | None, include_held_out: bool, data_dir: Path | None,
                    json_out: bool) -> None:
    from regintel.bench import audit_policies
    from regintel.bench.audit_policies import PolicyCase

    try:
        if policy is not None and policies is not None:
            raise InvalidRequest("give --policy or --policies, not both")
        if not 1 <= len(regulations) <= 5:
            raise InvalidRequest("an audit needs 1 to 5 --regulation files")
        if policy is not None:
            if gaps is None:
                raise InvalidRequest("--policy needs --gaps (the planted gaps to score)")
            cases = [PolicyCase(policy.stem.removesuffix(audit_policies.POLICY_SUFFIX),
                                policy, gaps)]
        else:
            assert policies is not None
            cases = audit_policies.cases_in(policies, include_held_out=include_held_out)
        for case in cases:  # a bad gap file fails now, not after the regulations are ingested
            audit_policies.read_gaps(case.gaps)
    except RegintelError as exc:
        fail(exc)

    def show(figures: Figures) -> str:
        title = f"Audit against {', '.join(figures['regulations'])} (offline engine)"
        return (render_table(title, audit_policies.POLICY_HEADERS,
                             audit_policies.policy_rows(figures)) + "\n\n"
                + render_table("Planted gaps", audit_policies.GAP_HEADERS,
                               audit_policies.gap_rows(figures)))

    with _scratch_dir(data_dir) as directory:
        # The offline engine whatever the environment configures: the figures are the
        # engine's, comparable from run to run.
        settings = load_settings()
        settings = settings.model_copy(update={
            "data_dir": directory,
            "llm": settings.llm.model_copy(update={"base_url": None, "providers": {}})})

        async def go() -> Figures:
            async with open_container(settings) as container:
                return await audit_policies.run(container, cases, regulations)

        figures = run(go)
    typer.echo(render_json(figures) if json_out else show(figures))


@contextmanager
def _scratch_dir(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    directory = Path(tempfile.mkdtemp(prefix="regintel-bench-audit-"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@bench_app.command("llm-overhead")
def bench_llm_overhead(
    rulebooks: RulebooksOption = RULEBOOKS,
    first_token_ms: Annotated[float, typer.Option(
        min=0, help="The stub model's fixed delay before its first token.")] = 300.0,
    local: Annotated[bool, typer.Option(
        "--local", help="Treat the provider as self-hosted (no egress redaction).")] = False,
    rounds: Annotated[int, typer.Option(min=1, help="Passes over the 20 questions.")] = 1,
    in_process: Annotated[bool, typer.Option(
        "--in-process", help="Run the stub in a thread of this process instead of its own "
        "process (its work then counts as overhead).")] = False,
    json_out: JsonOption = False,
) -> None:
    """What the pipeline adds to a model's time to first token and to the whole turn."""
    from regintel.bench import llm_overhead

    settings = load_settings()
    figures = run(lambda: llm_overhead.run(settings, open_container, rulebooks,
                                           first_token_ms=first_token_ms, external=not local,
                                           rounds=rounds, in_process=in_process))
    typer.echo(render_json(figures) if json_out else render_table(
        f"LLM engine overhead over a stub model ({first_token_ms:.0f} ms to first token; "
        f"{figures['model_calls_per_turn']} calls per turn; ms)",
        ["measure", "p50", "p95"], llm_overhead.table_rows(figures)))


@bench_app.command("guardrails")
def bench_guardrails(
    injection: Annotated[Path, typer.Option(
        exists=True, dir_okay=False,
        help="JSONL of {text, label}; the training file is scored on its held-out rule only.")],
    pii: Annotated[Path, typer.Option(
        exists=True, dir_okay=False, help="PII spans file, e.g. pii_synth_dev.json.")],
    benign: Annotated[Path, typer.Option(
        exists=True, dir_okay=False,
        help="Benign questions: ObliQA JSON (Question) or JSONL of {text}.")],
    attacks: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="BIPIA text attacks: the held-out share scored as user messages; planted in "
             "passages too with --passages.")] = None,
    passages: Annotated[Path | None, typer.Option(
        exists=True, file_okay=False, help="ObliQA passages directory (N.json files).")] = None,
    unseen: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="A labelled source the model never trained on, scored whole (default: the "
             "shipped jackhhao/jailbreak-classification file).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Injection accuracy/precision/recall/FPR (held-out slice and an unseen source), benign
    FPR, PII precision/recall/F2."""
    from regintel.adapters.embeddings.local import LocalEmbedder
    from regintel.bench import guardrails
    from regintel.bench.guardrail_data import shipped_unseen
    from regintel.guardrails.injection import InjectionDetector
    from regintel.guardrails.pii import PiiDetector

    try:
        figures = guardrails.run(InjectionDetector(LocalEmbedder()), PiiDetector(),
                                 injection=injection, pii_file=pii, benign=benign,
                                 attacks=attacks, passages=passages,
                                 unseen=unseen or shipped_unseen())
    except RegintelError as exc:
        fail(exc)
    if json_out:
        typer.echo(render_json(figures))
        return
    rows = guardrails.table_rows(figures)
    inj, ben, pf = figures["injection"], figures["benign"], figures["pii"]
    tables = [
        render_table(f"Prompt injection: {inj['n']} prompts, {inj['scope']}",
                     ["detector", "accuracy", "precision", "recall", "fpr"], rows["detection"]),
        render_table(f"Benign questions: {ben['scope']}", ["measure", "value"],
                     [["questions", ben["n"]], ["left out (used in training)",
                                                ben["excluded_as_training"]],
                      ["flagged", ben["flagged"]],
                      ["benign FPR", f"{figures['benign_fpr']:.4f}"]]),
        render_table(f"Unseen source: {figures['unseen']['source']} "
                     f"({figures['unseen']['injections']} injections, "
                     f"{figures['unseen']['benign']} benign; {figures['unseen']['scope']})",
                     ["rows", "n", "accuracy", "precision", "recall", "benign fpr"],
                     rows["unseen"]),
        render_table(f"PII ({pf['texts']} texts, {pf['ms_per_text']} ms each; overlap match by "
                     f"type; NER model: {'yes' if pf['ner_model'] else 'no'})",
                     ["entity", "precision", "recall", "f2", "support", "coverage"],
                     rows["entities"]),
    ]
    if "attacks" in figures:
        att = figures["attacks"]
        tables.append(render_table(
            f"Attack strings as user messages: {att['scope']}", ["group", "n", "detected",
                                                                 "recall"],
            [[name, g["n"], g["detected"], g["recall"]] for name, g in
             (("all", att), ("output-directed kinds", att["output_directed"]),
              ("task kinds (not trained on)", att["task_kinds"]))]))
    if "passages" in figures:
        pas = figures["passages"]
        tables.append(render_table(
            f"Planted instructions in passages: {pas['detected']}/{pas['planted']} caught; "
            f"{pas['clean_flagged']}/{pas['clean']} clean passages flagged",
            ["attack kind", "planted", "caught"],
            [[k, v["planted"], v["detected"]] for k, v in pas["by_kind"].items()]))
    typer.echo("\n\n".join(tables))


@bench_app.command("ontology")
def bench_ontology(
    entities: Annotated[int, typer.Option(min=1, max=100_000,
                                          help="Entities in the generated project.")] = 2000,
    edges: Annotated[int, typer.Option(min=0, max=500_000,
                                       help="Edges in the generated project.")] = 5000,
    runs: Annotated[int, typer.Option(min=1, max=1000, help="Timed context builds.")] = 30,
    seed: Annotated[int, typer.Option(help="Generator seed.")] = 7,
    keep: Annotated[bool, typer.Option(help="Keep the generated project afterwards.")] = False,
    gc_freeze: Annotated[bool, typer.Option(
        help="gc.freeze() after warm-up, as a long-running server should.")] = True,
    sessions: Annotated[bool, typer.Option(
        help="Run each per-kind query in its own session instead of one pipeline.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Project context build time (parallel queries + BFS snapshot + light payload)."""
    from regintel.bench import ontology

    def show(f: Figures) -> str:
        return render_table(f"Project context build ({f['runs']} runs)", ["measure", "value"],
                            ontology.table_rows(f))

    _measure(lambda container, _: ontology.run(container, entities=entities, edges=edges,
                                               runs=runs, seed=seed, keep=keep,
                                               gc_freeze=gc_freeze, sessions=sessions),
             json_out, show)


@bench_app.command("load")
def bench_load(
    users: Annotated[int, typer.Option(min=1, max=500, help="Concurrent chatting users.")] = 20,
    seconds: Annotated[float, typer.Option(min=1, help="How long they chat.")] = 60.0,
    url: Annotated[str, typer.Option(help="The running server (`regintel serve`).")] = (
        "http://127.0.0.1:8000"),
    document: Annotated[Path | None, typer.Option(
        exists=True, dir_okay=False,
        help="A real rulebook to ask about (uploaded as a regulation), instead of the small "
             "built-in policy.")] = None,
    settle: Annotated[float, typer.Option(
        min=0, help="Seconds to wait after the document is ready, before the users start, so "
                    "its follow-up jobs (audit units, answer sentences) are done.")] = 0.0,
    json_out: JsonOption = False,
) -> None:
    """Concurrent users chatting through the HTTP API: errors, time to first SSE event, throughput.

    Creates a throwaway organisation on the server it drives."""
    import httpx

    from regintel.bench import load

    try:
        figures = run(lambda: load.run(url, users=users, seconds=seconds,
                                      document=document, settle_s=settle))
    except (httpx.HTTPError, RuntimeError) as exc:
        typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
        raise typer.Exit(1) from exc
    typer.echo(render_json(figures) if json_out else render_table(
        f"Load: {users} users for {seconds:.0f} s", ["measure", "value"],
        load.table_rows(figures)))


@bench_app.command("concepts")
def bench_concepts(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", exists=True, file_okay=False,
        help="Shared data directory with regulations/ (default: REGINTEL_DEMO_DATA_DIR).")
    ] = None,
    labelled: Annotated[Path | None, typer.Option(
        exists=True, file_okay=False,
        help="Directory of labelled sets (default: the ones shipped in regintel.concepts).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Precision and recall of the offline concept extractor on labelled sets.

    Defined terms and known-concept mentions, on a tuning split (GDPR) and held-out splits
    (AI Act, ADGM FSMR)."""
    from regintel.bench import concepts

    shared = data_dir or load_settings().demo_data_dir
    try:
        figures = concepts.run(shared, labelled or concepts.LABELLED_DIR)
    except RegintelError as exc:
        fail(exc)
    typer.echo(render_json(figures) if json_out else render_table(
        "Offline concept extractor (split: tune = tuned on, held-out = never tuned on)",
        ["set", "task", "split", "tp", "fp", "fn", "precision", "recall", "f1"],
        concepts.table_rows(figures)))


@bench_app.command("scenarios")
def bench_scenarios(
    split: Annotated[str, typer.Option(help="Which scenarios: dev, heldout or all.")] = "dev",
    answers_file: Annotated[Path | None, typer.Option(
        "--answers", exists=True, dir_okay=False,
        help="Answer scenarios (default: the set shipped in regintel.bench.data).")] = None,
    texts_file: Annotated[Path | None, typer.Option(
        "--texts", exists=True, dir_okay=False,
        help="Text checks (default: the set shipped in regintel.bench.data).")] = None,
    show_heldout: Annotated[bool, typer.Option(
        "--show-heldout", help="Also list the held-out scenarios one by one.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Answers a compliance officer can act on: scenario conversations and pasted-text audits.

    Scenario conversations on the demo corpus and COBS (action, first sentence citing the
    expected rule, confidence) and pasted-text audits (breaches found, compliant texts left
    alone), on the configured engine."""
    from regintel.bench import scenarios

    if split not in scenarios.SPLIT_CHOICES:
        raise typer.BadParameter("--split must be dev, heldout or all")

    def show(f: Figures) -> str:
        rows = scenarios.table_rows(f)
        return "\n\n".join([
            render_table(f"Answer scenarios, last turn (engine: {f['engine']}; seconds: "
                         + ", ".join(f"{k} {v}" for k, v in f["seconds"].items()) + ")",
                         ["split", "scenarios", "passed", "action ok", "leads with rule",
                          "1st citation", "cites rule", "high conf.", "asked back",
                          "follow-ups"],
                         rows["summary"]),
            f"plain questions routed to an audit: {f['answers']['plain_routed_to_audit']}\n"
            "passed: the expected action, and the first sentence cites an expected rule (and "
            "the first paragraph says the expected phrase, where one is expected); "
            "1st citation: the answer's first [n] marker does; cites rule: any citation does",
            render_table("Text checks (pasted email audits)",
                         ["split", "texts", "breaching with expected finding",
                          "breaches found", "subtle", "compliant without finding",
                          "called compliant", "not audited"], rows["text_summary"]),
            render_table("Answer scenarios", ["", "id", "split", "action", "first sentence "
                                              "cites", "first citation", "expected",
                                              "confidence"],
                         rows["lines"]),
            render_table("Text checks", ["", "id", "split", "verdict", "findings", "clauses"],
                         rows["text_lines"]),
        ])

    _measure(lambda container, settings: scenarios.run(
        container, settings.demo_data_dir, split=split,
        answers_file=answers_file, texts_file=texts_file, show_heldout=show_heldout),
        json_out, show)


@bench_app.command("summaries")
def bench_summaries(
    examples: Annotated[int, typer.Option(min=0, help="Failing lines shown per rulebook.")] = 4,
    json_out: JsonOption = False,
) -> None:
    """Whether a summary's line for each part states a binding duty of that part.

    AML, GEN, COBS and the GDPR summarised as chat turns on the offline engine; each
    part-line's leading quote checked against the document's obligation register."""
    from regintel.bench import summaries

    settings = load_settings()
    # The offline engine whatever the environment configures: the figures are its summary's.
    settings = settings.model_copy(update={"llm": settings.llm.model_copy(update={
        "provider": None, "base_url": None, "providers": {}})})

    def show(f: Figures) -> str:
        return "\n\n".join([
            render_table("Summary part-lines that state a binding duty of their part "
                         "(offline engine)",
                         ["rulebook", "part-lines", "duties", "share", "parts with a duty",
                          "share of those", "composition ms (first / again)"],
                         summaries.table_rows(f)),
            render_table("Failing lines", ["rulebook", "part", "why", "clause", "quote"],
                         summaries.failing_rows(f))])

    async def go() -> Figures:
        async with open_container(settings) as container:
            return await summaries.run(container, settings.demo_data_dir, examples=examples)

    figures = run(go)
    typer.echo(render_json(figures) if json_out else show(figures))


@bench_app.command("llm")
def bench_llm(
    corpus: CorpusOption,
    questions: QuestionsOption,
    limit: LimitOption = 100,
    model: Annotated[str | None, typer.Option(
        help="An installed model's name or a GGUF path (default: the model in use).")] = None,
    rows: Annotated[Path | None, typer.Option(
        help="A JSONL file: each question's row is appended as soon as it is answered, "
             "questions already there are skipped, and the figures cover all its rows "
             "(a long run can be stopped and continued).")] = None,
    json_out: JsonOption = False,
) -> None:
    """The local model on held-out ObliQA questions: speed, fallbacks and gold citations.

    Fold 1 questions: tokens/s, first-token latency, turn time, fallback share per step, and
    gold-citation rate against the offline engine."""
    from regintel.bench import llm_local

    settings = load_settings()
    llm = settings.llm.model_copy(update={"provider": "local", "local": (
        settings.llm.local.model_copy(update={"model": model}) if model
        else settings.llm.local)})
    settings = settings.model_copy(update={"llm": llm})

    def show(f: Figures) -> str:
        speed = render_table(
            f"Local model {f['model']} ({f['context_tokens']}-token window), {f['questions']} "
            f"held-out ObliQA questions",
            ["measure", "value"],
            [["prefill tokens/s (p50)", f["prefill_tokens_per_s"]],
             ["generation tokens/s (p50)", f["generation_tokens_per_s"]],
             ["prompt tokens (p50)", f["prompt_tokens_p50"]],
             ["first token p50 / p95 (ms)",
              f"{f['first_token_p50_ms']} / {f['first_token_p95_ms']}"],
             ["first token, the product's estimate for this machine (s)",
              f["first_token_estimate_s"]],
             ["answers repeating the worked example",
              f"{f['example_leaks']} of {f['example_leaks_checked']}"],
             ["inquiry turn p50 / p95, model (ms)",
              f"{f['turn_ms']['inquire_llm']['p50']} / {f['turn_ms']['inquire_llm']['p95']}"],
             ["inquiry turn p50 / p95, offline (ms)",
              f"{f['turn_ms']['inquire_offline']['p50']} / "
              f"{f['turn_ms']['inquire_offline']['p95']}"],
             *([f"fallback share: {step}", share]
               for step, share in f["fallback_share"].items())])
        gold = render_table("Gold citations", ["answers by", "answers", "citing gold",
                                               "gold share of citations"],
                            [[k, g["answers"], g["answers_citing_gold"], g["gold_share"]]
                             for k, g in f["gold"].items()])
        return f"{speed}\n\n{gold}"

    def go() -> Figures:
        async def work() -> Figures:
            async with open_container(settings) as container:
                return await llm_local.run(container, corpus, questions, limit=limit,
                                           cache_dir=settings.data_dir / "cache",
                                           rows_file=rows)
        return run(work)

    figures = go()
    typer.echo(render_json(figures) if json_out else show(figures))
