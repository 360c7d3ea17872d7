"""Deterministic function tagging of sub-agents (SPEC §6).

Order: the record's own `label` (the harness writes one); else the labels of the tools the
sub-agent called — through the tool→label map the harness supplies from its MCP tool metadata,
then name heuristics — where a writable sub-agent takes the label of its writes; else keyword
rules over its sub-task text. The result names its source so reports can say how many
labels were inferred.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from contracts import SubagentRecord
from contracts.tagging import label_from_calls
from contracts.tagging import label_from_text as text_label

TagSource = Literal["record", "tools", "text", "none"]

# Tools that say nothing about a sub-agent's function (bookkeeping, not work).
_NEUTRAL_TOOLS = frozenset({"todo_write", "todo_read", "claim_done"})

_WRITE_VERB = re.compile(
    r"(^|_)(create|update|delete|remove|send|write|add|set|insert|append|edit|draft|reply|book|"
    r"cancel|post|put|modify|grade|save|upload|place|enroll|move|rename|publish|schedule|submit)(_|$)"
)

# Server → (read label, write label); None where the server has no such side.
_SERVER_LABELS: dict[str, tuple[str | None, str | None]] = {
    "lms": ("course-records-lookup", "record-update"),
    "warehouse": ("enterprise-data-query", None),
    "shop": ("commerce-records-lookup", "record-update"),
    "market": ("market-data-fetch", None),
    "video": ("video-platform-lookup", "record-update"),
    "railway": ("railway-schedule-lookup", "record-update"),
    "scholar": ("literature-search", None),
    "kitchen": ("recipe-catalog-lookup", "record-update"),
    "excel": ("workspace-inspection", "spreadsheet-build"),
    "word": ("workspace-inspection", "document-build"),
    "pptx": ("workspace-inspection", "slide-build"),
    "mail": ("workflow-records-lookup", "email-send"),
    "calendar": ("workflow-records-lookup", "calendar-write"),
    "wiki": ("workflow-records-lookup", "wiki-write"),
    "sheets": ("workflow-records-lookup", "cloud-sheet-write"),
    "web": ("web-research", None),
    "terminal": ("workspace-inspection", "file-build"),
}

# Bare tool-name keywords for tools of unknown servers (e.g. `send_email`), checked in order.
_NAME_RULES: list[tuple[str, str | None, str | None]] = [
    (r"email|mail|inbox", "workflow-records-lookup", "email-send"),
    (r"calendar|event|meeting", "workflow-records-lookup", "calendar-write"),
    (r"wiki|notion|page_block|database", "workflow-records-lookup", "wiki-write"),
    (r"gsheet|google_sheet|cloud_sheet|sheet_values", "workflow-records-lookup", "cloud-sheet-write"),
    (r"xlsx|excel|workbook|spreadsheet", "workspace-inspection", "spreadsheet-build"),
    (r"docx|word|document", "workspace-inspection", "document-build"),
    (r"pptx|slide|presentation|deck", "workspace-inspection", "slide-build"),
    (r"pdf|csv|file", "workspace-inspection", "file-build"),
    (r"full_?text|read_paper|paper_page", "paper-reading", None),
    (r"paper|arxiv|author|citation|scholar", "literature-search", None),
    (r"course|enrol|student|assignment|submission|grade", "course-records-lookup", "record-update"),
    (r"sql|warehouse|sales|payroll|finance", "enterprise-data-query", None),
    (
        r"product|stock_level|inventory|order|coupon|review|customer",
        "commerce-records-lookup",
        "record-update",
    ),
    (r"ticker|price|financials|market|quote", "market-data-fetch", None),
    (r"video|channel|playlist|comment", "video-platform-lookup", "record-update"),
    (r"train|station|timetable|seat|ticket|booking", "railway-schedule-lookup", "record-update"),
    (r"recipe|ingredient|nutrition|menu|catering", "recipe-catalog-lookup", "record-update"),
    (r"web|browse|search_web|fetch_url|url", "web-research", None),
    (r"python|execute|calc|analy", "data-analysis", "file-build"),
    (r"list_dir|list_files|read_file|^ls$|^cat$|workspace", "workspace-inspection", "file-build"),
]


@dataclass(frozen=True)
class Tag:
    label: str | None
    source: TagSource


def split_tool_name(tool: str) -> tuple[str | None, str]:
    """`mcp__server__tool` → (server, tool); a bare name → (None, name)."""
    parts = tool.split("__")
    if len(parts) >= 3 and parts[0] == "mcp":
        return parts[1], "__".join(parts[2:])
    return None, tool


def tool_label(tool: str, tool_labels: Mapping[str, str] | None = None) -> str | None:
    """The function label of one tool: the supplied map first, then name heuristics."""
    if tool_labels:
        _, name = split_tool_name(tool)
        for key in (tool, name):
            if key in tool_labels:
                return tool_labels[key]
    return heuristic_tool_label(tool)


def heuristic_tool_label(tool: str) -> str | None:
    """A label from the tool's server and name alone; None for bookkeeping tools."""
    server, name = split_tool_name(tool)
    name = name.lower()
    if name in _NEUTRAL_TOOLS:
        return None
    writes = bool(_WRITE_VERB.search(name))
    if name == "python_execute":
        return "data-analysis"
    if server == "scholar" and re.search(r"full_?text|read|page", name):
        return "paper-reading"
    if server in _SERVER_LABELS:
        read_label, write_label = _SERVER_LABELS[server]
        return (write_label or read_label) if writes else (read_label or write_label)
    for pattern, read_label, write_label in _NAME_RULES:
        if re.search(pattern, name):
            return (write_label or read_label) if writes else read_label
    return None


def label_from_tools(sub: SubagentRecord, tool_labels: Mapping[str, str] | None = None) -> str | None:
    """The most frequent label among the sub-agent's tool calls (ties: the first called).

    A writable sub-agent takes the label of its writes when it made any: its function is
    the deliverable, not the reading it did to build it.
    """
    labels = [label for label in (tool_label(t, tool_labels) for t in sub.tools) if label is not None]
    return label_from_calls(sub.mode, labels)


def label_from_text(sub: SubagentRecord) -> str | None:
    """Keyword rules over the sub-task text (description and prompt), for the sub-agent's mode."""
    return text_label(sub.mode, f"{sub.description} {sub.prompt or ''}")


def tag_subagent(sub: SubagentRecord, tool_labels: Mapping[str, str] | None = None) -> Tag:
    """The deterministic function label of one sub-agent, with where it came from."""
    if sub.label:
        return Tag(sub.label, "record")
    label = label_from_tools(sub, tool_labels)
    if label is not None:
        return Tag(label, "tools")
    label = label_from_text(sub)
    if label is not None:
        return Tag(label, "text")
    return Tag(None, "none")
