# the fixture workspaces under languages/ hold test files of their own (tests/test_*.py, ...):
# they are data for the indexer, not tests for pytest to collect
collect_ignore = ["languages"]
