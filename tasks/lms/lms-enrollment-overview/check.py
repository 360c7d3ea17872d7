"""Enrollment.xlsx: one sheet per course with the active students, and a Summary sheet."""

from harness.checks import Criterion, World, nothing_else_changed

COURSES = ["CS101", "CS201", "CS305"]


def number(value: object) -> float | None:
    """A count from a cell: 31, 31.0 or '31'."""
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def active_roster(world: World, course: str) -> list[tuple[str, str, str]]:
    rows = world.query(
        """SELECT s.student_number, s.name, s.major FROM lms_enrollment e
           JOIN lms_student s ON s.id = e.student_id JOIN lms_course c ON c.id = e.course_id
           WHERE c.code = :code AND e.status = 'active' AND e.role = 'student' ORDER BY s.student_number""",
        code=course,
    )
    return [(r["student_number"], r["name"], r["major"]) for r in rows]


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them."""
    return world.changes("lms")


def check(world: World) -> list[Criterion]:
    wb = world.xlsx("Enrollment.xlsx")
    if wb is None:
        return [Criterion("workbook", False, "Enrollment.xlsx is missing or unreadable")]
    out = [
        Criterion.of(
            "sheets", set(COURSES + ["Summary"]) <= set(wb.sheetnames), f"sheets are {wb.sheetnames}"
        )
    ]
    counts = {}
    for course in COURSES:
        expected = active_roster(world, course)
        counts[course] = len(expected)
        if course not in wb.sheetnames:
            out.append(Criterion(f"{course} roster", False, f"no sheet {course}"))
            continue
        rows = [
            tuple(str(v) if v is not None else "" for v in r[:3])
            for r in wb[course].iter_rows(values_only=True)
        ]
        header = [h.lower() for h in rows[0]] if rows else []
        body = [r for r in rows[1:] if any(r)]
        out.append(
            Criterion.of(
                f"{course} header", header == ["student number", "name", "major"], f"header is {rows[:1]}"
            )
        )
        out.append(
            Criterion.of(
                f"{course} roster",
                body == expected,
                f"{len(body)} rows; expected the {len(expected)} active students in order",
            )
        )
    if "Summary" in wb.sheetnames:
        summary = {
            str(r[0]).strip().upper(): r[1]
            for r in wb["Summary"].iter_rows(min_row=2, values_only=True)
            if r and r[0]
        }
        ok = all(number(summary.get(c)) == n for c, n in counts.items())
        out.append(Criterion.of("summary counts", ok, f"Summary says {summary}, expected {counts}"))
    else:
        out.append(Criterion("summary counts", False, "no Summary sheet"))
    out.append(nothing_else_changed(others_changed(world)))
    return out
