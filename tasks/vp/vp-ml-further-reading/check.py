"""The 'Intro to Machine Learning' description keeps its text, then a blank line, 'Further reading:' and the
three most cited LLM-agent papers; the video has the two new tags besides its old ones; no other video
was changed."""

from harness.checks import Criterion, World, nothing_else_changed
from mcp_servers.video.catalog import CHANNELS

TITLE = "Intro to Machine Learning"


def others_changed(world: World, video_id: int) -> list[str]:
    """Changes other than the description and tags of the one video."""
    return world.changes(
        "video",
        "scholar",
        allow={
            "video_videos": lambda seeded, final: (
                {"description", "tags", "updated_at"}
                if seeded is not None and seeded["id"] == video_id
                else False
            ),
        },
    )


def check(world: World) -> list[Criterion]:
    video = world.query(
        """SELECT v.id, v.description, v.tags, c.handle, c.title AS channel, c.description AS about
           FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
           WHERE v.title = :t AND c.handle = '@codecraft'""",
        t=TITLE,
    )[0]
    original = f"{TITLE}. {video['about']} New videos every week on {video['channel']}."
    papers = world.query(
        """SELECT title, venue, year FROM scholar_paper WHERE topic = 'llm agents'
           ORDER BY citation_count DESC, id LIMIT 3"""
    )
    wanted = [f"- {p['title']} ({p['venue']} {p['year']})" for p in papers]
    desc = "\n".join(ln.rstrip() for ln in video["description"].replace("\r\n", "\n").split("\n"))
    # the original text, a blank line, then 'Further reading:' on a line of its own
    head, found, tail = desc.partition("\nFurther reading:")
    lines = [ln.strip() for ln in tail.strip().splitlines() if ln.strip()]
    old_tags = next(tags for handle, *_rest, tags, _topics in CHANNELS if handle == "@codecraft")
    tags = {t.strip().lower() for t in video["tags"].split(",")}
    must = {*old_tags, TITLE.lower().split()[0], "machine learning", "llm agents"}
    return [
        Criterion.of(
            "original kept",
            bool(found) and head.strip() == original,
            f"the description no longer starts with {original!r}",
        ),
        Criterion.of(
            "blank line",
            bool(found) and head == original + "\n" and tail.startswith("\n"),
            "expected the original text, a blank line, then the line 'Further reading:'",
        ),
        Criterion.of(
            "further reading",
            lines == wanted,
            f"the lines after 'Further reading:' are {lines}; expected {wanted}",
        ),
        Criterion.of("tags", must <= tags, f"tags are {sorted(tags)}; missing {sorted(must - tags)}"),
        nothing_else_changed(others_changed(world, video["id"])),
    ]
