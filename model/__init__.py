"""The data model every layer shares: occurrences, input problems, settings. Imports nothing of the project."""
