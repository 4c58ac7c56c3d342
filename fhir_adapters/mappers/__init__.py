"""resourceType -> mapper: each turns one raw resource into occurrences."""
