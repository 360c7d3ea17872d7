"""The 'Kitchen schedule 23 Nov - 6 Dec' cloud sheet lists the confirmed and in-preparation orders
of the fortnight in order, and the head chef can edit it."""

from harness.checks import Criterion, World, nothing_else_changed

HEADER = ["reference", "event date", "client", "menu", "guests", "status"]
CHEF = "chef@aldermoor-catering.example"


def whole(cell: object) -> int | None:
    """A count as written in a cell (120, 120.0 or '120')."""
    try:
        x = float(str(cell).strip())
    except ValueError:
        return None
    return int(x) if x == int(x) else None


def others_changed(world: World) -> list[str]:
    """Changes other than the schedule spreadsheet and its share with the head chef."""
    return world.changes(
        "kitchen",
        "sheets",
        allow={
            **world.new_spreadsheet("kitchen schedule 23 nov - 6 dec", [CHEF]),
        },
    )


def check(world: World) -> list[Criterion]:
    found = world.query(
        """SELECT b.id AS book, s.id AS sheet FROM sheets_spreadsheet b JOIN sheets_sheet s ON s.spreadsheet_id = b.id
           WHERE lower(trim(b.title)) = 'kitchen schedule 23 nov - 6 dec' AND lower(s.title) = 'events'
           ORDER BY b.id DESC"""
    )
    if not found:
        return [
            Criterion(
                "spreadsheet", False, "no cloud spreadsheet 'Kitchen schedule 23 Nov - 6 Dec' with Events"
            )
        ]
    grid: dict[int, dict[int, object]] = {}
    for (r, k), value in world.sheet_cells(found[0]["sheet"]).items():
        grid.setdefault(r, {})[k] = value
    rows = [[grid[r].get(k) for k in range(1, 7)] for r in sorted(grid)]
    want = world.query(
        """SELECT o.reference, o.event_date, o.client, m.name AS menu, o.guests, o.status
           FROM kitchen_catering_order o JOIN kitchen_menu m ON m.id = o.menu_id
           WHERE o.event_date BETWEEN '2026-11-23' AND '2026-12-06' AND o.status IN ('confirmed', 'in_preparation')
           ORDER BY o.event_date, o.reference"""
    )
    header = [str(h or "").strip().lower() for h in (rows[0] if rows else [])]
    refs = [str(r[0] or "").strip() for r in rows[1:]]
    details = {str(r[0]).strip(): r for r in rows[1:]}
    wrong = [
        w["reference"]
        for w in want
        if (r := details.get(w["reference"])) is None
        or str(r[1]).strip()[:10] != w["event_date"]
        or str(r[2]).strip().lower() != w["client"].lower()
        or str(r[3]).strip().lower() != w["menu"].lower()
        or whole(r[4]) != w["guests"]
        or str(r[5]).strip().replace(" ", "_").lower() != w["status"]
    ]
    shared = world.query(
        "SELECT role FROM sheets_permission WHERE spreadsheet_id = :b AND email = :e",
        b=found[0]["book"],
        e=CHEF,
    )
    books = world.ids_named("sheets_spreadsheet", "kitchen schedule 23 nov - 6 dec")
    return [
        Criterion.of(
            "one spreadsheet", len(books) == 1, f"{len(books)} spreadsheets 'Kitchen schedule 23 Nov - 6 Dec'"
        ),
        Criterion.of("header", header == HEADER, f"header is {rows[:1]}"),
        Criterion.of(
            "the fortnight's orders in order",
            refs == [w["reference"] for w in want],
            f"references {refs}, expected {[w['reference'] for w in want]}",
        ),
        Criterion.of("order details", not wrong, f"wrong details for {wrong}"),
        Criterion.of("chef can edit", [r["role"] for r in shared] == ["writer"], f"chef's access: {shared}"),
        nothing_else_changed(others_changed(world)),
    ]
