"""Thin REST handlers and the one error mapper."""
