"""Near-miss solutions: a task's gold solution changed in one way a careless agent might, which
its check must fail. `test_near_misses.py` replays each on a fresh world; each scenario's are in `<scenario>.py` here.

A near miss is written against the gold calls' JSON: `replace` substitutes literal text in
it (a wrong figure, recipient, name), `drop` leaves out the calls to some tools (a missing
deliverable), `extra` appends calls after the gold ones (damage, duplicates), and `mail_early`
sends the first mail with an attachment right after its file was created, before the calls that
fill the file in (the recipient gets an empty document; the workspace file ends up complete).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from harness.catalog import Solution, Task, load_tasks


@dataclass(frozen=True)
class NearMiss:
    task: str
    why: str
    replace: tuple[tuple[str, str], ...] = ()
    drop: tuple[str, ...] = ()
    extra: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    mail_early: bool = False

    def apply(self, task: Task) -> Task:
        data = task.solution.model_dump()
        if self.mail_early:
            _mail_before_filled(data)
        for sub in data["subtasks"]:
            sub["calls"] = [c for c in sub["calls"] if c["tool"] not in self.drop]
        text = json.dumps(data, ensure_ascii=False)
        for old, new in self.replace:
            assert old in text, f"{self.task}: {old!r} is not in the gold solution"
            text = text.replace(old, new)
        data = json.loads(text)
        data["subtasks"][-1]["calls"] += [{"tool": t, "arguments": a} for t, a in self.extra]
        return replace(task, solution=Solution.model_validate(data))


def mails_someone_else(
    task: str, why: str, to: str = "jade.dubois@company.example", body: str = "FYI"
) -> NearMiss:
    """The gold solution, then one more mail to someone the task does not name."""
    mail = {"to": [to], "subject": "FYI", "body": body}
    return NearMiss(task, why, extra=(("mcp__mail__send_message", mail),))


CREATE_FILE = ("mcp__word__create_document", "mcp__pptx__create_deck", "mcp__excel__create_workbook")


def _mail_before_filled(data: dict[str, Any]) -> None:
    """Move the first mail with attachments to right after the call that created the last of its files."""
    calls = [(sub, c) for sub in data["subtasks"] for c in sub["calls"]]
    sub, mail = next(
        (s, c)
        for s, c in calls
        if c["tool"] == "mcp__mail__send_message" and c["arguments"].get("attachments")
    )
    files = set(mail["arguments"]["attachments"])
    at, create = [
        (s, c) for s, c in calls if c["tool"] in CREATE_FILE and c["arguments"].get("path") in files
    ][-1]
    sub["calls"].remove(mail)
    at["calls"].insert(at["calls"].index(create) + 1, mail)
    data["subtasks"] = [s for s in data["subtasks"] if s["calls"]]


@cache
def _gold(task: str) -> list[dict[str, Any]]:
    (t,) = load_tasks(task)
    return [c for sub in t.solution.model_dump()["subtasks"] for c in sub["calls"]]


def gold_call(task: str, tool: str, **args: Any) -> str:
    """The JSON text of the gold call to `tool` whose arguments include `args` (to move it with `replace`)."""
    (found,) = [
        c
        for c in _gold(task)
        if c["tool"] == tool and all(c["arguments"].get(k) == v for k, v in args.items())
    ]
    return json.dumps(found, ensure_ascii=False)


def twice(task: str, tool: str, what: str, **args: Any) -> NearMiss:
    """The gold solution, then its call to `tool` (whose arguments include `args`) once more: a
    duplicate, as two sub-agents that both did the same step would leave."""
    call = json.loads(gold_call(task, tool, **args))
    return NearMiss(task, f"{what} created twice", extra=((call["tool"], call["arguments"]),))


def reorder(fragments: list[str], order: list[int]) -> tuple[tuple[str, str], ...]:
    """Replacements that put fragments[order[i]] where fragments[i] was."""
    marks = [f"@@{i}@@" for i in range(len(fragments))]
    return (
        *zip(fragments, marks, strict=True),
        *((marks[i], fragments[j]) for i, j in enumerate(order)),
    )


SCENARIOS = ("lms", "edw", "ec", "sm", "vp", "rs", "ar", "fc")


def near_misses() -> list[NearMiss]:
    """Every scenario module's `MISSES` (one module per scenario, `near_misses/<scenario>.py`)."""
    found: list[NearMiss] = []
    for scenario in SCENARIOS:
        module = importlib.import_module(f"{__name__}.{scenario}")
        found += module.MISSES
    return found


def stray_spreadsheet(task: str, why: str) -> NearMiss:
    """The gold solution with its cloud spreadsheet created twice, the first one (id 6) left empty
    and unshared and the second (id 7) filled in and shared: a duplicate, as a sub-agent that
    started the sheet over would leave."""
    create = gold_call(task, "mcp__sheets__create_spreadsheet")
    return NearMiss(
        task, why, replace=((create, f"{create}, {create}"), ('"spreadsheet_id": 6', '"spreadsheet_id": 7'))
    )
