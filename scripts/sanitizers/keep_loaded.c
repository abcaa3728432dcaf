/* Preloaded by scripts/sanitize.sh: dlclose() never unloads a library.
 *
 * OpenMPI 4.1 dlcloses its components (mca_*.so) in MPI_Finalize, and the
 * ORC JIT the libraries it loaded; LeakSanitizer checks at exit, when the
 * code that made an allocation may be unmapped, and reports it from an
 * "<unknown module>" that no suppression can name. With every library still
 * mapped, reports name the library, and a component without symbols can
 * be suppressed by its file (mca_op_avx.so in scripts/sanitizers/lsan.supp). */
int dlclose(void *handle) {
  (void)handle;
  return 0;
}
