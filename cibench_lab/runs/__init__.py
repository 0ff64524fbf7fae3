"""Headless runs: attempts played through the step driver on kernels this process owns."""
