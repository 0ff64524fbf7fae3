"""Studies: their definition, plans, enrolment, seats, proctoring and the comparison report."""
