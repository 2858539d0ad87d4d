"""mlc.tuner: tuning records (schedules of tp blocks measured on this machine)."""
