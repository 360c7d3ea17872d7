"""Deterministic function tagging of a sub-agent (SPEC §6).

A sub-agent is labelled from what it did: a writable sub-agent that wrote something takes the
most frequent label of its successful writes; otherwise the most frequent label of the tools it
read with; with no labelled tool call at all, its sub-task text decides by keyword rules. Ties
go to the label seen first. The harness writes the result into each sub-agent's record; scoring
tags only records that lack a label.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

# Ordered: the first rule whose pattern matches the text gives the label.
TEXT_RULES: tuple[tuple[str, str], ...] = (
    (r"\b(plan|decompos|break down|strategy)", "planning"),
    (r"\b(verif|check|validat|review|confirm)", "verification"),
    (r"\b(e-?mail|mail|notify|send)", "email-send"),
    (r"\b(calendar|event|meeting|schedule a)", "calendar-write"),
    (r"\b(wiki|notion|page)", "wiki-write"),
    (r"\b(google sheet|cloud sheet|gsheet)", "cloud-sheet-write"),
    (r"\b(xlsx|excel|spreadsheet|workbook)", "spreadsheet-build"),
    (r"\b(docx|word document|report document|memo)", "document-build"),
    (r"\b(pptx|slide|deck|presentation)", "slide-build"),
    (r"\b(csv|pdf|script|file)", "file-build"),
    (
        r"\b(grade|order|refund|booking|book|menu|playlist|enroll)\w* (update|change|create|cancel|set|record)",
        "record-update",
    ),
    (r"\b(course|roster|student|enrol|assignment|grade)", "course-records-lookup"),
    (r"\b(warehouse|sales|revenue|hr|payroll|finance|sql)", "enterprise-data-query"),
    (r"\b(product|customer|order|coupon|review|stock level|inventory)", "commerce-records-lookup"),
    (r"\b(ticker|stock|price|market|share|earnings)", "market-data-fetch"),
    (r"\b(video|channel|playlist|views|comment)", "video-platform-lookup"),
    (r"\b(train|station|railway|timetable|seat|ticket)", "railway-schedule-lookup"),
    (r"\b(read|full text|section)\b.*\bpaper", "paper-reading"),
    (r"\b(paper|literature|citation|author|arxiv|survey)", "literature-search"),
    (r"\b(recipe|ingredient|nutrition|catering|dish)", "recipe-catalog-lookup"),
    (r"\b(web|site|url|online|search the)", "web-research"),
    (r"\b(workspace|folder|directory|files?)\b", "workspace-inspection"),
    (r"\b(inbox|calendar|wiki|sheet)", "workflow-records-lookup"),
)
DEFAULT_LABEL = "data-analysis"


def most_common(labels: Sequence[str]) -> str | None:
    if not labels:
        return None
    counts = Counter(labels)
    best = max(counts.values())
    return next(label for label in labels if counts[label] == best)


def label_from_text(text: str) -> str:
    lowered = text.lower()
    for pattern, label in TEXT_RULES:
        if re.search(pattern, lowered):
            return label
    return DEFAULT_LABEL


def tag(mode: str, read_labels: Sequence[str], write_labels: Sequence[str], text: str) -> str:
    """The function label of one sub-agent run."""
    if mode == "writable" and write_labels:
        return most_common(write_labels) or DEFAULT_LABEL
    return most_common(read_labels) or most_common(write_labels) or label_from_text(text)
