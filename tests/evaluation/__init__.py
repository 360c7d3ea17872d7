"""Tests of evaluation/: every metric against a hand-computed expectation."""
