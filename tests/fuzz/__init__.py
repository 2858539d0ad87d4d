"""mlc's own seeded mutational fuzzer: see `fuzz.campaign` (make fuzz) and docs/reliability.md."""
