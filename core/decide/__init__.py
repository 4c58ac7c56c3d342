"""Where a verdict is decided: the assessor reads the frozen bundle alone and returns (S+, S-, label)."""
