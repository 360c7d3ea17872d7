"""Near misses of the vp tasks (see __init__.py)."""

from __future__ import annotations

import json

from tests.harness.near_misses import NearMiss, gold_call, mails_someone_else, stray_spreadsheet, twice

NL = "\\n"  # a line break as it appears in the JSON of the gold calls
REPLY = "Great question! Mara will answer it in the viewer Q&A video next week."

MISSES: list[NearMiss] = [
    # vp-launch-tracker
    NearMiss(
        "vp-launch-tracker",
        "day-1 views off by 70 (8070 for 8000)",
        replace=(('"2026-11-11", 8000', '"2026-11-11", 8070'),),
    ),
    NearMiss(
        "vp-launch-tracker",
        "day-1 watch minutes 100900 (true 100085)",
        replace=(('"2026-11-11", 8000, 100085', '"2026-11-11", 8000, 100900'),),
    ),
    NearMiss(
        "vp-launch-tracker",
        "totals rounded (44500/556000/2400/124 for 44080/551464/2381/123)",
        replace=(('["Total", 44080, 551464, 2381, 123]', '["Total", 44500, 556000, 2400, 124]'),),
    ),
    NearMiss(
        "vp-launch-tracker",
        "the Total row above the daily rows instead of below them",
        replace=(
            (', ["Total", 44080, 551464, 2381, 123]', ""),
            (
                '"Subscribers Gained"], ',
                '"Subscribers Gained"], ["Total", 44080, 551464, 2381, 123], ',
            ),
        ),
    ),
    # vp-autumn-channel-review
    NearMiss(
        "vp-autumn-channel-review",
        "Summary October views of @techunboxed 168900 (true 167275)",
        replace=(("167275", "168900"),),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "Summary October watch minutes of @techunboxed 1624000 (true 1608309)",
        replace=(("1608309", "1624000"),),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "a wrong duplicate @techunboxed Summary row before the right one",
        replace=(
            (
                '["@techunboxed", 5, 167275, 1608309]',
                '["@techunboxed", 6, 170000, 1700000], ["@techunboxed", 5, 167275, 1608309]',
            ),
        ),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "a made-up fourth channel row in Summary",
        replace=(
            (
                '["@fitwithleo", 4, 52467, 458167]',
                '["@fitwithleo", 4, 52467, 458167], ["@cookwithmara", 3, 1000, 9000]',
            ),
        ),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "Summary without its header row",
        replace=(('["Channel", "Videos", "October Views", "October Watch Minutes"], ', ""),),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "a video's title wrong in its channel sheet",
        replace=(('"E-Reader Face-Off", "2026-04-01"', '"E-Reader Shootout", "2026-04-01"'),),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "a channel slide's table without its header row",
        replace=(('"rows": [["Title", "October Views"], ["E-Reader', '"rows": [["E-Reader'),),
    ),
    # vp-best-of-playlist
    NearMiss(
        "vp-best-of-playlist",
        "the mail says 4 videos (true 5)",
        replace=(("with its 5 public videos", "with its 4 public videos"),),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "the mail says 15 videos (true 5)",
        replace=(("with its 5 public videos", "with its 15 public videos"),),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "the mail gives no count; a 5 appears only elsewhere",
        replace=(("with its 5 public videos of 2026", "with the public videos of 2026 (top 5 first)"),),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "a video also added to the channel's other playlist 'Start Here'",
        extra=(("mcp__video__add_to_playlist", {"playlist_id": 8, "video_id": "QHknsqwMWJK"}),),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "the mail's subject is not the one asked for",
        replace=(('"subject": "Fit with Leo: Best of 2026 playlist"', '"subject": "Best of 2026"'),),
    ),
    # vp-spam-sweep
    NearMiss(
        "vp-spam-sweep",
        "also hid a spam and a non-spam comment on the 6th most viewed public video (out of scope)",
        extra=(
            ("mcp__video__hide_comment", {"comment_id": 1331, "reason": "spam"}),
            ("mcp__video__hide_comment", {"comment_id": 1302, "reason": "spam"}),
        ),
    ),
    NearMiss(
        "vp-spam-sweep",
        "the mail gives only the total, no per-video counts",
        replace=(
            (
                f"today:{NL}- E-Reader Face-Off (6zsZ10jqo03): 7{NL}- Ultralight Laptop Review (_4weKX7OcoP): 2"
                f"{NL}- Best Webcams of the Year (Lr7lDRxF2Tg): 2{NL}- Mechanical Keyboards Explained (B5RlgQpfPFj): 1"
                f"{NL}- Noise-Cancelling Earbuds Compared (k-Si0v8AWEg): 1{NL}",
                f"today.{NL}",
            ),
        ),
    ),
    NearMiss(
        "vp-spam-sweep",
        "a wrong per-video count in the mail (6 for 7)",
        replace=(("(6zsZ10jqo03): 7", "(6zsZ10jqo03): 6"),),
    ),
    NearMiss(
        "vp-spam-sweep",
        "the mail's total is wrong (12 for 13)",
        replace=(("I hid 13 spam comments", "I hid 12 spam comments"),),
    ),
    NearMiss(
        "vp-spam-sweep",
        "a logged comment's text is not the comment",
        replace=(('"@chenbauer", "sub4sub anyone?? I always sub back"', '"@chenbauer", "spam"'),),
    ),
    # vp-viewer-questions
    NearMiss(
        "vp-viewer-questions",
        "no per-video headings on the wiki page",
        replace=(("## ", ""),),
    ),
    NearMiss(
        "vp-viewer-questions",
        "the questions listed under the wrong videos' headings",
        replace=(
            ("## Mushroom Risotto", "## @@swap"),
            ("## Best Banana Bread", "## Mushroom Risotto"),
            ("## @@swap", "## Best Banana Bread"),
        ),
    ),
    NearMiss(
        "vp-viewer-questions",
        "a bullet's question text replaced",
        replace=(("@amaratorres | How long did this take you in total?", "@amaratorres | (question)"),),
    ),
    NearMiss(
        "vp-viewer-questions",
        "the page nested under Operations instead of top level",
        replace=(
            (
                '{"title": "Cook with Mara Q&A backlog", "markdown"',
                '{"title": "Cook with Mara Q&A backlog", "parent_id": 18, "markdown"',
            ),
        ),
    ),
    NearMiss(
        "vp-viewer-questions",
        "the reply is not the exact text asked for",
        replace=((REPLY, "Thanks! We will cover this in the Q&A video."),),
    ),
    NearMiss(
        "vp-viewer-questions",
        "the mail gives no count of questions; a 10 appears only elsewhere",
        replace=(
            (
                "I answered the 10 open viewer questions",
                "I answered the open viewer questions of the last 10 days",
            ),
        ),
    ),
    # vp-ml-further-reading
    NearMiss(
        "vp-ml-further-reading",
        "no blank line before 'Further reading:'",
        replace=((f"CodeCraft Academy.{NL}{NL}Further reading:", f"CodeCraft Academy.{NL}Further reading:"),),
    ),
    NearMiss(
        "vp-ml-further-reading",
        "another CodeCraft video's description changed too",
        extra=(
            (
                "mcp__video__update_video",
                {
                    "video_id": "Ydd00fgXu0V",
                    "description": "Debugging Like a Pro. Further reading: see below.",
                },
            ),
        ),
    ),
]


def _hide(comment_id: int) -> str:
    return gold_call("vp-spam-sweep", "mcp__video__hide_comment", comment_id=comment_id)


def _reply(comment_id: int) -> str:
    return gold_call("vp-viewer-questions", "mcp__video__reply_to_comment", comment_id=comment_id)


TACOS = (1166, 1103, 1079, 1068)  # the open questions on Weeknight Tacos, the fourth latest public video

MISSES += [
    # Traps: rows a condition of the prompt leaves out, which the seed holds on purpose.
    NearMiss(
        "vp-spam-sweep",
        "the unlisted 'Budget Phone Showdown' (third by views) swept instead of the fifth public video",
        replace=(
            (
                _hide(358),
                ", ".join(
                    f'{{"tool": "mcp__video__hide_comment", "arguments": {{"comment_id": {c}, "reason": "spam"}}}}'
                    for c in (30, 79, 100)
                ),
            ),
        ),
    ),
    NearMiss(
        "vp-autumn-channel-review",
        "the unlisted 'Regular Expressions Made Easy' counted on the codecraft sheet and in Summary",
        replace=(
            (
                '"2026-07-24", 6036, 165106, 324]',
                '"2026-07-24", 6036, 165106, 324], ["TVm-3RwFihO", "Regular Expressions Made Easy", "2026-05-26", 3017, 113809, 96]',
            ),
            ('["@codecraft", 4, 47538, 555785]', '["@codecraft", 5, 50555, 669594]'),
        ),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "the unlisted 'Pull-Up Progression' in the playlist too",
        replace=(
            ('"ltnjW7ZWu0u"]', '"ltnjW7ZWu0u", "UXq3LMfTgoA"]'),
            ("with its 5 public videos of 2026", "with its 6 videos of 2026"),
        ),
    ),
    NearMiss(
        "vp-viewer-questions",
        "the private draft 'Sunday Meal Prep' taken as one of the four latest: Weeknight Tacos' questions left out",
        replace=(
            *((", " + _reply(c), "") for c in TACOS),
            (
                f"{NL}{NL}## Weeknight Tacos (FvDB6v4xWpa){NL}{NL}- 1166 | @larazhang | Could you do a follow-up on this?"
                f"{NL}- 1103 | @benrossi | What camera do you use for these shots?{NL}- 1079 | @yusufwagner | Does this "
                f"work for beginners too?{NL}- 1068 | @milanpetrov2 | Does this work for beginners too?",
                "",
            ),
            ("I answered the 10 open viewer questions", "I answered the 6 open viewer questions"),
        ),
    ),
    NearMiss(
        "vp-viewer-questions",
        "also replies to a Weeknight Tacos question the channel had answered already",
        extra=(("mcp__video__reply_to_comment", {"comment_id": 1160, "body": REPLY}),),
    ),
    NearMiss(
        "vp-ml-further-reading",
        "the three most cited papers of any topic, not of 'llm agents'",
        replace=(
            (
                "- Towards Calibrated Multi-Step Tool Use with Task Decomposition (ICLR 2021)",
                "- ChainTune-Pro: Rethinking Video-Language Grounding for Video Question Answering (ICCV 2019)",
            ),
            (
                "- Revisiting Task Decomposition: Lessons from Spreadsheet Automation (ICML 2021)",
                "- Faithful Video-Language Grounding for Document Parsing (CVPR 2019)",
            ),
            (
                "- On the Limits of Tool-Using Language Agents in Travel Planning (arXiv 2021)",
                "- PrismNet: Compositional Repository-Level Code Completion for Code Translation (ACL 2019)",
            ),
        ),
    ),
]

MISSES += [
    NearMiss(
        "vp-autumn-channel-review",
        "November's 'Clean Code Habits' (after the window) listed on the codecraft sheet with no October figures",
        replace=(
            (
                '"2026-07-24", 6036, 165106, 324]',
                '"2026-07-24", 6036, 165106, 324], ["xnkzwSyyJmh", "Clean Code Habits", "2026-11-11", 0, 0, 0]',
            ),
            ('["@codecraft", 4, 47538, 555785]', '["@codecraft", 5, 47538, 555785]'),
        ),
    ),
    NearMiss(
        "vp-best-of-playlist",
        "a 2025 video ('No-Equipment Core Workout') in the playlist too",
        replace=(
            ('"ltnjW7ZWu0u"]', '"ltnjW7ZWu0u", "Y7RZn-HAoip"]'),
            ("with its 5 public videos of 2026", "with its 6 public videos"),
        ),
    ),
]

MISSES += [
    # audit F7: other playlists stay as seeded, removals included
    NearMiss(
        "vp-best-of-playlist",
        "also removes a video from the channel's 'Start Here' playlist",
        extra=(("mcp__video__remove_from_playlist", {"playlist_id": 8, "video_id": "7kMGWCVLOP7"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "vp-spam-sweep",
        "also replies to a viewer's comment",
        extra=(("mcp__video__reply_to_comment", {"comment_id": 1523, "body": "Thanks for watching!"}),),
    ),
    NearMiss(
        "vp-spam-sweep",
        "also mails the log to someone else",
        extra=(
            (
                "mcp__mail__send_message",
                {
                    "to": ["victor.moreau@company.example"],
                    "subject": "Spam sweep",
                    "body": "The sweep is done.",
                },
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "vp-autumn-channel-review",
        "also replies to a viewer's comment",
        extra=(("mcp__video__reply_to_comment", {"comment_id": 1523, "body": "Thanks for watching!"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "vp-launch-tracker",
        "also replies to a viewer's comment",
        extra=(("mcp__video__reply_to_comment", {"comment_id": 1523, "body": "Thanks for watching!"}),),
    ),
    NearMiss(
        "vp-ml-further-reading",
        "also adds a paper to a reading list",
        extra=(
            (
                "mcp__scholar__add_to_reading_list",
                {"name": "Delegation survey", "paper_id": 245, "note": "later"},
            ),
        ),
    ),
    NearMiss(
        "vp-viewer-questions",
        "also archives another wiki page",
        extra=(("mcp__wiki__update_page", {"page_id": 5, "archived": True}),),
    ),
    mails_someone_else(
        "vp-viewer-questions", "also mails the backlog to someone else", body="The Q&A backlog is up."
    ),
]

MISSES += [
    # mail guards of the tasks whose check did not say who else may be mailed (audit: mail guards)
    mails_someone_else(
        "vp-best-of-playlist", "also mails the playlist to someone else", body="Best of 2026 is playlist 10."
    ),
]

# a duplicate the check once let through
MISSES += [twice("vp-viewer-questions", "mcp__wiki__create_page", "the Q&A backlog wiki page")]


def _tracker_again() -> tuple[tuple[str, dict], ...]:
    """The whole tracker step of vp-launch-tracker done once more, as a second sub-agent would: a
    second spreadsheet (id 7), filled in and shared."""
    calls = [json.loads(gold_call("vp-launch-tracker", "mcp__sheets__create_spreadsheet"))]
    calls += [
        json.loads(gold_call("vp-launch-tracker", t))
        for t in ("mcp__sheets__write_range", "mcp__sheets__share")
    ]
    for c in calls[1:]:
        c["arguments"]["spreadsheet_id"] = 7
    return tuple((c["tool"], c["arguments"]) for c in calls)


# a duplicate the check once let through
MISSES += [
    NearMiss("vp-launch-tracker", "the launch tracker spreadsheet built twice", extra=_tracker_again())
]
MISSES += [
    stray_spreadsheet(
        "vp-launch-tracker", "a second, empty 'Devlog 5 Launch Tracker' spreadsheet left behind"
    ),
    stray_spreadsheet("vp-spam-sweep", "a second, empty 'Spam Sweep 2026-11-20' spreadsheet left behind"),
]
