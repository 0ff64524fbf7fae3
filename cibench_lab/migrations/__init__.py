"""Alembic revisions of the results database (run by :mod:`cibench_lab.store.migrate`).

A schema change: edit ``store/tables.py``, then add ``versions/NNNN_<what>.py`` with
``cibench-lab db revision -m "<what>"`` (on a database at head, with ``--autogenerate``
to draft the operations from the models), read and fix the drafted operations, and run
the store tests (they check the upgraded schema matches the models).
"""
