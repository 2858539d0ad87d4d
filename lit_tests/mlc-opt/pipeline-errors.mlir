// Bad pipelines are rejected before anything runs, with the position and a fix.
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-verfy)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN --strict-whitespace
// UNKNOWN: pass pipeline:1:16: error: 'graph-verfy' does not refer to a registered pass or pass pipeline; did you mean 'graph-verify'?
// UNKNOWN-NEXT: {{^}}  builtin.module(graph-verfy)
// UNKNOWN-NEXT: {{^}}                 ^

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,cse)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// UNBALANCED: pass pipeline:1:43: error: expected ')', found end of string

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=TRAILING
// TRAILING: pass pipeline:1:20: error: unexpected ')' after the end of the pipeline

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(mlc-dce{aggressive=true})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: pass pipeline:1:16: error: mlc-dce: unknown option 'aggressive' (options: none)

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(lower-to-llvm{threads=2 runtime=tbb})' 2>&1 | FileCheck %s --check-prefix=CHOICE
// CHOICE: pass pipeline:1:16: error: lower-to-llvm: invalid value 'tbb' for option 'runtime' (expected openmp|async)

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(tp-to-loops{threads=-1})' 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: pass pipeline:1:16: error: tp-to-loops: threads must be >= 0, got -1

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=many})' 2>&1 | FileCheck %s --check-prefix=UPSTREAMOPT
// UPSTREAMOPT: error: upstream pass 'canonicalize': failed to add `canonicalize` with options `max-iterations=many`

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(func.func(graph-verify))' 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: pass pipeline:1:26: error: mlc pass 'graph-verify' runs on builtin.module and cannot be nested in func.func(...); move it to the top level: builtin.module(..., graph-verify)

// RUN: not mlc-opt %s --pass-pipeline='graph-verify' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: pass pipeline:1:1: error: the pipeline must name the op it runs on: write 'builtin.module(graph-verify)'

// RUN: not mlc-opt %s --pass-pipeline='builtin.module(cse{' 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: pass pipeline:1:20: error: unterminated option list: missing '}'

// No traceback in any of these.
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(graph-verfy)' 2>&1 | FileCheck %s --check-prefix=NOTRACE
// NOTRACE-NOT: Traceback

func.func @f() {
  return
}
