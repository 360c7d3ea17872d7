"""Deterministic function tagging and the optional LLM tagger's agreement."""

from __future__ import annotations

import pytest

from contracts import SubagentRecord
from evaluation.llm_tagger import Agreement, agreement, cohen_kappa, llm_tag, parse_label, tagging_prompt
from evaluation.tagging import heuristic_tool_label, label_from_text, tag_subagent
from tests.evaluation.builders import episode, sub


def make(label: str | None = None, **kw: object) -> SubagentRecord:
    return SubagentRecord.model_validate(sub("s", label, **kw))  # type: ignore[arg-type]


def test_the_records_label_wins() -> None:
    tag = tag_subagent(make("slide-build", tools=["mcp__lms__list_students"]))
    assert (tag.label, tag.source) == ("slide-build", "record")


def test_the_supplied_tool_map_comes_before_heuristics() -> None:
    tools = {"mcp__lms__list_students": "enterprise-data-query"}
    assert tag_subagent(make(tools=["mcp__lms__list_students"]), tools).label == "enterprise-data-query"
    assert tag_subagent(make(tools=["mcp__lms__list_students"])).label == "course-records-lookup"
    # A map keyed by bare tool names works too.
    assert tag_subagent(make(tools=["mcp__x__lookup"]), {"lookup": "web-research"}).label == "web-research"


@pytest.mark.parametrize(
    ("tool", "label"),
    [
        ("send_email", "email-send"),
        ("mcp__mail__send_email", "email-send"),
        ("mcp__mail__list_messages", "workflow-records-lookup"),
        ("mcp__scholar__read_fulltext", "paper-reading"),
        ("mcp__scholar__search_papers", "literature-search"),
        ("mcp__excel__create_workbook", "spreadsheet-build"),
        ("mcp__railway__book_ticket", "record-update"),
        ("mcp__local__python_execute", "data-analysis"),
        ("mcp__local__todo_write", None),
        ("create_calendar_event", "calendar-write"),
        ("get_stock_price", "market-data-fetch"),
        ("frobnicate", None),
    ],
)
def test_tool_name_heuristics(tool: str, label: str | None) -> None:
    assert heuristic_tool_label(tool) == label


def test_a_writable_sub_agent_takes_the_label_of_its_writes() -> None:
    """Three reads of the LMS, one write to a workbook: spreadsheet-build."""
    tools = ["mcp__lms__list_students"] * 3 + ["mcp__excel__write_cells"]
    assert tag_subagent(make(mode="writable", tools=tools)).label == "spreadsheet-build"
    # Read-only: the most frequent label; on a tie the first called.
    assert tag_subagent(make(tools=["mcp__web__fetch", "mcp__lms__get_course"])).label == "web-research"
    assert (
        tag_subagent(make(tools=["mcp__web__fetch", "mcp__lms__a", "mcp__lms__b"])).label
        == "course-records-lookup"
    )


def test_sub_task_text_is_the_last_resort() -> None:
    writable = make(mode="writable", description="Build the Enrollment.xlsx workbook")
    assert (tag_subagent(writable).label, tag_subagent(writable).source) == ("spreadsheet-build", "text")
    assert label_from_text(make(description="Plan the delegation of the task")) == "planning"
    assert (
        label_from_text(make(description="Read the roster of each course", prompt="list students"))
        == "course-records-lookup"
    )
    unknown = tag_subagent(make(description="zzz"))
    assert (unknown.label, unknown.source) == (None, "none")


def test_cohen_kappa_by_hand() -> None:
    """LLM [A A B B] vs deterministic [A B B B]: p_o = 3/4;
    p_e = (2·1 + 2·3)/16 = 1/2; kappa = (3/4 − 1/2)/(1 − 1/2) = 1/2."""
    assert cohen_kappa(["A", "A", "B", "B"], ["A", "B", "B", "B"]) == pytest.approx(0.5)
    assert cohen_kappa(["A", "A"], ["A", "A"]) is None  # chance agreement is total
    assert cohen_kappa([], []) is None


def test_parse_label() -> None:
    assert parse_label(" Course-Records-Lookup. ") == "course-records-lookup"
    assert parse_label("Label: literature-search, since it searches") == "literature-search"
    assert parse_label("no idea") is None


async def test_llm_tagger_agreement_with_the_deterministic_tagger() -> None:
    """Deterministic labels (from tools): C, W, L, L. The scripted model answers C, C, L, L.
    Agreement 3/4; p_e = (2·1 + 0·1 + 2·2)/16 = 6/16; kappa = (0.75 − 0.375)/0.625 = 0.6.
    The labelled sub-agent is not asked."""
    record = episode(
        "t",
        waves=[
            [
                sub("s1", tools=["mcp__lms__list_students"], description="one"),
                sub("s2", tools=["mcp__web__search"], description="two"),
                sub("s3", tools=["mcp__scholar__search_papers"], description="three"),
                sub("s4", tools=["mcp__scholar__search_papers"], description="four"),
                sub("s5", "planning", description="five"),
            ]
        ],
    )
    answers = {
        "one": "course-records-lookup",
        "two": "course-records-lookup",
        "three": "Label: literature-search.",
        "four": "literature-search",
    }
    asked: list[str] = []

    async def scripted(prompt: str) -> str:
        asked.append(prompt)
        return next(answer for key, answer in answers.items() if f"Description: {key}\n" in prompt)

    tagging = await llm_tag([record], scripted)
    assert len(asked) == 4
    assert tagging.agreement.n == 4
    assert tagging.agreement.agreement == 0.75
    assert tagging.agreement.kappa == pytest.approx(0.6)
    key = ("sim:test", "spec", "t", 0)
    assert tagging.labels[(key, "s2")] == "course-records-lookup"


def test_prompt_offers_only_labels_of_the_mode() -> None:
    prompt = tagging_prompt(make(mode="writable", description="x"))
    assert "spreadsheet-build" in prompt and "course-records-lookup" not in prompt
    assert agreement([], []).agreement is None


async def test_answers_naming_no_label_never_agree() -> None:
    """Regression (audit): the LLM named no label for either sub-agent; the deterministic tagger
    named none for s1 ("zzz", no tools) and web-research for s2. None == None counted as
    agreement: 1/2, kappa 0. An answer naming no label disagrees: agreement 0/2 = 0.
    Kappa treats "no label" as a category that matches nothing, its own or the other tagger's:
    p_o = 0; p_e = Σ over labels both named = 0 (the LLM named none) → kappa (0 − 0)/(1 − 0) = 0.
    (Counting None·None in p_e alone, as the audit's −1 did, is no kappa: see the next test.)"""
    record = episode(
        "t",
        waves=[[sub("s1", description="zzz"), sub("s2", tools=["mcp__web__search"], description="two")]],
    )

    async def scripted(_prompt: str) -> str:
        return "no idea"

    tagging = await llm_tag([record], scripted)
    assert tagging.agreement == Agreement(2, 0.0, 0.0)


def test_kappa_by_hand_when_labels_are_missing() -> None:
    """[∅ ∅ A A] vs [∅ ∅ A A]: only the two A's agree, p_o = 2/4; p_e = (2·2)/16 = 1/4 (∅ is
    no shared category) → kappa = (1/2 − 1/4)/(3/4) = 1/3 (it was 1, with ∅ = ∅).
    [∅×9 A] vs [∅×9 B]: p_o = 0, p_e = 0 → kappa 0; with ∅·∅ in p_e but not in p_o it would be
    (0 − 81/100)/(19/100) ≈ −4.26, outside kappa's [−1, 1]. Both tagged nothing: p_o = p_e = 0 → 0."""
    assert cohen_kappa([None, None, "A", "A"], [None, None, "A", "A"]) == pytest.approx(1 / 3)
    assert agreement([None, None, "A", "A"], [None, None, "A", "A"]).agreement == 0.5
    assert cohen_kappa([None] * 9 + ["A"], [None] * 9 + ["B"]) == 0.0
    assert cohen_kappa([None, None], [None, None]) == 0.0
