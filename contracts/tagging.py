"""Deterministic function tagging of a sub-agent (SPEC §6), shared by runtime and evaluation.

A sub-agent is labelled from what it did: from the labels of the tools it called (a writable
sub-agent that wrote takes the most frequent label of its writes; otherwise the most frequent
label of its reads), falling back to keyword rules over its sub-task text. Ties go to the
label seen first. The harness labels its own sub-agents from the exact labels in its tools'
MCP metadata; evaluation labels foreign traces, finding tool labels by name when needed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from contracts.labels import READ_ONLY_LABELS, WRITABLE_LABELS

# Sub-task text keywords → label, per mode; the label with most matching keywords wins, ties
# going to the earlier rule (more specific rules come first).
TEXT_RULES: dict[str, list[tuple[str, str]]] = {
    "writable": [
        ("cloud-sheet-write", r"google sheets?|gsheets?|cloud sheets?|online sheets?"),
        ("spreadsheet-build", r"xlsx|excel|spreadsheets?|workbooks?"),
        ("document-build", r"docx|word documents?|documents?|reports?|memo"),
        ("slide-build", r"pptx|slides?|decks?|presentations?|powerpoint"),
        ("email-send", r"e-?mails?|mail|send|reply|notify"),
        ("calendar-write", r"calendars?|events?|meetings?|schedule"),
        ("wiki-write", r"wiki|notion|pages?"),
        ("file-build", r"pdf|csv|scripts?|text files?|files?|markdown"),
        ("record-update", r"grades?|orders?|bookings?|book|update|records?|menus?|enrol\w*|stock"),
    ],
    "read-only": [
        ("planning", r"plan\w*|decompos\w*|break down|strategy"),
        ("verification", r"verif\w*|check\w*|validat\w*|review the deliverable|confirm"),
        ("paper-reading", r"full text|read (the )?papers?|pages of|paper content"),
        ("literature-search", r"papers?|literature|arxiv|authors?|citations?|scholar\w*"),
        ("course-records-lookup", r"courses?|rosters?|students?|assignments?|submissions?|grades?|enrol\w*"),
        ("enterprise-data-query", r"sales|hr|finance|warehouse|sql|quer\w*|employees?|revenue"),
        ("commerce-records-lookup", r"products?|stock|customers?|orders?|coupons?|reviews?|shop"),
        ("market-data-fetch", r"tickers?|prices?|financials|market|shares?|news"),
        ("video-platform-lookup", r"videos?|channels?|playlists?|comments?|views"),
        ("railway-schedule-lookup", r"trains?|stations?|timetables?|seats?|tickets?|railway"),
        ("recipe-catalog-lookup", r"recipes?|ingredients?|nutrition|menus?|catering|dishes"),
        ("web-research", r"web|websites?|online|urls?|browse|internet"),
        ("workflow-records-lookup", r"e-?mails?|inbox|calendars?|wiki|notion|sheets?"),
        ("workspace-inspection", r"workspace|files?|folders?|directory|inspect"),
        ("data-analysis", r"analy\w*|compute|aggregate|compare|statistics?|calculate|summari[sz]e"),
    ],
}
_TEXT_PATTERNS = {
    mode: [(label, re.compile(rf"\b(?:{pattern})\b")) for label, pattern in rules]
    for mode, rules in TEXT_RULES.items()
}


def most_common_first(labels: Sequence[str]) -> str | None:
    """The most frequent label; ties go to the one seen first."""
    if not labels:
        return None
    counts = Counter(labels)
    best = max(counts.values())
    return next(label for label in labels if counts[label] == best)


def label_from_calls(mode: str, labels: Sequence[str]) -> str | None:
    """From the labels of the tools called, in call order: a writable sub-agent takes the label
    of its writes when it made any (its function is the deliverable, not the reading)."""
    if mode == "writable":
        chosen = [label for label in labels if label in WRITABLE_LABELS] or list(labels)
    else:
        chosen = [label for label in labels if label in READ_ONLY_LABELS] or list(labels)
    return most_common_first(chosen)


def label_from_text(mode: str, text: str) -> str | None:
    """Keyword rules over the sub-task text, for the sub-agent's mode; None when none matches."""
    lowered = text.lower()
    best: tuple[int, str] | None = None
    for label, pattern in _TEXT_PATTERNS["writable" if mode == "writable" else "read-only"]:
        hits = len(pattern.findall(lowered))
        if hits and (best is None or hits > best[0]):
            best = (hits, label)
    return best[1] if best else None


def tag(mode: str, labels: Sequence[str], text: str) -> str | None:
    """The function label of one sub-agent run: from its calls, else from its text."""
    return label_from_calls(mode, labels) or label_from_text(mode, text)
