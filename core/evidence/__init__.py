"""What counts as evidence: grounding, binding, timing, stated order, coverage, and the contract that freezes the bundle."""
