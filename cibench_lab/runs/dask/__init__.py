"""Distributed runs: a run's attempts played on the workers of a Dask cluster."""
