"""Alembic environment: runs on the connection cibench-lab passes (already locked and in a transaction)."""

from alembic import context

from cibench_lab.store.tables import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("cibench-lab migrations run through cibench_lab.store.migrate, on its connection")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
