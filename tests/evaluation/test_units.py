"""Function units (collapsing within a wave) and the order-preserving wave alignment."""

from __future__ import annotations

from evaluation.units import (
    deterministic_labeler,
    normalize_subtask,
    run_units,
    unit_labels,
    wave_alignment_hits,
)
from tests.evaluation.builders import episode, sub

LABELER = deterministic_labeler()


def members(record_waves: list) -> list[list[tuple[str, ...]]]:
    return [[u.members for u in wave] for wave in record_waves]


def test_near_identical_subtasks_with_the_same_label_collapse_into_one_unit() -> None:
    """'Read the roster of course A.' and 'read roster of course A' differ only in case,
    punctuation and an article: one unit. 'course B' is another sub-task: its own unit."""
    record = episode(
        "t",
        waves=[
            [
                sub("a1", "course-records-lookup", description="Read the roster of course A."),
                sub("a2", "course-records-lookup", description="read roster of course A"),
                sub("a3", "course-records-lookup", description="read roster of course B"),
            ]
        ],
    )
    assert members(run_units(record, LABELER)) == [[("a1", "a2"), ("a3",)]]


def test_same_subtask_with_different_labels_stays_two_units() -> None:
    record = episode(
        "t",
        waves=[
            [sub("a1", "course-records-lookup", description="x"), sub("a2", "web-research", description="x")]
        ],
    )
    assert members(run_units(record, LABELER)) == [[("a1",), ("a2",)]]


def test_swarm_items_share_a_description_but_differ_in_prompt() -> None:
    """An AgentSwarm gives one description to every item; the prompts differ: 3 units."""
    record = episode(
        "t",
        waves=[
            [
                sub(f"p{i}", "paper-reading", description="read papers", prompt=f"Read paper {i}")
                for i in range(3)
            ]
        ],
    )
    assert len(run_units(record, LABELER)[0]) == 3


def test_a_resumed_sub_agent_collapses_with_its_other_run_in_the_same_wave() -> None:
    """b2 resumes a1 (an earlier wave) and b3 resumes a1 too: in wave 1 they are one unit,
    whatever their descriptions; units never span waves, so a1 stays a unit of wave 0."""
    record = episode(
        "t",
        waves=[
            [sub("a1", "literature-search", description="search RAG papers")],
            [
                sub("b2", "literature-search", description="continue the search", resume_of="a1"),
                sub("b3", "literature-search", description="search more", resume_of="a1"),
                sub("b4", "literature-search", description="search agents papers"),
            ],
        ],
    )
    assert members(run_units(record, LABELER)) == [[("a1",)], [("b2", "b3"), ("b4",)]]


def test_resume_chains_reach_the_first_run() -> None:
    """c resumes b, which resumed a: c and b collapse with a second resume of a in wave 2."""
    record = episode(
        "t",
        waves=[
            [sub("a", "web-research")],
            [sub("b", "web-research", resume_of="a")],
            [
                sub("c", "web-research", resume_of="b", description="one"),
                sub("d", "web-research", resume_of="a", description="two"),
            ],
        ],
    )
    assert members(run_units(record, LABELER))[2] == [("c", "d")]


def test_no_delegation_has_no_units() -> None:
    assert run_units(episode("t", waves=[]), LABELER) == []
    assert run_units(episode("t", waves=[[]]), LABELER) == []


def test_normalisation_is_narrow() -> None:
    assert normalize_subtask("  The Roster, of course A! ") == "roster of course a"
    assert normalize_subtask("course A") != normalize_subtask("course B")
    assert normalize_subtask("A plan for course A") == "plan for course a"


def test_a_language_name_keeps_its_plus_and_hash() -> None:
    """Regression: every punctuation mark went, so "Port it to C++" and "Port it to C#" were
    both "port it to c", one unit with "Port it to C". "+" and "#" right after a word stay;
    elsewhere they go like any mark ("summary #3" is "summary 3")."""
    texts = ["Port it to C++", "Port it to C#", "Port it to C.", "Port it to F#!"]
    assert [normalize_subtask(t) for t in texts] == [
        "port it to c++",
        "port it to c#",
        "port it to c",
        "port it to f#",
    ]
    assert (
        normalize_subtask("Summary #3 + notes") == normalize_subtask("summary 3, notes") == "summary 3 notes"
    )


def test_normaliser_is_case_insensitive_for_articles() -> None:
    """Regression: articles were stripped before lower-casing, so "THE" survived and a lower-case
    trailing "a" did not. Lower case first, then an article is a/an/the before a word."""
    assert normalize_subtask("Read THE roster") == normalize_subtask("read the roster") == "read roster"
    assert (
        normalize_subtask("roster of course a")
        == normalize_subtask("roster of course A")
        == "roster of course a"
    )
    assert normalize_subtask("AN Apple for course A.") == "apple for course a"
    record = episode(
        "t",
        waves=[
            [
                sub("a1", "course-records-lookup", description="Read THE roster of course A"),
                sub("a2", "course-records-lookup", description="read the roster of course a"),
            ]
        ],
    )
    assert members(run_units(record, LABELER)) == [[("a1", "a2")]]


def test_alignment_is_order_preserving() -> None:
    """Gold [L] then [S]; run [S] then [L]. Aligning both pairs would cross, so the best
    order-preserving alignment takes one of them: hits = 1."""
    assert wave_alignment_hits([["L"], ["S"]], [["S"], ["L"]]) == 1


def test_alignment_counts_multiset_overlap() -> None:
    """Gold wave {L, L, P}; run wave {L, P, P, W}: min(2,1) + min(1,2) = 2 hits."""
    assert wave_alignment_hits([["L", "L", "P"]], [["L", "P", "P", "W"]]) == 2


def test_alignment_skips_extra_run_waves_and_finds_the_best() -> None:
    """Gold: [L, L] [S]. Run: [L] [L, L] [X] [S].
    Best: gold 0 ↔ run 1 (2 hits), gold 1 ↔ run 3 (1 hit) = 3 (not gold 0 ↔ run 0 = 1)."""
    assert wave_alignment_hits([["L", "L"], ["S"]], [["L"], ["L", "L"], ["X"], ["S"]]) == 3


def test_alignment_is_one_to_one() -> None:
    """Gold: one wave [L, L]; run: [L] [L]. A gold wave aligns with one run wave only: 1 hit."""
    assert wave_alignment_hits([["L", "L"]], [["L"], ["L"]]) == 1


def test_unlabelled_units_never_hit() -> None:
    assert wave_alignment_hits([["L"]], [[None]]) == 0
    assert wave_alignment_hits([], [["L"]]) == 0
    assert wave_alignment_hits([["L"]], []) == 0


def test_unit_labels_of_a_record() -> None:
    record = episode(
        "t", waves=[[sub("a", "planning")], [sub("b", "slide-build"), sub("c", "spreadsheet-build")]]
    )
    assert unit_labels(run_units(record, LABELER)) == [["planning"], ["slide-build", "spreadsheet-build"]]


def test_empty_subtask_texts_are_not_the_same_subtask() -> None:
    """Regression: two sub-agents with the same label and no sub-task text (empty description,
    no prompt) collapsed into one unit, as their empty texts compared equal. Nothing says they
    did the same sub-task: 2 units. Text that normalises to nothing ("...") says nothing either.
    An empty description with equal prompts still collapses (the prompt names the sub-task),
    and so does a resume of the same agent."""
    empty = {"description": ""}
    record = episode(
        "t",
        waves=[
            [sub("a1", "paper-reading") | empty, sub("a2", "paper-reading") | empty],
            [sub("b1", "paper-reading", description="..."), sub("b2", "paper-reading") | empty],
            [
                sub("c1", "paper-reading", prompt="Read paper 1") | empty,
                sub("c2", "paper-reading", prompt="read paper 1.") | empty,
            ],
            [sub("d1", "paper-reading") | empty, sub("d2", "paper-reading", resume_of="d1") | empty],
        ],
    )
    assert members(run_units(record, LABELER)) == [
        [("a1",), ("a2",)],
        [("b1",), ("b2",)],
        [("c1", "c2")],
        [("d1", "d2")],
    ]
