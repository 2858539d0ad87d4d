"""Developer tools of the mlc repository (not installed with the `mlc` package)."""
