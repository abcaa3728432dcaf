"""Helpers of Trellis's integration tests: NumPy references (`reference`),
a trellis-run driver with tolerance checks (`run`), finite-difference
gradient checks (`gradcheck`), MPI jobs and the collectives' references
(`mpi`), jobs that must fail fast or lose a rank (`jobs`), random
programs for property tests (`progen`)."""
