from __future__ import annotations

from tests.mcp_servers.support import World, as_data, check_contract, serve, text

CALLS = {
    "list_courses": {"term": "2026-fall"},
    "get_course": {"course": "CS101"},
    "list_enrollments": {"course": "CS101", "page": 1, "page_size": 10},
    "get_student": {"student": "S00001"},
    "list_assignments": {"course": "CS201"},
    "list_submissions": {"assignment_id": 1, "status": "missing"},
    "get_grades": {"course": "CS101", "assignment_id": 1},
    "list_announcements": {"course": "CS101"},
    "set_grade": {"assignment_id": 1, "student": "S00001", "score": 10},
    "post_announcement": {"course": "CS101", "title": "Exam", "body": "The exam is on Friday."},
    "update_enrollment": {"course": "CS101", "student": "S00001", "status": "dropped"},
    "create_assignment": {
        "course": "CS101",
        "title": "Essay",
        "kind": "project",
        "due_date": "2026-12-10",
        "points_possible": 30,
    },
}


async def test_lms_contract(world: World) -> None:
    async with serve("lms", world) as client:
        # S00001's first course must be CS101 for the calls above to be valid everywhere.
        student = as_data(await client.call_tool("get_student", {"student": "S00001"}))
        course = student["enrollments"][0]["course"]
        calls = {k: {**v, **({"course": course} if "course" in v else {})} for k, v in CALLS.items()}
        assignments = as_data(await client.call_tool("list_assignments", {"course": course}))
        for k in ("set_grade", "list_submissions", "get_grades"):
            calls[k]["assignment_id"] = assignments[0]["id"]
        await check_contract(client, world, calls)


async def test_roster_pages_cover_the_course(world: World) -> None:
    async with serve("lms", world) as client:
        course = as_data(await client.call_tool("get_course", {"course": "CS101"}))
        first = as_data(await client.call_tool("list_enrollments", {"course": "CS101", "page_size": 20}))
        seen = [r["student_number"] for p in range(1, first["pages"] + 1)
                for r in as_data(await client.call_tool("list_enrollments", {"course": "CS101", "page": p, "page_size": 20}))["items"]]  # fmt: skip
        assert len(seen) == len(set(seen)) == first["total"] == course["active_students"]


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("lms", world) as client:
        cases = [
            ("get_course", {"course": "NOPE999"}, "no course"),
            ("set_grade", {"assignment_id": 1, "student": "S00001", "score": 10_000}, "outside"),
            ("list_enrollments", {"course": "CS101", "page": 0}, "page starts at 1"),
            ("list_courses", {"term": 5}, "validation error"),
            (
                "create_assignment",
                {
                    "course": "CS101",
                    "title": "x",
                    "kind": "essay",
                    "due_date": "2026-12-01",
                    "points_possible": 1,
                },
                "kind",
            ),
        ]
        for tool, args, expected in cases:
            result = await client.call_tool(tool, args)
            assert result.is_error, tool
            assert expected in text(result), text(result)


async def test_unknown_filter_values_and_odd_numbers_are_refused(world: World) -> None:
    """Regressions: an unknown status/role/term filtered everything out and looked like an empty
    result; points 'nan'/'inf' and a compact due date were stored as given."""
    async with serve("lms", world) as client:
        for tool, args, expected in [
            ("list_enrollments", {"course": "CS101", "status": "enrolled"}, "active, dropped, waitlisted"),
            ("list_enrollments", {"course": "CS101", "role": "teacher"}, "student, ta"),
            ("list_submissions", {"assignment_id": 1, "status": "done"}, "submitted, late, missing"),
            ("list_courses", {"term": "fall-2026"}, "2026-fall"),
            ("create_assignment", {"course": "CS101", "title": "T", "kind": "quiz", "due_date": "2026-12-10",
                                   "points_possible": "nan"}, "finite"),
            ("create_assignment", {"course": "CS101", "title": "T", "kind": "quiz", "due_date": "2026-12-10",
                                   "points_possible": "inf"}, "finite"),
            ("create_assignment", {"course": "CS101", "title": "T", "kind": "quiz", "due_date": "20261210",
                                   "points_possible": 10}, "YYYY-MM-DD"),
        ]:  # fmt: skip
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        assert as_data(await client.call_tool("list_courses", {"term": "2026-fall"}))


async def test_grades_for_an_assignment_of_another_course_are_refused(world: World) -> None:
    """Regression: get_grades(CS101, assignment of CS201 or no assignment at all) answered an empty
    page, as if nobody had been graded yet."""
    async with serve("lms", world) as client:
        other = as_data(await client.call_tool("list_assignments", {"course": "CS201"}))[0]["id"]
        for assignment_id, expected in [(other, "not in CS101"), (99999, "no assignment")]:
            result = await client.call_tool("get_grades", {"course": "CS101", "assignment_id": assignment_id})
            assert result.is_error and expected in text(result), text(result)
        own = as_data(await client.call_tool("list_assignments", {"course": "CS101"}))[0]["id"]
        graded = as_data(await client.call_tool("get_grades", {"course": "CS101", "assignment_id": own}))
        assert graded["total"] > 0 and {g["assignment_id"] for g in graded["items"]} == {own}
