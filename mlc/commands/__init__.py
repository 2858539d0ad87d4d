"""Sub-commands of the `mlc` driver, one module each (`add_parser` + `drive`)."""
