"""Every open viewer question on Cook with Mara's four latest public videos got the channel's reply, and
only those; the wiki backlog lists them; Victor got a mail with the count."""

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail
from mcp_servers.video.catalog import QUESTIONS

TODAY = "2026-11-20"
PAGE = "Cook with Mara Q&A backlog"


def open_questions(world: World) -> dict[int, dict]:
    """Visible top-level questions on the four latest public videos without an owner reply before today."""
    videos = world.query(
        """SELECT v.id FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
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
                found[c["id"]] = c
    return found


def check(world: World) -> list[Criterion]:
    expected = open_questions(world)
    replies = world.query(
        "SELECT parent_id, body FROM video_comments WHERE is_channel_owner AND posted_at >= :today",
        today=TODAY,
    )
    answered = {r["parent_id"] for r in replies if "q&a video" in r["body"].lower()}
    stray = sorted({r["parent_id"] for r in replies} - set(expected))
    out = [
        Criterion.of(
            "questions answered",
            set(expected) <= answered,
            f"open questions without today's reply: {sorted(set(expected) - answered)}",
        ),
        Criterion.of("no other replies", not stray, f"replies posted today to other comments: {stray}"),
        Criterion.of(
            "one reply each",
            len(replies) == len(expected),
            f"{len(replies)} replies posted today for {len(expected)} questions",
        ),
    ]
    pages = world.query("SELECT id FROM wiki_page WHERE title = :t AND NOT archived", t=PAGE)
    if not pages:
        out.append(Criterion("wiki page", False, f"no wiki page '{PAGE}'"))
    else:
        blocks = world.query(
            "SELECT type, text FROM wiki_block WHERE page_id = :p ORDER BY position", p=pages[-1]["id"]
        )
        bullets = [b["text"] for b in blocks if b["type"] in ("bulleted_list_item", "numbered_list_item")]
        listed = {
            i for i, c in expected.items()
            if any(b.split("|")[0].strip() == str(i) and c["author_handle"] in b for b in bullets)
        }  # fmt: skip
        out.append(
            Criterion.of(
                "wiki bullets",
                listed == set(expected) and len(bullets) == len(expected),
                f"{len(bullets)} bullets; missing questions {sorted(set(expected) - listed)}",
            )
        )
    mails = sent_mail(world.engine, to="victor.moreau@company.example", subject_contains="Q&A backlog")
    out.append(
        Criterion.of(
            "mail",
            any(str(len(expected)) in m.body for m in mails),
            f"no 'Q&A backlog' mail to Victor giving the {len(expected)} questions ({len(mails)} found)",
        )
    )
    return out
