"""`mseval score`, `mseval report` (and `mseval gemmas`, in gemmas_cmd.py): the evaluation
commands (SPEC §10).

Everything heavy (evaluation, numpy, matplotlib, onnxruntime) is imported inside the command
functions so that `mseval --help` starts fast. Bad input raises `contracts.InputError`, which
`main()` prints one line per problem before exiting 2.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from contracts.errors import InputError, Problem
from harness.cli.common import MetavarCommand, path_option
from harness.cli.score_inputs import DEFAULT_STORE, check_inputs, priors_folder
from harness.cli.score_table import summary_table, warn

if TYPE_CHECKING:
    from contracts import EpisodeRecord
    from evaluation.document import ScoreDocument
    from evaluation.embeddings import Embedder
    from evaluation.reports import ReportFiles

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store", metavar="URL", help="Store URL to read episodes from (default: sqlite:///runs/mseval.db)."
    ),
]
EpisodesOpt = Annotated[
    Path | None,
    path_option(
        "--episodes",
        metavar="FILE.jsonl",
        help="Episode records (.jsonl, mseval.episode/1); FILE.runs.json beside it is read too.",
    ),
]
PriorsOpt = Annotated[
    Path | None,
    path_option(
        "--priors",
        metavar="DIR",
        help="Folder of delegation priors (a TASK.yaml per task); default $MSEVAL_PRIORS, else the project's.",
    ),
]
BaselineOpt = Annotated[
    str, typer.Option("--baseline", metavar="V", help="Variant that every other variant is compared with.")
]
EmbedderOpt = Annotated[
    str,
    typer.Option(
        "--embedder",
        metavar="minilm|tfidf|st:MODEL|none",
        help="IDS embedder: minilm (offline all-MiniLM-L6-v2 int8), tfidf, st:MODEL (a sentence-transformers "
        "model name or folder), or none.",
    ),
]
# The bootstrap holds a resamples × tasks matrix at once: 10^5 × 500 tasks is 400 MB. Past this
# the command died on numpy's allocation with a traceback.
MAX_RESAMPLES = 100_000
ResamplesOpt = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=1,
        max=MAX_RESAMPLES,
        metavar="N",
        help="Bootstrap resamples for the 95% intervals.",
    ),
]
LambdaOpt = Annotated[
    float,
    typer.Option("--lambda", metavar="NUMBER", help="Weight of TF-IDF in the IDS similarity, 0 to 1."),
]
MinPathOpt = Annotated[
    int, typer.Option("--min-path-nodes", min=1, max=2, metavar="N", help="Shortest path UPR counts.")
]


def input_error(where: str, message: str) -> Exception:
    return InputError.one(where, None, message)


def check_lambda(lam: float) -> None:
    """`--lambda` within [0, 1]; typer's own range check told nan as "should be <= 1"."""
    if not (math.isfinite(lam) and 0 <= lam <= 1):
        raise input_error("--lambda", f"must be a number between 0 and 1, got {lam:g}")


def open_embedder(spec: str) -> Embedder | None:
    """The `--embedder` to use (None for `tfidf` and `none`); MiniLM's vectors are kept in
    `$MSEVAL_CACHE/embeddings.sqlite` between commands."""
    from evaluation.embeddings import EmbedderError, load_embedder
    from mcp_servers.common.codehash import default_cache_dir

    try:
        return load_embedder(spec, cache_dir=default_cache_dir())
    except EmbedderError as exc:
        raise input_error("--embedder", str(exc)) from None


def load_input(store: str | None, episodes: Path | None) -> tuple[list[EpisodeRecord], list[dict[str, Any]]]:
    """Episode records and run identities from a `.jsonl` export or from the store."""
    from contracts.episode import runs_file_for
    from evaluation.records import load_episodes, load_run_identities

    if store is not None and episodes is not None:
        raise InputError.one("--episodes", None, "give either --store or --episodes, not both")
    if episodes is not None:
        runs_file = runs_file_for(episodes)
        runs = load_run_identities(runs_file) if runs_file.exists() else []
        return load_episodes(episodes), runs
    from harness.store import read_episode_records, read_run_identities

    url = store or DEFAULT_STORE
    return list(read_episode_records(url)), list(read_run_identities(url))


TaggerOpt = Annotated[
    str | None,
    typer.Option(
        "--llm-tagger",
        metavar="M",
        help="Also tag sub-agents with this model (provider:model-id) and report its agreement "
        "with the deterministic tagger; labels from the records still win in scoring.",
    ),
]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", metavar="URL", help="Base URL for an openai-compatible tagger.")
]
KeyEnvOpt = Annotated[
    str | None, typer.Option("--api-key-env", metavar="NAME", help="Variable holding the tagger's API key.")
]


def tool_label_map(records: list[EpisodeRecord]) -> dict[str, str] | None:
    """The harness's tool → function label map, when some sub-agent record lacks a label (traces
    from other harnesses); mseval's own records carry their labels."""
    if all(s.label for r in records for s in r.subagents):
        return None
    from harness.servers_catalog import tool_catalog

    return {t.name: t.label for t in tool_catalog() if t.label and not t.bookkeeping}


TAGGER_MAX_OUTPUT_TOKENS = 1024


def llm_tagging(
    records: list[EpisodeRecord], model: str, base_url: str | None, api_key_env: str | None,
    tool_labels: dict[str, str] | None,
) -> Any:  # fmt: skip
    """Ask `model` for every sub-agent's label, through the harness's model layer (checked
    beforehand by `tagger_problems`)."""
    import asyncio

    from evaluation.llm_tagger import llm_tag
    from harness.models.base import ModelAPIError, ModelSettings, UserMessage
    from harness.models.registry import ModelFactory
    from harness.models.retry import RetriesExhausted, RetryPolicy

    # A label is one word, but a reasoning model spends output tokens thinking first.
    settings = ModelSettings(temperature=0.0, max_output_tokens=TAGGER_MAX_OUTPUT_TOKENS)
    factory = ModelFactory(settings=settings, base_url=base_url, api_key_env=api_key_env)
    llm = factory.for_episode(model, None, 0)  # type: ignore[arg-type]  # real providers need no task
    failed: list[str] = []

    async def complete(prompt: str) -> str:
        """The answer, retried as the agents' calls are; a call that fails for good gives no
        label (counted and reported), unless the provider refuses the key or model."""
        try:
            response = await RetryPolicy().call(
                lambda: llm.generate([UserMessage(content=prompt)], [], settings)
            )
        except RetriesExhausted as exc:
            failed.append(str(exc))
            return ""
        except ModelAPIError as exc:
            if exc.refuses_access:
                raise input_error("--llm-tagger", f"{model}: {exc}") from None
            failed.append(str(exc))
            return ""
        return response.message.content

    async def run() -> Any:
        try:
            return await llm_tag(records, complete, tool_labels, every=True)
        except ExceptionGroup as group:  # the task group's; a refused key is one line
            refused = [e for e in group.exceptions if isinstance(e, InputError)]
            if refused:
                raise refused[0] from None
            raise
        finally:
            await factory.aclose()

    tagging = asyncio.run(run())
    if failed:
        print(
            f"warning: {len(failed)} --llm-tagger calls failed and gave no label; the first: {failed[0]}",
            file=sys.stderr,
        )
    return tagging


def build_document(
    records: list[EpisodeRecord],
    runs: list[dict[str, Any]],
    priors_dir: Path,
    baseline: str,
    embedder: str,
    resamples: int,
    tagger: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    *,
    lam: float = 0.5,
    min_path_nodes: int = 2,
) -> ScoreDocument:
    """Load priors and the embedder, tag where needed, then score; `lam` is IDS's λ and
    `min_path_nodes` the shortest path UPR counts."""
    from evaluation.identity import read_prior_sources
    from evaluation.process import GraphOptions
    from evaluation.records import load_priors
    from evaluation.scoring import ScoreOptions, score_records

    priors = load_priors(priors_dir)
    model = open_embedder(embedder)
    graph = GraphOptions(embedder=model, compute_ids=embedder != "none", lam=lam, min_nodes=min_path_nodes)
    sources = read_prior_sources(priors_dir)
    tool_labels = tool_label_map(records)
    tagging = llm_tagging(records, tagger, base_url, api_key_env, tool_labels) if tagger else None
    with embedding_progress(model is not None) as progress:
        options = ScoreOptions(
            baseline=baseline, graph=graph, resamples=resamples, progress=progress, tool_labels=tool_labels,
            llm_labels=tagging.labels if tagging else None, llm_agreement=tagging.agreement if tagging else None,
        )  # fmt: skip
        return score_records(records, priors, runs=runs, prior_sources=sources, options=options)


@contextmanager
def embedding_progress(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr while responses are embedded, when stderr is a terminal."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("embedding responses", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def baseline_problems(
    records: Sequence[EpisodeRecord], runs: Sequence[Mapping[str, Any]], baseline: str
) -> list[Problem]:
    """`--baseline` naming a variant that no episode has, recorded or planned by a run: a typo,
    which scored every setting without its comparison and exited 0 with a warning per model.
    A baseline that some models have and others lack is the scorer's warning per model."""
    from evaluation.records import planned_keys

    settings = {(r.model, r.variant) for r in records}
    settings |= {(model, variant) for run in runs for model, variant, *_ in planned_keys(run)}
    if not settings or baseline in {variant for _, variant in settings}:
        return []
    variants = ", ".join(sorted({variant for _, variant in settings}))
    models = ", ".join(sorted({model for model, _ in settings}))
    return [
        Problem(
            "--baseline",
            None,
            f"no episode has the variant {baseline!r}; the variants are {variants} (models {models})",
        )
    ]


def score(
    store: StoreOpt = None,
    episodes: EpisodesOpt = None,
    priors: PriorsOpt = None,
    baseline: BaselineOpt = "sa",
    as_json: Annotated[bool, typer.Option("--json", help="Print the mseval.score/1 document.")] = False,
    embedder: EmbedderOpt = "minilm",
    resamples: ResamplesOpt = 1000,
    llm_tagger: TaggerOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: KeyEnvOpt = None,
    lam: LambdaOpt = 0.5,
    min_path_nodes: MinPathOpt = 2,
) -> None:
    """Score episodes against the delegation priors and the baseline (SR, UDR/ODR, hits, utilities, MSQ, GEMMAS)."""
    check_lambda(lam)
    priors_dir = check_inputs(store, episodes, priors, tagger=(llm_tagger, base_url, api_key_env))
    records, runs = load_input(store, episodes)
    if problems := baseline_problems(records, runs, baseline):
        raise InputError(problems)
    doc = build_document(
        records, runs, priors_dir, baseline, embedder, resamples, llm_tagger, base_url, api_key_env,
        lam=lam, min_path_nodes=min_path_nodes,
    )  # fmt: skip
    warn(doc)
    print(doc.to_json(indent=1) if as_json else summary_table(doc))


def report(
    out: Annotated[
        Path,
        path_option(
            "--out", metavar="DIR", help="Folder for report.md, index.html, score.json and the PNG plots."
        ),
    ],
    store: StoreOpt = None,
    episodes: EpisodesOpt = None,
    priors: PriorsOpt = None,
    baseline: BaselineOpt = "sa",
    embedder: EmbedderOpt = "minilm",
    resamples: ResamplesOpt = 1000,
    llm_tagger: TaggerOpt = None,
    base_url: BaseUrlOpt = None,
    api_key_env: KeyEnvOpt = None,
    timeline: Annotated[
        list[str] | None,
        typer.Option(
            "--timeline",
            metavar="ID",
            help="Episode id or task id to draw in the waves timeline (repeatable).",
        ),
    ] = None,
    lam: LambdaOpt = 0.5,
    min_path_nodes: MinPathOpt = 2,
) -> None:
    """Write report.md, a self-contained index.html, score.json and PNG plots of the score."""
    check_lambda(lam)
    priors_dir = check_inputs(store, episodes, priors, out, (llm_tagger, base_url, api_key_env))
    records, runs = load_input(store, episodes)
    problems = baseline_problems(records, runs, baseline)
    known = {r.episode_id for r in records} | {r.task_id for r in records}
    if unknown := [name for name in dict.fromkeys(timeline or ()) if name not in known]:
        names = ", ".join(repr(name) for name in unknown)
        problems.append(
            Problem("--timeline", None, f"no episode or task {names} among the episodes to report")
        )
    if problems:
        raise InputError(problems)
    doc = build_document(
        records, runs, priors_dir, baseline, embedder, resamples, llm_tagger, base_url, api_key_env,
        lam=lam, min_path_nodes=min_path_nodes,
    )  # fmt: skip
    warn(doc)
    files = write_report_files(doc, records, runs, out, timeline or (), "--out")
    print(f"wrote {files.markdown}, {files.html} and {len(files.plots)} plots")


def write_report_files(
    doc: ScoreDocument, records: list[EpisodeRecord], runs: Sequence[Mapping[str, Any]], out: Path,
    timeline: Sequence[str], option: str,
) -> ReportFiles:  # fmt: skip
    """The report of `doc`, scored from `records` and `runs`, and score.json in `out` (checked
    beforehand by `check_out_path`); a write that fails all the same (a file of the report that
    is a folder, a full disk) is named by `option`."""
    from evaluation.planned import scored_records
    from evaluation.reports import write_report

    try:
        files = write_report(doc, scored_records(records, runs), out, timeline)
    except OSError as exc:
        where = exc.filename or out
        raise input_error(option, f"cannot write {where}: {exc.strerror or exc}") from None
    return files


# The demo scores IDS with TF-IDF alone: MiniLM over its few thousand responses would take
# longer than the whole offline job is allowed (SPEC §11: ≤ 60 s). The embedder is printed with
# every IDS value; `mseval score` defaults to MiniLM.
DEMO_EMBEDDER = "tfidf"


def demo_hook(store: str, report_dir: Path | None, run_id: str) -> None:
    """After `mseval demo`: the score table of its run (not of the whole store, which may hold
    earlier runs of other tasks), and the report when asked for."""
    from harness.store import Store

    s = Store(store)
    try:
        records = s.records(run_id)
        runs = [r for r in s.identities() if r["run_id"] == run_id]
    finally:
        s.close()
    doc = build_document(records, runs, priors_folder(None), "sa", DEMO_EMBEDDER, 1000)
    warn(doc)
    print(summary_table(doc))
    if report_dir is not None:
        files = write_report_files(doc, records, runs, report_dir, (), "--report")
        print(f"report: {files.html} ({files.markdown}, {len(files.plots)} plots)")


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to `app`."""
    app.command("score")(score)
    app.command("report")(report)
    from harness.cli.gemmas_cmd import gemmas

    app.command("gemmas", cls=MetavarCommand)(gemmas)
