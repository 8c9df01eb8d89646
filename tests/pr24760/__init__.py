"""The PR's case tests: each imports harness/cases/pr24760/ (its rows, tables, claims)."""
