"""The 'Digest fact check' cloud sheet has every (paper, claim) with the draft's, the digest's and
the paper's values and the right verdict; it is shared with Victor, whose mail names each wrong
figure with the paper's value and calls no right one wrong."""

import re
from pathlib import Path

import yaml

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

PAPERS = ["DelegateBench", "SwarmScore", "ToolWeaver", "QuantLens", "Patchwise"]
CLAIMS = {"headline score": "ours1", "second score": "ours2", "gpus": "gpus", "ablation drop": "drop"}
HEADER = ["paper", "claim", "draft value", "digest value", "paper value", "verdict"]
EDITOR = "victor.moreau@company.example"


def draft(name: str) -> dict[str, float]:
    """The figures the draft quotes, read from the task's setup (the agent may edit its copy)."""
    setup = yaml.safe_load((Path(__file__).parent / "task.yaml").read_text())["setup"]
    text = next(s["content"] for s in setup if s.get("file") == "Newsletter_Draft.md")
    block = text.split(f"## {name}\n", 1)[1].split("##", 1)[0]
    ours1, ours2 = re.search(r"scores ([\d.]+) on .+? and ([\d.]+) on", block).groups()
    gpus = re.search(r"trained on (\d+) GPUs", block).group(1)
    drop = re.search(r"costs ([\d.]+) points", block).group(1)
    return {"ours1": float(ours1), "ours2": float(ours2), "gpus": float(gpus), "drop": float(drop)}


def digest(world: World, name: str) -> dict[str, float]:
    text = world.rows("web_page", url=f"https://paperdigest.example/{name.lower()}")[0]["text"]
    ours1, ours2 = re.search(r"reaches ([\d.]+) .*?; on .+? it scores ([\d.]+) against", text).groups()
    gpus = re.search(r"Training needs (\d+) GPUs", text).group(1)
    drop = re.search(r"costs ([\d.]+) points", text).group(1)
    return {"ours1": float(ours1), "ours2": float(ours2), "gpus": float(gpus), "drop": float(drop)}


def paper(world: World, name: str) -> dict[str, float]:
    pid = world.query("SELECT id FROM scholar_paper WHERE title LIKE :t", t=f"{name}:%")[0]["id"]
    pages = {r["section"]: r["text"] for r in world.rows("scholar_page", paper_id=pid)}
    gpus = re.search(r"using (\d+) GPUs", pages["Method"]).group(1)
    ours = next(line for line in pages["Experiments"].splitlines() if line.startswith(f"| {name} |"))
    ours1, ours2 = (float(c) for c in ours.strip().strip("|").split("|")[1:3])
    head = next(line for line in pages["Experiments"].splitlines() if line.startswith("|"))
    bench1, bench2 = (c.strip() for c in head.strip().strip("|").split("|")[1:3])
    drop = re.search(r"lowers .+? by ([\d.]+) points", pages["Analysis"]).group(1)
    return {"ours1": ours1, "ours2": ours2, "gpus": float(gpus), "drop": float(drop), "bench1": bench1,
            "bench2": bench2}  # fmt: skip


def claims_sheet(world: World) -> tuple[int | None, list[list[object]]]:
    found = world.query(
        """SELECT b.id AS book, s.id AS sheet FROM sheets_spreadsheet b JOIN sheets_sheet s ON s.spreadsheet_id = b.id
           WHERE lower(trim(b.title)) = 'digest fact check' AND lower(s.title) = 'claims' ORDER BY b.id DESC"""
    )
    if not found:
        return None, []
    grid: dict[int, dict[int, object]] = {}
    for (r, k), value in world.sheet_cells(found[0]["sheet"]).items():
        grid.setdefault(r, {})[k] = value
    return found[0]["book"], [[grid[r].get(k) for k in range(1, 7)] for r in sorted(grid)]


# Words that name a claim in a mail (its own name, or the benchmark / quantity it is about).
CLAIM_WORDS = {
    "headline score": ("headline", "first benchmark", "first score"),
    "second score": ("second",),
    "gpus": ("gpu",),
    "ablation drop": ("ablation", "drop", "removing", "without"),
}


def numbers(text: str) -> list[float]:
    """The numbers written in a text, each whole: '1.8' is 1.8, never 8."""
    return [float(n) for n in re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.]*\d)", text)]


def names_figure(body: str, name: str, claim: str, value: float, bench: str | None) -> bool:
    """One line or sentence of the mail names the paper, the claim (or its benchmark) and the
    paper's value."""
    words = CLAIM_WORDS[claim] + ((bench.lower(),) if bench else ())
    for part in re.split(r"\n|(?<=[.;!?])\s+", body):
        low = part.lower()
        if (
            name.lower() in low
            and any(w in low for w in words)
            and any(close_enough(x, value) for x in numbers(part))
        ):
            return True
    return False


WRONG = re.compile(r"\b(?:wrong|errors?|incorrect|mistaken|mistakes?|inaccurate|misquoted)\b", re.I)
DENIED = re.compile(r"\b(?:no|not|never|none|nothing|without)\b|n['’]t\b", re.I)
LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")


def _says_wrong(text: str) -> bool:
    """The text calls something wrong, not denying it in the same clause ('no errors', 'not wrong')."""
    return any(
        not DENIED.search(re.split(r"[,;:.!?()]", text[: m.start()])[-1]) for m in WRONG.finditer(text)
    )


def _claims_in(text: str, benches: tuple[str, str]) -> set[str]:
    low = text.lower()
    extra = {"headline score": (benches[0].lower(),), "second score": (benches[1].lower(),)}
    return {c for c, words in CLAIM_WORDS.items() if any(w in low for w in words + extra.get(c, ()))}


def called_wrong(body: str, benches: dict[str, tuple[str, str]]) -> set[tuple[str, str]]:
    """The (paper, claim) pairs the mail calls wrong: a clause calling something wrong names the
    claim (or its line or sentence names only that claim) and its line or sentence the paper; or
    a list item names both below a line that calls what follows wrong ('three figures are wrong:')."""
    found: set[tuple[str, str]] = set()
    listing = False
    for line in body.splitlines():
        papers = [p for p in PAPERS if p.lower() in line.lower()]
        if listing and LIST_ITEM.match(line):
            found |= {(p, c) for p in papers for c in _claims_in(line, benches[p])}
            continue
        listing = False
        for part in re.split(r"(?<=[.;!?])\s+", line):
            names = [p for p in papers if p.lower() in part.lower()]
            for clause in re.split(r"[,;:()]", part):
                if _says_wrong(clause):
                    for p in names:
                        claims = _claims_in(clause, benches[p]) or _claims_in(part, benches[p])
                        found |= {(p, c) for c in claims}
        if line.rstrip().endswith(":") and not papers and _says_wrong(line):
            listing = True
    return found


def verdict(dr: float, dg: float, pp: float) -> str:
    if dg != pp:
        return "digest error"
    return "ok" if dr == pp else "draft error"


def others_changed(world: World) -> list[str]:
    """Changes other than the 'Digest fact check' spreadsheet and its share with Victor, besides the mail."""
    return world.changes(
        "scholar",
        "sheets",
        "mail",
        allow={
            **world.new_spreadsheet("digest fact check", [EDITOR]),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    book, rows = claims_sheet(world)
    if book is None:
        return [
            Criterion("spreadsheet", False, "no cloud spreadsheet 'Digest fact check' with a sheet Claims")
        ]
    header = [str(h or "").strip().lower() for h in (rows[0] if rows else [])]
    got = {(str(r[0] or "").strip().lower(), str(r[1] or "").strip().lower()): r for r in rows[1:]}
    books = world.ids_named("sheets_spreadsheet", "digest fact check")
    out = [
        Criterion.of(
            "one spreadsheet", len(books) == 1, f"{len(books)} spreadsheets titled 'Digest fact check'"
        ),
        Criterion.of("header", header == HEADER, f"header is {rows[:1]}"),
        Criterion.of("20 rows", len(rows) - 1 == 20, f"{len(rows) - 1} rows below the header"),
    ]
    wrong = []
    benches: dict[str, tuple[str, str]] = {}
    for name in PAPERS:
        dr, dg, pp = draft(name), digest(world, name), paper(world, name)
        benches[name] = (str(pp["bench1"]), str(pp["bench2"]))
        bad = []
        for claim, key in CLAIMS.items():
            want = verdict(dr[key], dg[key], pp[key])
            if want != "ok":
                wrong.append(
                    (name, claim, pp[key], pp.get({"ours1": "bench1", "ours2": "bench2"}.get(key, "")))
                )
            row = got.get((name.lower(), claim))
            values_ok = row is not None and all(
                close_enough(row[i], x[key]) for i, x in ((2, dr), (3, dg), (4, pp))
            )
            if not values_ok or str(row[5] or "").strip().lower() != want:
                bad.append(claim)
        out.append(Criterion.of(f"{name} claims", not bad, f"missing or wrong rows: {', '.join(bad)}"))
    shared = world.query(
        "SELECT role FROM sheets_permission WHERE spreadsheet_id = :b AND email = :e", b=book, e=EDITOR
    )
    out.append(
        Criterion.of(
            "shared with Victor", [r["role"] for r in shared] == ["commenter"], f"Victor's access: {shared}"
        )
    )
    mails = sent_mail(world.engine, to=EDITOR, subject_contains="digest fact check")
    body = " ".join(m.body for m in mails)
    unnamed = [f"{n} {c} {v:g}" for n, c, v, b in wrong if not names_figure(body, n, c, v, b)]
    out.append(
        Criterion.of(
            "mail names the wrong figures",
            bool(mails) and not unnamed,
            f"a mail to Victor should name, each in one line or sentence, {unnamed}",
        )
    )
    right = {(n.lower(), c) for n, c, _, _ in wrong}
    overclaimed = sorted(f"{n} {c}" for n, c in called_wrong(body, benches) if (n.lower(), c) not in right)
    out.append(
        Criterion.of(
            "mail calls no right figure wrong",
            bool(mails) and not overclaimed,
            f"the mail calls wrong figures that the draft and the digest give as the paper does: {overclaimed}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, {EDITOR}))
    return out
