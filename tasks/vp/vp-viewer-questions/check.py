"""Every open viewer question on Cook with Mara's four latest public videos got the channel's exact reply,
and only those; the top-level wiki backlog lists them under a heading per video; Victor got a mail with the
count."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail
from mcp_servers.video.catalog import QUESTIONS

TODAY = "2026-11-20"
PAGE = "Cook with Mara Q&A backlog"
REPLY = "Great question! Mara will answer it in the viewer Q&A video next week."
WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
MAILED = {"victor.moreau@company.example"}  # the only recipients the task has


def open_questions(world: World) -> dict[int, dict]:
    """Visible top-level questions on the four latest public videos without an owner reply before today."""
    videos = world.query(
        """SELECT v.id, v.title FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
           WHERE c.handle = '@cookwithmara' AND v.visibility = 'public' ORDER BY v.published_at DESC LIMIT 4"""
    )
    found = {}
    for v in videos:
        for c in world.query(
            """SELECT c.id, c.author_handle, c.body FROM video_comments c
               WHERE c.video_id = :vid AND c.parent_id IS NULL AND NOT c.hidden AND NOT EXISTS (
                 SELECT 1 FROM video_comments r
                 WHERE r.parent_id = c.id AND r.is_channel_owner AND r.posted_at < :today)""",
            vid=v["id"],
            today=TODAY,
        ):
            if c["body"] in QUESTIONS:
                found[c["id"]] = {**c, "video": v["title"]}
    return found


def states_count(text: str, n: int, noun: str) -> bool:
    """`n` stands as a count of `noun` ('10 questions', 'ten open viewer questions', 'questions: 10')."""
    num = rf"(?:{n}|{WORDS[n]})" if n < len(WORDS) else str(n)
    before = rf"(?<![\w.,-]){num}\s+(?:[a-z][\w'-]*\s+){{0,3}}{noun}\b"
    after = rf"\b{noun}(?:(?:\s+[a-z]+){{0,3}}\s*(?:[:=]|\bis\b|\bwas\b|\bof\b))?\s*{num}(?![\w,]|\.\d)"
    return bool(re.search(before, text, re.I) or re.search(after, text, re.I))


def _bullet_ok(text: str, cid: int, c: dict) -> bool:
    """'<comment id> | <author handle> | <question text>' for comment `cid`."""
    parts = [p.strip().strip("*`_").strip() for p in text.split("|", 2)]
    return (
        len(parts) == 3
        and parts[0] == str(cid)
        and parts[1].lstrip("@") == c["author_handle"].lstrip("@")
        and parts[2].strip("\"'“”") == c["body"]
    )


def others_changed(world: World) -> list[str]:
    """Changes other than the channel's replies (to which comments is checked on its own) with the comment
    counts they raise, and the backlog page with its blocks, besides the mail."""
    pages = {
        r["id"] for r in world.query("SELECT id FROM wiki_page WHERE lower(trim(title)) = lower(:t)", t=PAGE)
    }
    return world.changes(
        "video",
        "wiki",
        "mail",
        allow={
            "video_comments": lambda seeded, final: seeded is None,
            "video_videos": lambda seeded, final: {"comment_count"},
            "wiki_page": new_rows("id", pages),
            "wiki_block": new_rows("page_id", pages),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    expected = open_questions(world)
    replies = world.query(
        "SELECT parent_id, body FROM video_comments WHERE is_channel_owner AND posted_at >= :today",
        today=TODAY,
    )
    answered = {r["parent_id"] for r in replies if r["body"].strip() == REPLY}
    stray = sorted({r["parent_id"] for r in replies} - set(expected))
    out = [
        Criterion.of(
            "questions answered",
            set(expected) <= answered,
            f"open questions without today's reply {REPLY!r}: {sorted(set(expected) - answered)}",
        ),
        Criterion.of("no other replies", not stray, f"replies posted today to other comments: {stray}"),
        Criterion.of(
            "one reply each",
            len(replies) == len(expected),
            f"{len(replies)} replies posted today for {len(expected)} questions",
        ),
    ]
    pages = world.query("SELECT id, parent_id FROM wiki_page WHERE title = :t AND NOT archived", t=PAGE)
    if not pages:
        out.append(Criterion("wiki page", False, f"no wiki page '{PAGE}'"))
    else:
        page = pages[-1]
        # one page: a second copy of the backlog is clutter on the wiki
        out.append(Criterion.of("one page", len(pages) == 1, f"{len(pages)} pages titled '{PAGE}'"))
        out.append(
            Criterion.of(
                "top-level page",
                page["parent_id"] is None,
                f"'{PAGE}' is under page {page['parent_id']}, not at the top level",
            )
        )
        blocks = world.query(
            "SELECT type, text FROM wiki_block WHERE page_id = :p ORDER BY position", p=page["id"]
        )
        heading = None  # the text of the last heading above each bullet
        bullets: list[tuple[str | None, str]] = []
        for b in blocks:
            if b["type"].startswith("heading"):
                heading = b["text"]
            elif b["type"] in ("bulleted_list_item", "numbered_list_item"):
                bullets.append((heading, b["text"]))
        listed = {
            i
            for i, c in expected.items()
            if any(
                h is not None and c["video"].lower() in h.lower() and _bullet_ok(text, i, c)
                for h, text in bullets
            )
        }
        out.append(
            Criterion.of(
                "wiki bullets",
                listed == set(expected) and len(bullets) == len(expected),
                f"{len(bullets)} bullets for {len(expected)} questions; not listed as '<id> | <handle> | "
                f"<question>' under their video's heading: {sorted(set(expected) - listed)}",
            )
        )
    mails = sent_mail(world.engine, to="victor.moreau@company.example", subject_contains=PAGE)
    out.append(
        Criterion.of(
            "mail",
            any(states_count(m.body, len(expected), "questions?") for m in mails),
            f"no '{PAGE}' mail to Victor saying {len(expected)} questions ({len(mails)} found)",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
