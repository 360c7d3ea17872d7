"""The two most cited 2026 multi-agent-evaluation papers missing from 'Delegation survey' were added
with the note, nothing else was added or removed, and Emeka got their titles (and no other candidate's
but those already on the list)."""

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail

LIST = "Delegation survey"
SEEDED_ON = "2026-11-02"  # the seed adds the list's original papers on this day
MAILED = {"emeka.kaur@company.example"}  # the only recipients the task has


def others_changed(world: World) -> list[str]:
    """Changes other than papers added to 'Delegation survey' (which ones is checked on its own), besides the mail."""
    listed = {r["id"] for r in world.rows("scholar_reading_list", name=LIST)}
    return world.changes(
        "scholar",
        "mail",
        allow={
            "scholar_reading_list_item": new_rows("list_id", listed),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    items = world.query(
        """SELECT i.paper_id, i.note, i.added_on FROM scholar_reading_list_item i
           JOIN scholar_reading_list l ON l.id = i.list_id WHERE l.name = :name""",
        name=LIST,
    )
    seeded = {i["paper_id"] for i in items if i["added_on"] == SEEDED_ON}
    added = {i["paper_id"]: i["note"] for i in items if i["added_on"] != SEEDED_ON}
    candidates = world.query(
        """SELECT id, title, citation_count FROM scholar_paper WHERE topic = 'multi-agent evaluation' AND year = 2026
           ORDER BY citation_count DESC, id"""
    )
    fresh = [c for c in candidates if c["id"] not in seeded]
    want = {c["id"]: c["title"] for c in fresh[:2]}
    # The two must be strictly ahead of the rest, so the pick is unambiguous.
    assert fresh[1]["citation_count"] > fresh[2]["citation_count"]
    mails = sent_mail(world.engine, to="emeka.kaur@company.example", subject_contains="two additions")
    body = " ".join(m.body for m in mails).lower()
    # the mail gives the two added titles and no other candidate's, which it would claim was added; a
    # paper already on the list may be named (as one that was not added again)
    claimed = [
        c["title"]
        for c in candidates
        if c["id"] not in want and c["id"] not in seeded and c["title"].lower() in body
    ]
    return [
        Criterion.of(
            "original papers kept", len(seeded) == 4, f"{len(seeded)} of the 4 original papers remain"
        ),
        Criterion.of(
            "the two papers added", set(added) == set(want), f"added {sorted(added)}, expected {sorted(want)}"
        ),
        Criterion.of(
            "notes",
            all(str(n).strip().lower() == "most cited of 2026" for n in added.values()),
            f"notes are {list(added.values())}",
        ),
        Criterion.of(
            "mail to Emeka",
            bool(mails) and all(t.lower() in body for t in want.values()),
            "no mail to Emeka naming both titles",
        ),
        Criterion.of("no other title in the mail", not claimed, f"the mail also names {claimed}"),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, MAILED),
    ]
