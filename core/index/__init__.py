"""A patient's searchable form: occurrences, graph, context store and retrieval channels."""
