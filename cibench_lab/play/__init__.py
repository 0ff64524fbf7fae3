"""Playing an attempt: its state, the one step driver, the settle rule, settings, oracle, resume."""
