"""Read models for the browser: an attempt, a run and a class as a browser may see them."""
