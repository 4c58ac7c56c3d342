"""The `medeventgraph` command line."""
