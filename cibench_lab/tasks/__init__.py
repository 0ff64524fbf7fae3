"""Tasks: CIBench notebook format, metadata schema, the task library."""
