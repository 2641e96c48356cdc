# Summarizes `perf report --stdio --no-children -g none --sort pid,symbol` output (comments and
# blank lines removed) as Markdown table rows: share of samples per thread and kind of work.
# The lowest thread id is the process's main thread. Used by scripts/bench.sh.
{ pct = $1; sub(/%/, "", pct); split($2, t, ":"); tid = t[1] + 0
  sym = ""; for (i = 3; i <= NF; i++) sym = sym " " $i
  kind = "other"
  if (sym ~ /gemm|matrixmultiply|sgemm/) kind = "matrix products (GEMM kernels, packing)"
  else if (sym ~ /memmove|memcpy|memset|clear_page|page_fault|\[k\]/) kind = "memory (copies, zeroing, page faults, kernel)"
  else if (sym ~ /expf|logf|tanh|libm/) kind = "exp / log"
  else if (sym ~ /macerator|zip|binary|unary|scalar|mask|reduce|sum|ndarray|burn_flex/) kind = "elementwise, reductions, layout ops"
  if (min == "" || tid < min) min = tid
  share[tid SUBSEP kind] += pct; tids[tid] = 1; kinds[kind] = 1 }
END {
  for (tid in tids) for (k in kinds) if (share[tid SUBSEP k] >= 0.5)
    printf "| %s | %s | %.1f %% |\n", (tid == min ? "main" : "worker " tid), k, share[tid SUBSEP k]
}
