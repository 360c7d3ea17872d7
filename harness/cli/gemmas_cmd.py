"""`mseval gemmas`: IDS and UPR (SPEC §8, GEMMAS) of an agent graph given as JSON, for graphs
from other systems; `mseval score` computes both for every episode record."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from contracts.errors import InputError
from harness.cli.common import path_argument
from harness.cli.evaluate import EmbedderOpt, LambdaOpt, MinPathOpt, check_lambda, open_embedder
from harness.cli.score_table import fmt


def gemmas(
    graph_file: Annotated[
        Path,
        path_argument(metavar="GRAPH.json", help="Nodes with prompt and response; S and T as 0/1 matrices."),
    ],
    answer: Annotated[
        str | None,
        typer.Option(
            "--answer", metavar="TEXT", help="Gold answer: a node contributes when its answer matches."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    embedder: EmbedderOpt = "minilm",
    lam: LambdaOpt = 0.5,
    min_path_nodes: MinPathOpt = 2,
) -> None:
    """IDS and UPR of an agent graph given as JSON (graphs from other systems)."""
    import json

    check_lambda(lam)

    from evaluation.embeddings import lambda_used
    from evaluation.gemmas import answer_contribution, information_diversity, unnecessary_path_ratio
    from evaluation.graph import load_graph_file

    try:
        graph = load_graph_file(graph_file)
    except InputError:
        if (line := episode_record_line(graph_file)) is not None:
            raise InputError.one(graph_file, line, EPISODES_NOT_A_GRAPH) from None
        raise
    model = open_embedder(embedder)
    ids = information_diversity(graph, model, lam) if embedder != "none" else None
    result: dict[str, Any] = {"nodes": len(graph.nodes), "ids": None, "upr": None}
    if ids is not None:
        result["ids"] = {
            "value": ids.value,
            "reason": ids.reason,
            "embedder": ids.embedder,
            "lambda": lambda_used(ids.embedder, lam),
            "weighted_pairs": ids.pairs,
            "empty_responses": ids.empty_nodes,
        }
    declared = all(node.contributes is not None for node in graph.nodes)
    if answer is not None or declared:
        rule = answer_contribution(answer) if answer is not None else (lambda node: bool(node.contributes))
        upr = unnecessary_path_ratio(graph, rule, min_path_nodes)
        result["upr"] = {
            "value": upr.value,
            "reason": upr.reason,
            "paths": upr.paths,
            "necessary": upr.necessary,
            "min_path_nodes": min_path_nodes,
            "contribution": "answer" if answer is not None else "declared",
        }
    else:
        result["upr"] = {
            "value": None,
            "reason": "no --answer given and not every node declares 'contributes'",
        }
    if as_json:
        print(json.dumps(result, indent=1))
        return
    print(_gemmas_text(result))


EPISODES_NOT_A_GRAPH = (
    "an episode record (mseval.episode/1), not an agent graph: `mseval score --episodes FILE` "
    'scores records and builds the graph of each; gemmas takes {"nodes", "S", "T"}'
)


def episode_record_line(path: Path) -> int | None:
    """The line of an episode record that opens `path`, when it opens with one: given to
    `gemmas`, such a file was told as a line per key of the record (`unknown key 'task_id'`,
    `missing field 'nodes'`, …) without saying what the file was."""
    import json

    from contracts.textio import open_input

    try:
        with open(open_input(path), encoding="utf-8-sig") as handle:
            number, line = next(
                ((n, text) for n, text in enumerate(handle, start=1) if text.strip()), (0, "")
            )
        data = json.loads(line)
    except (OSError, UnicodeDecodeError, ValueError, InputError):
        return None
    if isinstance(data, dict) and ("task_id" in data or data.get("schema") == "mseval.episode/1"):
        return number
    return None


def _gemmas_text(result: dict[str, Any]) -> str:
    ids, upr = result["ids"], result["upr"]
    if ids is None:
        ids_line = "IDS not computed"
    else:
        detail = ids["reason"] or f"{ids['weighted_pairs']} weighted pairs"
        ids_line = f"IDS {fmt(ids['value'])} ({detail}; embedder {ids['embedder']})"
    detail = upr["reason"] or f"{upr['necessary']}/{upr['paths']} paths necessary"
    return f"{ids_line}\nUPR {fmt(upr['value'])} ({detail})"
