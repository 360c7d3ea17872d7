"""`lms`: a learning management system (courses, rosters, assignments, submissions, grades)."""
