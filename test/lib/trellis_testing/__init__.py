"""Helpers of Trellis's integration tests: NumPy references (`reference`)
and a trellis-run driver with tolerance checks (`run`)."""
