"""The 'Intro to Machine Learning' description keeps its text and lists the three most cited LLM-agent
papers; the video has the two new tags besides its old ones."""

from harness.checks import Criterion, World
from mcp_servers.video.catalog import CHANNELS

TITLE = "Intro to Machine Learning"


def check(world: World) -> list[Criterion]:
    video = world.query(
        """SELECT v.description, v.tags, c.handle, c.title AS channel, c.description AS about
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
    desc = video["description"]
    head, _, tail = desc.partition("Further reading:")
    lines = [ln.strip() for ln in tail.strip().splitlines() if ln.strip()]
    old_tags = next(tags for handle, *_rest, tags, _topics in CHANNELS if handle == "@codecraft")
    tags = {t.strip().lower() for t in video["tags"].split(",")}
    must = {*old_tags, TITLE.lower().split()[0], "machine learning", "llm agents"}
    return [
        Criterion.of(
            "original kept", head.strip() == original, f"the description no longer starts with {original!r}"
        ),
        Criterion.of(
            "further reading",
            lines == wanted,
            f"the lines after 'Further reading:' are {lines}; expected {wanted}",
        ),
        Criterion.of("tags", must <= tags, f"tags are {sorted(tags)}; missing {sorted(must - tags)}"),
    ]
