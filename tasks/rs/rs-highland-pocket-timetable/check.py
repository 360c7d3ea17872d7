"""Highland_Line_Saturday.docx holds the Northam-to-Cliffmoor timetable of the Highland Line trains running
on Saturday 5 December."""

from harness.checks import Criterion, World, nothing_else_changed

NO_STOP = {"-", "–", "—", ""}


def expected(world: World) -> list[list[str]]:
    trains = world.query(
        """SELECT t.id, t.number FROM railway_train t JOIN railway_station o ON o.id = t.origin_id
           JOIN railway_stop s ON s.train_id = t.id AND s.seq = 1
           WHERE t.line = 'Highland Line' AND o.name = 'Northam' AND t.runs_on LIKE '%6%' ORDER BY s.departs"""
    )
    stops = world.query(
        """SELECT s.train_id, st.name, s.seq, COALESCE(s.departs, s.arrives) AS at FROM railway_stop s
           JOIN railway_station st ON st.id = s.station_id JOIN railway_train t ON t.id = s.train_id
           WHERE t.line = 'Highland Line' ORDER BY s.seq"""
    )
    times = {(s["train_id"], s["name"]): s["at"] for s in stops}
    regional = world.query(
        """SELECT t.id FROM railway_train t JOIN railway_station o ON o.id = t.origin_id
           WHERE t.line = 'Highland Line' AND o.name = 'Northam' AND t.kind = 'Regional' LIMIT 1"""
    )[0]  # a Regional train calls at every station of the line
    route = [s["name"] for s in stops if s["train_id"] == regional["id"]]
    rows = [["Station"] + [t["number"] for t in trains]]
    rows += [[st] + [times.get((t["id"], st), "-") for t in trains] for st in route]
    return rows


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them."""
    return world.changes("railway")


def check(world: World) -> list[Criterion]:
    doc = world.docx("Highland_Line_Saturday.docx")
    if doc is None:
        return [Criterion("document", False, "Highland_Line_Saturday.docx is missing or unreadable")]
    want = expected(world)
    title = next((p.text for p in doc.paragraphs if p.text.strip()), "")
    tables = [[[c.text.strip() for c in row.cells] for row in t.rows] for t in doc.tables]
    got = tables[0] if tables else []
    norm = got[:1] + [[("-" if c in NO_STOP else c) for c in row] for row in got[1:]]
    return [
        Criterion.of(
            "title",
            title.strip().lower() == "highland line: northam to cliffmoor, saturday 5 december",
            f"the document starts with {title!r}",
        ),
        Criterion.of("one table", len(tables) == 1, f"{len(tables)} tables"),
        Criterion.of("timetable", norm == want, f"table is {got}; expected {want}"),
        nothing_else_changed(others_changed(world)),
    ]
