"""The HTTP routes: discovery, hooks, feedback."""
