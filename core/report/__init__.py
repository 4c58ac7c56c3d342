"""The bundle and its assessment as the outgoing Verdict (no decisions here)."""
