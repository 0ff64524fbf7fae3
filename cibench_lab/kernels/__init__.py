"""The task kernel wherever it runs: spec, launcher, sandbox, provisioner, executor, warm pool."""
