"""The mseval.score/1 document: rows, null rules, left-out counts, identity and warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts import EpisodeRecord
from evaluation.identity import SCORER_VERSION, hash_prior_sources, priors_hash
from evaluation.llm_tagger import Agreement
from evaluation.process import GraphOptions
from evaluation.scoring import ScoreOptions, make_labeler, score_records
from evaluation.stats import point_values
from evaluation.terms import task_terms
from tests.evaluation import fixtures
from tests.evaluation.builders import episode, sub

SPEC_ROW_KEYS = [
    "model", "variant", "baseline", "tasks", "episodes", "absent", "coverage", "sr", "sr_conditional",
    "udr", "odr", "p_hit", "r_hit", "f1_hit", "d_del", "d_del_plus", "u_p", "u_e", "u_c",
    "u_p_pairwise", "u_e_pairwise", "u_c_pairwise", "msq", "mean_csteps", "mean_cost_usd", "ids", "upr", "taxonomy",
]  # fmt: skip
DELEGATION_FIELDS = [
    "udr",
    "odr",
    "p_hit",
    "r_hit",
    "f1_hit",
    "d_del",
    "d_del_plus",
    "u_p",
    "u_e",
    "u_c",
    "msq",
    "taxonomy",
]
TFIDF = ScoreOptions(graph=GraphOptions(embedder=None), resamples=200)


def test_document_shape_follows_spec_section_10() -> None:
    doc = score_records(fixtures.records(), fixtures.priors(), options=TFIDF).as_dict()
    assert doc["schema"] == "mseval.score/1"
    assert {"mseval", "git", "tasks_hash", "priors_hash", "scorer"} <= set(doc["identity"])
    assert doc["identity"]["scorer"] == SCORER_VERSION
    assert {
        "missing": "zero",
        "utilities": "ratio",
        "hit_average": "micro",
        "embedder": "tfidf",
    }.items() <= doc["contract"].items()
    # The cost sentence names every token class PriceTable.call_cost charges at its own rate.
    for term in ("uncached input", "cached input", "cache-written input", "output tokens"):
        assert term in doc["contract"]["communication"]
    assert [(r["model"], r["variant"]) for r in doc["settings"]] == [("sim:test", "sa"), ("sim:test", "spec")]
    for row in doc["settings"]:
        assert list(row)[: len(SPEC_ROW_KEYS)] == SPEC_ROW_KEYS
    baseline = doc["settings"][0]
    assert all(baseline[key] is None for key in DELEGATION_FIELDS)
    assert baseline["baseline"] is None and doc["settings"][1]["baseline"] == "sa"


def test_setting_row_by_hand() -> None:
    """spec vs sa (see fixtures):
    SR = 3 ok / 4 episodes = 0.75 (orphan absent); conditional 3/3; coverage 3/4.
    UDR = 0/2 (need1, need2 delegated); ODR = 0/1. Units: need1 2+1 = 3 (3 hits), need2 1 (1 hit):
    P = 4/4, R = 4/4, F1 = 1. D_del = {need1, need2}: MAS wins 2, SA wins 1 → U_p = 2/3.
    D_del⁺ = {need1}: U_e = 10/(10+9) = 10/19; U_c = 1/(1+3) = 1/4.
    MSQ = 1 × (2/3 + 10/19 + 1/4)/3. Pairwise: U_p (½ + 1)/2 = 0.75, U_e 1, U_c 0.
    Taxonomy: need1 CES (fewer steps); need2 F2S; none1 CES (3 < 4 steps, cheaper, MAO);
    orphan left out (MAS absent). ΔSR paired over 4 pairs: (3 − 3)/4 = 0."""
    doc = score_records(fixtures.records(), fixtures.priors(), options=TFIDF)
    row = doc.settings[1]
    assert (row.tasks, row.episodes, row.absent, row.sr, row.sr_conditional, row.coverage) == (
        4,
        4,
        1,
        0.75,
        1.0,
        0.75,
    )
    assert (row.udr, row.odr, row.p_hit, row.r_hit, row.f1_hit) == (0.0, 0.0, 1.0, 1.0, 1.0)
    assert (row.d_del, row.d_del_plus) == (2, 1)
    assert row.u_p == pytest.approx(2 / 3)
    assert row.u_e == pytest.approx(10 / 19)
    assert row.u_c == pytest.approx(0.25)
    assert row.msq == pytest.approx((2 / 3 + 10 / 19 + 0.25) / 3)
    assert (row.u_p_pairwise, row.u_e_pairwise, row.u_c_pairwise) == (0.75, 1.0, 0.0)
    assert row.taxonomy == {"F2S": 1, "CES": 2, "S2F": 0, "CIS": 0, "AES": 0, "CIF": 0, "neutral": 0}
    assert row.taxonomy_reasons is not None and row.taxonomy_reasons["CES"]["MAO"] == 1
    assert row.sr_diff == 0.0
    assert row.mean_csteps == pytest.approx((9 + 5 + 3) / 3)
    assert row.counts.taxonomy_left_out == 1 and row.counts.mas_absent == 1
    assert row.simulated is True and row.ids_embedder == "tfidf"


def test_bootstrap_point_values_agree_with_the_row() -> None:
    """The per-task sums that the bootstrap resamples reproduce the row's values."""
    records, priors = fixtures.records(), fixtures.priors()
    row = score_records(records, priors, options=TFIDF).settings[1]
    mas = [r for r in records if r.variant == "spec"]
    sa = [r for r in records if r.variant == "sa"]
    point = point_values(task_terms(mas, sa, priors, make_labeler(None, None)))
    for name in ("u_p", "u_e", "u_c", "f1_hit", "msq", "sr_diff"):
        assert point[name] == pytest.approx(getattr(row, name)), name
    assert row.ci95 is not None
    for name, interval in row.ci95.items():
        assert interval is not None, name
        assert interval.low <= point[name] + 1e-9 and point[name] - 1e-9 <= interval.high, name  # type: ignore[operator]


def test_unknown_task_without_prior_is_counted_not_a_crash() -> None:
    records = fixtures.records() + [
        episode("mystery", "spec", waves=[[sub("x", "web-research")]]),
        episode("mystery", "sa"),
    ]
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    assert doc.left_out["tasks_without_prior"] == ["mystery", "orphan"]
    assert doc.settings[1].counts.no_prior == 1  # orphan's spec episode is absent, counted as such
    # the warning names them, as a typo in a trace's task id is then seen on stderr
    assert (
        "2 task(s) have no delegation prior and are left out of UDR, ODR and hits: mystery, orphan"
        in doc.warnings
    )
    many = [episode(f"t{i}", "sa") for i in range(7)]
    warnings = score_records(many, fixtures.priors(), options=TFIDF).warnings
    assert any(w.startswith("7 task(s)") and w.endswith(": t0, t1, t2, t3, t4, …") for w in warnings)


def test_missing_baseline_warns_and_nulls_the_comparison() -> None:
    records = [r for r in fixtures.records() if r.variant == "spec"]
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    row = doc.settings[0]
    assert row.baseline is None and row.u_p is None and row.msq is None and row.taxonomy is None
    assert row.f1_hit == 1.0  # delegation appropriateness needs no baseline
    assert any("no sa baseline" in w for w in doc.warnings)


def test_no_records_gives_an_empty_table() -> None:
    """... and says why: an empty records file printed a bare header, as if scored."""
    doc = score_records([], {}, options=TFIDF)
    assert doc.settings == [] and doc.left_out["absent_episodes"] == 0
    assert "no episode record to score: the input holds none (an empty file or store?)" in doc.warnings


def test_duplicates_are_left_out_and_counted() -> None:
    records = fixtures.records()
    doc = score_records(records + records[:2], fixtures.priors(), options=TFIDF)
    assert doc.left_out["duplicates"] == 2
    assert doc.settings[0].counts.duplicates == 2 and doc.settings[0].episodes == 4


SOURCES = {"need1.yaml": b"one", "need2.yaml": b"two", "none1.yaml": b"none"}


def test_runs_of_different_identity_are_warned_about() -> None:
    """Two runs with different tasks hashes: warned. The priors a run recorded are checked
    against the hash of the same tasks' priors here: run r1 matches, r2 (made before an edit) not."""
    runs = [
        {"run_id": "r1", "mseval": "0.1.0", "git": "abc", "tasks_hash": "t-one", "tasks": ["need1", "need2"],
         "priors_hash": hash_prior_sources(SOURCES, ["need1", "need2"]), "models": ["sim:test"]},
        {"run_id": "r2", "mseval": "0.1.0", "git": "def", "tasks_hash": "t-two", "tasks": ["none1"],
         "priors_hash": "stale", "models": ["sim:test"]},
    ]  # fmt: skip
    doc = score_records(
        fixtures.records(), fixtures.priors(), runs=runs, prior_sources=SOURCES, options=TFIDF
    )
    # r1 and r2 selected different tasks: said as such, not as tasks (or priors) that differ
    assert (
        "runs of different task selections in one table (2 selections of 1 and 2 tasks): a setting's row covers the tasks its runs selected"
        in doc.warnings
    )
    assert not any("their tasks differ" in w or "their priors differ" in w for w in doc.warnings)
    same = [{**run, "tasks": ["need1", "need2"]} for run in runs]  # one selection, edited tasks
    edited = score_records(
        fixtures.records(), fixtures.priors(), runs=same, prior_sources=SOURCES, options=TFIDF
    )
    assert any("their tasks differ (t-one, t-two)" in w for w in edited.warnings)
    assert [w for w in doc.warnings if "made with priors" in w] == [
        f"run r2 was made with priors stale but the priors scoring it hash to {hash_prior_sources(SOURCES, ['none1'])[:12]}…"
    ]
    assert doc.identity["git"] == ["abc", "def"]
    assert doc.identity["mseval"] == "0.1.0"
    assert doc.identity["priors_hash"] == hash_prior_sources(SOURCES)
    same = score_records(
        fixtures.records(), fixtures.priors(), runs=runs[:1], prior_sources=SOURCES, options=TFIDF
    )
    assert not any("identity" in w or "priors" in w for w in same.warnings)


def test_records_without_run_identities_give_their_price_version_and_models() -> None:
    """An export scored without its .runs.json showed `price_version: null` and no models,
    though every record names both."""
    records = [r.model_copy(update={"price_version": "2026-11-29.4"}) for r in fixtures.records()]
    records += [r.model_copy(update={"price_version": "2026-11-29.4"}) for r in fixtures.records("openai:x")]
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    assert doc.identity["price_version"] == "2026-11-29.4"
    assert doc.identity["models"] == ["openai:x", "sim:test"]
    assert not any("price" in w for w in doc.warnings)
    named = score_records(
        records, fixtures.priors(), runs=[{"price_version": "p1", "models": ["m"]}], options=TFIDF
    )
    assert named.identity["price_version"] == "p1" and named.identity["models"] == ["m"]


def test_costs_from_different_price_tables_are_warned_about() -> None:
    records = [r.model_copy(update={"price_version": "p1"}) for r in fixtures.records()]
    records[0] = records[0].model_copy(update={"price_version": "p2"})
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    assert doc.identity["price_version"] == ["p1", "p2"]
    assert "costs priced from different price tables are compared: price versions p1, p2" in doc.warnings


def test_priors_hash_covers_names_and_contents(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("task: a\nneed_delegation: false\n")
    first = priors_hash(tmp_path)
    assert first == priors_hash(tmp_path) and first is not None
    (tmp_path / "a.yaml").write_text("task: a\nneed_delegation: false\n# edited\n")
    assert priors_hash(tmp_path) != first
    assert priors_hash(tmp_path / "missing") is None


def test_llm_labels_replace_inferred_ones_and_agreement_is_reported() -> None:
    """Sub-agent x has no label; its tools say web-research, the LLM says course-records-lookup,
    which hits the prior's gold unit: R_hit 1 instead of 0."""
    record = episode("need2", waves=[[sub("x", tools=["mcp__web__search"])]])
    key = (("sim:test", "spec", "need2", 0), "x")
    plain = score_records([record], fixtures.priors(), options=TFIDF)
    assert plain.settings[0].r_hit == 0.0 and plain.tagging["sources"] == {"tools": 1}
    options = ScoreOptions(
        graph=GraphOptions(embedder=None),
        llm_labels={key: "course-records-lookup"},
        llm_agreement=Agreement(1, 0.0, None),
    )
    tagged = score_records([record], fixtures.priors(), options=options)
    assert tagged.settings[0].r_hit == 1.0
    assert tagged.tagging["tagger"] == "llm" and tagged.tagging["sources"] == {"llm": 1}
    assert tagged.tagging["llm_agreement"] == {"n": 1, "agreement": 0.0, "kappa": None}


def test_an_unparseable_llm_label_falls_back_to_the_deterministic_one() -> None:
    """Regression: an LLM answer naming no label (None) replaced the deterministic label.
    Sub-agent x called mcp__lms__list_enrollments: course-records-lookup, need2's gold unit, so
    R_hit = 1/1 with the fallback (it was 0 with None); the failure is counted and warned about."""
    record = episode("need2", waves=[[sub("x", tools=["mcp__lms__list_enrollments"])]])
    key = (("sim:test", "spec", "need2", 0), "x")
    options = ScoreOptions(graph=GraphOptions(embedder=None), llm_labels={key: None})
    doc = score_records([record], fixtures.priors(), options=options)
    assert doc.settings[0].r_hit == 1.0
    assert doc.tagging["sources"] == {"tools": 1} and doc.tagging["llm_unparsed"] == 1
    assert any("LLM tagger's answer named no label" in w for w in doc.warnings)


def test_foreign_verdicts_are_overruled_counted_and_warned_about() -> None:
    """Regression: score read absent and success from `status`/`success` alone.
    need2: MAS success true after step_limit → failure; SA success null → failure without a
    verdict. none1: MAS ended harness_error → absent; SA succeeded. Pairs need2 and none1:
    MAS wins 0, SA wins 1 → sr_diff = (0 − 1)/2 = −0.5 (it was (2 − 1)/2 = 0.5)."""
    records = [
        episode("need2", waves=[[sub("a", "course-records-lookup")]], termination="step_limit"),
        episode("none1", success=False, termination="harness_error"),
        episode("need2", "sa", success=None),
        episode("none1", "sa", termination="text_only"),
    ]
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    sa, mas = doc.settings
    assert (mas.sr, mas.absent, mas.counts.abnormal_success, mas.counts.no_verdict) == (0.0, 1, 1, 0)
    assert (sa.sr, sa.absent, sa.counts.abnormal_success, sa.counts.no_verdict) == (0.5, 0, 0, 1)
    assert mas.sr_diff == -0.5
    assert doc.left_out["absent_episodes"] == 1
    assert any("1 completed episode(s) have no verdict" in w for w in doc.warnings)
    # none1's MAS record gives success false though absent: not read, and said so
    assert (
        "1 absent episode(s) (status absent, or ended harness_error) give a verdict (success true or "
        "false): not read, as an absent episode never ran to one"
    ) in doc.warnings
    assert not any(
        "give a verdict" in w
        for w in score_records(fixtures.records(), fixtures.priors(), options=TFIDF).warnings
    )
    assert any(
        "1 episode(s) record success true after a termination that is not a normal one ('step_limit' 1" in w
        for w in doc.warnings
    )


def test_a_missing_baseline_record_is_left_out_with_one_warning() -> None:
    """Regression: a MAD-SAE episode with no SA record of its (task, seed) vanished from D_del,
    U_p, sr_diff and taxonomy with only counts.unpaired to show it. The arithmetic stays (the SA
    episode may not have been run): need1 and need2 delegated and succeeded; SA has need1 only
    (success) → D_del = 1, U_p = 1/(1+1) = 0.5, unpaired = 1; one warning says so. An SA record
    with status absent instead counts as a failure: D_del = 2, U_p = 2/(2+1) = 2/3, no warning."""
    mas = [
        episode("need1", waves=[[sub("a", "course-records-lookup")]]),
        episode("need2", waves=[[sub("a", "course-records-lookup")]]),
    ]
    doc = score_records([*mas, episode("need1", "sa")], fixtures.priors(), options=TFIDF)
    row = doc.settings[1]
    assert (row.d_del, row.u_p, row.counts.unpaired) == (1, 0.5, 1)
    unpaired = [w for w in doc.warnings if "no sa record of the same (task, seed)" in w]
    assert unpaired == [
        "1 episode(s) have no sa record of the same (task, seed) (sim:test/spec 1): left out of D_del, "
        "utilities, sr_diff and taxonomy (counts.unpaired), not counted as sa failures"
    ]
    absent = [episode("need1", "sa"), episode("need2", "sa", status="absent")]
    doc = score_records([*mas, *absent], fixtures.priors(), options=TFIDF)
    row = doc.settings[1]
    assert (row.d_del, row.u_p, row.counts.unpaired) == (2, 2 / 3, 0)
    assert not any("no sa record" in w for w in doc.warnings)


def test_ids_can_be_skipped_and_says_so() -> None:
    options = ScoreOptions(graph=GraphOptions(compute_ids=False), resamples=10)
    doc = score_records(fixtures.records(), fixtures.priors(), options=options)
    assert doc.settings[1].ids is None and doc.settings[1].ids_embedder is None
    assert doc.contract["embedder"].startswith("none")


def test_unpriced_episodes_and_disagreeing_critical_steps_are_warned_about() -> None:
    """Regression: with no price table (a local model) CIS could never be found and nothing said
    so; a foreign record's critical_steps (5, where S_main 4 + max(10, 2) = 14) was used silently."""
    records = [
        episode("need1", "sa", cost=None),
        episode(
            "need1",
            main_steps=4,
            waves=[[sub("a", steps=10), sub("b", steps=2)]],
            critical_steps=5,
            cost=None,
        ),
        episode("need2", "sa"),
        episode("need2", critical_steps=5),
    ]
    warnings = score_records(records, fixtures.priors(), options=TFIDF).warnings
    assert [w for w in warnings if "critical_steps" in w or "no cost" in w] == [
        "1 episode(s) record critical_steps other than S_main + the sum over waves of the longest "
        "sub-agent (SPEC §2) computed from their own steps: the recorded value is used",
        "2 completed episode(s) have no cost (sim:test; a model the price table lacks, which `mseval run "
        "--prices` can price, or a trace that gives none): mean cost and U_c leave them out, and the case "
        "taxonomy compares their pairs on critical steps alone, so none of them can be CIS (MAD strictly costlier)",
    ]


def test_runs_under_other_budgets_or_sampling_in_one_table_are_warned_about() -> None:
    """A store of two runs, one with max_steps=4, one with wall_time_s=0.5, scored the first's
    spec rows against the second's sa baseline without a word."""
    runs = [
        {
            "run_id": "r1",
            "budgets": {"max_steps": 4, "wall_time_s": 7200.0},
            "sampling": {"temperature": 0.0},
        },
        {"run_id": "r2", "budgets": {"max_steps": 100, "wall_time_s": 0.5}, "sampling": {"temperature": 0.0}},
    ]
    doc = score_records(fixtures.records(), fixtures.priors(), runs=runs, options=TFIDF)
    assert [w for w in doc.warnings if "runs with other" in w] == [
        "runs with other budgets in one table: max_steps 100, 4; wall_time_s 0.5, 7200.0"
    ]
    same = score_records(fixtures.records(), fixtures.priors(), runs=runs[:1] * 2, options=TFIDF)
    assert not any("runs with other" in w for w in same.warnings)


def test_what_a_foreign_trace_leaves_out_or_repeats_is_said() -> None:
    """A foreign trace's gaps were filled silently: no `main` (0 steps, U_e 0), no `seed` (seed 0,
    so seeds collapsed), a repeated line (the first kept), a termination of its own ('finished',
    called abnormal), labels outside the 24 (no hit): each now has a warning. The counts are of
    the records scored: the repeated line, left out, once counted a second time in each."""
    raw = episode("need1", "sa").model_dump(mode="json", by_alias=True)
    del raw["main"], raw["seed"]
    bare = EpisodeRecord.model_validate(raw)
    own = episode("need2", "sa", termination="finished")
    odd = episode("need1", waves=[[sub("a", "roster-reading")]])
    warnings = score_records([bare, bare, own, odd], fixtures.priors(), options=TFIDF).warnings
    assert [
        w for w in warnings if "'main'" in w or "'seed'" in w or "repeat" in w or "24" in w or "finished" in w
    ] == [
        "1 episode(s) record success true after a termination that is not a normal one ('finished' 1; "
        "normal: 'claim_done', 'text_only'): counted as failures",
        "1 record(s) repeat a (model, variant, task, seed) given earlier in the input: left out, the first "
        "kept (left_out.duplicates)",
        "1 completed record(s) have no 'main': their main agent counts 0 steps in CSteps",
        "1 record(s) have no 'seed': taken as seed 0, so they pair and repeat as such",
        "1 sub-agent label(s) are not among the 24 function labels ('roster-reading'): they hit no prior unit",
    ]


def test_the_intervals_do_not_depend_on_the_order_of_the_lines() -> None:
    records = fixtures.records()
    forward = score_records(records, fixtures.priors(), options=TFIDF)
    backward = score_records(list(reversed(records)), fixtures.priors(), options=TFIDF)
    assert forward.settings[1].ci95 == backward.settings[1].ci95


def test_records_without_turns_are_said_to_be_one_node() -> None:
    """IDS and UPR showed '—' for a trace without main.turns and nothing said why."""
    records = [
        episode("need1", "sa", turns=False),
        episode("need1", waves=[[sub("a", "course-records-lookup")]]),
        # a wave said to start at a step no turn has: counted too (only a missing main_step was)
        episode(
            "need2",
            main_steps=9,
            turns=[{"step": step} for step in range(1, 6)],
            waves=[[sub("a", "course-records-lookup")]],
            main_steps_of_waves=[9],
        ),
    ]
    warnings = score_records(records, fixtures.priors(), options=TFIDF).warnings
    assert [w for w in warnings if "main.turns" in w] == [
        "2 completed record(s) give no main.turns, or a wave without main_step: their main agent is one "
        "node of the agent graph, its sub-agents hanging off it (IDS and UPR are undefined without sub-agents)"
    ]


def test_the_document_does_not_depend_on_the_order_of_the_records() -> None:
    """Float means are summed exactly (math.fsum): costs 0.1, 0.2, 0.3 summed in that order are
    0.6000000000000001, in the reverse order 0.6, so the same export in another order (a JSONL
    sorted differently, rows of another store) gave means differing in their last digit."""
    records = [
        episode(task, variant, seed=0, cost=cost, success=task != "t3")
        for variant in ("sa", "spec")
        for task, cost in (("t1", 0.1), ("t2", 0.2), ("t3", 0.3))
    ]
    options = ScoreOptions(graph=GraphOptions(embedder=None))
    forward = score_records(records, {}, options=options)
    assert [row.mean_cost_usd for row in forward.settings] == [0.6 / 3, 0.6 / 3]  # fsum: 0.6 exactly
    assert score_records(records[::-1], {}, options=options).to_json() == forward.to_json()
