"""The participant record beyond turns: working time, pauses, notes, edits, runs and quitting."""
