"""Planned episodes without a record count absent; the runs a score covers (evaluation.planned)."""

from __future__ import annotations

from evaluation.planned import planned_without_record
from evaluation.process import GraphOptions
from evaluation.scoring import ScoreOptions, score_records
from tests.evaluation import fixtures
from tests.evaluation.builders import episode, sub

TFIDF = ScoreOptions(graph=GraphOptions(embedder=None), resamples=200)
NOT_RUN_WARNING = (
    "1 planned episode(s) have no record ({where}): their run stopped (or is still running) before "
    "they finished, or they were left out of the export; counted absent (failures, lower coverage). "
    "`mseval run --resume` with the same settings runs them"
)


def test_runs_without_episodes_in_the_table_are_ignored() -> None:
    """A store keeps superseded runs; only runs that records name take part."""
    records = [r.model_copy(update={"run_id": "r1"}) for r in fixtures.records()]
    runs = [{"run_id": "r0", "tasks_hash": "old"}, {"run_id": "r1", "tasks_hash": "new"}]
    doc = score_records(records, fixtures.priors(), runs=runs, options=TFIDF)
    assert not any("differ" in w for w in doc.warnings)
    assert [run["run_id"] for run in doc.identity["runs"]] == ["r1"]


def test_planned_episodes_without_a_record_count_absent() -> None:
    """Regression: a run stopped part way scored as complete over the episodes that finished
    (spec: 11 of 48 done gave SR 1.0, coverage 1.0, no warning). The run planned need1, need2 ×
    sa, spec × 1 seed; sa finished both, spec need1 only (success) → spec: episodes 2, absent 1,
    SR = 1/2, conditional SR 1/1, coverage 1/2, and one warning. Without a run identity nothing
    is known to be missing: spec episodes 1, SR 1.0."""
    records = [
        episode("need1", "sa"),
        episode("need2", "sa"),
        episode("need1", waves=[[sub("a", "course-records-lookup")]]),
    ]
    runs = [
        {"run_id": "r1", "matrix": ["sim:test/sa", "sim:test/spec"], "tasks": ["need1", "need2"], "seeds": 1}
    ]
    doc = score_records(records, fixtures.priors(), runs=runs, options=TFIDF)
    sa, spec = doc.settings
    assert (sa.episodes, sa.absent, sa.sr) == (2, 0, 1.0)
    assert (spec.episodes, spec.absent, spec.sr, spec.sr_conditional, spec.coverage) == (2, 1, 0.5, 1.0, 0.5)
    assert [w for w in doc.warnings if "planned" in w] == [NOT_RUN_WARNING.format(where="sim:test/spec 1")]
    doc = score_records(records, fixtures.priors(), options=TFIDF)
    assert (doc.settings[1].episodes, doc.settings[1].sr) == (1, 1.0)
    assert not any("planned" in w for w in doc.warnings)


def test_a_run_whose_records_use_other_seed_values_is_not_filled_in() -> None:
    """A foreign identity's `seeds: 3` beside records of seeds 42-44 made 6 phantom absent episodes."""
    records = [episode("need1", v, seed=s) for v in ("sa", "spec") for s in (42, 43, 44)]
    runs = [{"run_id": "r", "matrix": ["sim:test/sa", "sim:test/spec"], "tasks": ["need1"], "seeds": 3}]
    doc = score_records(records, fixtures.priors(), runs=runs, options=TFIDF)
    assert [r.absent for r in doc.settings] == [0, 0] and not any("planned" in w for w in doc.warnings)


def test_a_planned_run_without_any_record_counts_absent() -> None:
    """Regression (audit r2): runs.json lists r1 (sim:test/sa × need1) and r2 (sim:test/spec ×
    need1), one seed each; only r1's sa episode has a record. r2 was dropped before its planned
    episodes were filled in (no record names it), so spec had no row at all. As a run stopped part
    way already is: spec episodes 1, absent 1, SR 0/1 = 0, conditional SR 0/0 = null, coverage
    0/1 = 0, the usual warning, and r2 is among the runs the score names."""
    records = [episode("need1", "sa").model_copy(update={"run_id": "r1"})]
    runs = [
        {"run_id": "r1", "matrix": ["sim:test/sa"], "tasks": ["need1"], "seeds": 1},
        {"run_id": "r2", "matrix": ["sim:test/spec"], "tasks": ["need1"], "seeds": 1},
    ]
    doc = score_records(records, fixtures.priors(), runs=runs, options=TFIDF)
    sa, spec = doc.settings
    assert (sa.variant, sa.episodes, sa.absent, sa.sr) == ("sa", 1, 0, 1.0)
    assert (spec.variant, spec.episodes, spec.absent, spec.sr) == ("spec", 1, 1, 0.0)
    assert (spec.sr_conditional, spec.coverage, spec.u_p, spec.msq) == (None, 0.0, None, None)
    assert [w for w in doc.warnings if "planned" in w] == [NOT_RUN_WARNING.format(where="sim:test/spec 1")]
    assert doc.left_out["absent_episodes"] == 1
    assert [run["run_id"] for run in doc.identity["runs"]] == ["r1", "r2"]


def test_a_missing_episode_is_laid_to_a_run_the_records_come_from() -> None:
    """r0, an older run of the same matrix that recorded nothing (a store keeps it), and r1 both
    plan spec × need1; r1 recorded sa only. The absent spec episode is r1's, so r0 is not drawn
    into the identity (or its warnings) by it: runs [r1]."""
    records = [episode("need1", "sa").model_copy(update={"run_id": "r1"})]
    plan = {"matrix": ["sim:test/sa", "sim:test/spec"], "tasks": ["need1"], "seeds": 1}
    runs = [{"run_id": "r0", **plan}, {"run_id": "r1", **plan}]
    [absent] = planned_without_record(records, runs)
    assert (absent.variant, absent.status, absent.run_id) == ("spec", "absent", "r1")
    doc = score_records(records, fixtures.priors(), runs=runs, options=TFIDF)
    assert [run["run_id"] for run in doc.identity["runs"]] == ["r1"]
    assert doc.settings[1].absent == 1
