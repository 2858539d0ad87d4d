// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops,func.func(canonicalize,cse))' | FileCheck %s
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops{fuse-epilogues=false},func.func(canonicalize,cse))' | FileCheck %s --check-prefix=UNFUSED
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops{threads=2},func.func(canonicalize,cse))' | FileCheck %s --check-prefix=CHUNKS
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops{vnni-bits=256},func.func(canonicalize,cse))' | FileCheck %s --check-prefix=VNNI
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops{vnni-bits=512},func.func(canonicalize,cse))' | FileCheck %s --check-prefix=VNNI512
// RUN: mlc-opt %s --split-input-file --pass-pipeline='builtin.module(tp-to-loops{madd-bits=256},func.func(canonicalize,cse))' | FileCheck %s --check-prefix=MADD

// Register tile: spatial loops after the reduce loop are unrolled (i.1) and vectorized (j.1),
// so the 2x8 output tile is carried in vector iter_args across k and stored once.
// CHECK-LABEL: func.func @register_tile
// CHECK: scf.parallel (%[[I0:.*]]) =
// CHECK-NEXT: scf.for %[[J0:.*]] =
// CHECK-NEXT: %[[ACC:.*]]:2 = scf.for %[[K:.*]] = {{.*}} iter_args(%[[A0:.*]] = %[[ZERO:.*]], %[[A1:.*]] = %[[ZERO]]) -> (vector<8xf32>, vector<8xf32>)
// CHECK: %[[B:.*]] = vector.load %arg1[%[[K]], %{{.*}}] : memref<4x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[X0:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[X0]], %[[B]] fastmath<contract> : vector<8xf32>
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[A0]], %[[P0]] fastmath<contract> : vector<8xf32>
// CHECK: %[[S1:.*]] = arith.addf %[[A1]], %{{.*}} fastmath<contract> : vector<8xf32>
// CHECK-NEXT: scf.yield %[[S0]], %[[S1]]
// CHECK: vector.store %[[ACC]]#0, %arg2
// CHECK: vector.store %[[ACC]]#1, %arg2
// CHECK: scf.reduce
// threads=2: the 4 trips of i.0 become 2 static chunks, one scf.parallel iteration per thread.
// CHUNKS-DAG: #[[$LO:.*]] = affine_map<(d0) -> (d0 * 2)>
// CHUNKS-DAG: #[[$HI:.*]] = affine_map<(d0) -> (d0 * 2 + 2)>
// CHUNKS-LABEL: func.func @register_tile
// CHUNKS: %[[C2:.*]] = arith.constant 2 : index
// CHUNKS: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[C2]])
// CHUNKS-NEXT: %[[L:.*]] = affine.apply #[[$LO]](%[[C]])
// CHUNKS-NEXT: %[[H:.*]] = affine.apply #[[$HI]](%[[C]])
// CHUNKS-NEXT: scf.for %[[I0:.*]] = %[[L]] to %[[H]]
// CHUNKS: vector.load %arg1
func.func @register_tile(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<8x4xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 8, 16, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {tile = {i = array<i64: 2>, j = array<i64: 8>}, order = ["i.0", "j.0", "k", "i.1", "j.1"],
                  unroll = {"i.1" = 2}, vectorize = "j.1", parallel = ["i.0"]}} : (memref<8x16xf32>) -> ()
  return
}

// -----

// Default schedule: one scalar accumulator per output element, carried across k.
// CHECK-LABEL: func.func @default_schedule
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[S:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[K]]]
// CHECK-NEXT: memref.load %arg1[%[[K]], %[[J]]]
// CHECK-NEXT: arith.mulf {{.*}} fastmath<contract>
// CHECK-NEXT: arith.addf %[[ACC]]
// CHECK: memref.store %[[S]], %arg2[%[[I]], %[[J]]]
func.func @default_schedule(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<8x4xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 8, 16, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<8x16xf32>) -> ()
  return
}

// -----

// Spatial loops inside the reduce loop that are not unrolled: the output is initialised by its
// own nest, then updated in memory.
// CHECK-LABEL: func.func @memory_mode
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.store %{{.*}}, %arg2
// CHECK: scf.for %[[K:.*]] =
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK: %[[OLD:.*]] = memref.load %arg2[%[[I]], %[[J]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} fastmath<contract> : f32
// CHECK-NEXT: memref.store %[[NEW]], %arg2[%[[I]], %[[J]]]
func.func @memory_mode(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<8x4xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x16xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 8, 16, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {order = ["k", "i", "j"]}} : (memref<8x16xf32>) -> ()
  return
}

// -----

// Computed-index loads in vector code: when the last index is the vectorized axis itself the
// lanes are contiguous (one vector.load); when only the last index differs per lane, one
// vector.gather along the innermost dim.
// CHECK-LABEL: func.func @computed_loads
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %[[J:.*]] = affine.apply
// CHECK-NEXT: %[[A:.*]] = vector.load %arg0[%[[ROW]], %[[J]]] : memref<4x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[COLS:.*]] = vector.load %arg2[%[[J]]] : memref<16xi64>, vector<8xi64>
// CHECK-NEXT: %[[IDX:.*]] = arith.index_cast %[[COLS]] : vector<8xi64> to vector<8xindex>
// CHECK-NEXT: %[[B:.*]] = vector.gather %arg0[%{{.*}}, %c0] [%[[IDX]]], %{{.*}}, %{{.*}} : memref<4x16xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK-NEXT: arith.addf %[[A]], %[[B]]
func.func @computed_loads(%X: memref<4x16xf32>, %I: memref<4xi64>, %J: memref<16xi64>, %O: memref<4x16xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %r = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<4xi64>) -> i64
    %row = arith.index_cast %r : i64 to index
    %col = "tp.index"() {axis = "j"} : () -> index
    %a = "tp.load"(%X, %row, %col) : (memref<4x16xf32>, index, index) -> f32
    %c = "tp.read"(%J) {map = affine_map<(i, j) -> (j)>} : (memref<16xi64>) -> i64
    %cc = arith.index_cast %c : i64 to index
    %i = "tp.index"() {axis = "i"} : () -> index
    %b = "tp.load"(%X, %i, %cc) : (memref<4x16xf32>, index, index) -> f32
    %s = arith.addf %a, %b : f32
    gpu.yield %s : f32
  }) {name = "loads", axes = ["i", "j"], kinds = "SS", extents = array<i64: 4, 16>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {tile = {j = array<i64: 8>}, vectorize = "j.1"}} : (memref<4x16xf32>) -> ()
  return
}

// -----

// A tile that does not divide its axis (10 = 4 + 4 + 2) is guarded; a fully unrolled loop
// (j, trip 2) is replicated.
// CHECK-LABEL: func.func @inexact_and_unrolled
// CHECK: scf.for %[[I0:.*]] = %c0 to %c3 step %c1
// CHECK-NEXT: scf.for %[[I1:.*]] = %c0 to %c4 step %c1
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %c10 : index
// CHECK-NEXT: scf.if %[[IN]]
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %c0]
// CHECK: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %c1]
func.func @inexact_and_unrolled(%A: memref<10x2xf32>, %O: memref<10x2xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j) -> (i, j)>} : (memref<10x2xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i", "j"], kinds = "SS", extents = array<i64: 10, 2>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {tile = {i = array<i64: 4>}, unroll = {"j" = 2}}} : (memref<10x2xf32>) -> ()
  return
}

// -----

// A register tile of 4 rows over 10 (4 + 4 + 2): the full tiles take a copy of the tile without
// guards (one load of B per step for all rows); only the last, partial tile guards each row.
// With the guards in every tile, a 197-row product ran 1.5x faster on 2 threads (198 rows: 2x).
// CHECK-LABEL: func.func @partial_register_tile
// CHECK: scf.for %{{.*}} = %c0 to %c3 step %c1
// CHECK: %[[FULL:.*]] = arith.cmpi slt, %{{.*}}, %c10 : index
// CHECK-NEXT: scf.if %[[FULL]] {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// CHECK-NOT: scf.if
// CHECK: vector.load %arg1
// CHECK-NOT: scf.if
// CHECK: scf.yield
// CHECK-NOT: scf.if
// CHECK: vector.store
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// CHECK: scf.if %{{.*}} -> (vector<8xf32>)
func.func @partial_register_tile(%A: memref<10x16xf32>, %B: memref<16x8xf32>, %C: memref<10x8xf32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<10x16xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<16x8xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 10, 8, 16>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {order = ["i.0", "k", "i.1", "j"], tile = {i = array<i64: 4>}, unroll = {"i.1" = 4}, vectorize = "j"}} : (memref<10x8xf32>) -> ()
  return
}

// -----

// Padded reads clamp their index and select the pad value out of bounds.
// CHECK-LABEL: func.func @padded_read
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[IDX:.*]], %c0
// CHECK-NEXT: %[[LO:.*]] = arith.maxsi %[[IDX]], %c0
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[LO]], %c4
// CHECK-NEXT: %[[HI:.*]] = arith.minsi %[[LO]], %c3
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[HI]]]
// CHECK-NEXT: arith.select %[[OK]], %[[V]], %cst
func.func @padded_read(%A: memref<4xf32>, %O: memref<6xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %a = "tp.read_padded"(%A) {map = affine_map<(i) -> (i - 1)>, value = -1.0 : f32} : (memref<4xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "pad", axes = ["i"], kinds = "S", extents = array<i64: 6>,
      out_map = affine_map<(i) -> (i)>, combiner = "none", init, schedule = {}} : (memref<6xf32>) -> ()
  return
}

// -----

// An elementwise block right after a register-tiled reduction on the same buffer (bias + relu)
// is applied to the tile before the store: no second pass over the output. Multiply and add
// may contract into FMAs.
// CHECK-LABEL: func.func @fused_epilogue
// CHECK: %[[T:.*]]:2 = scf.for {{.*}} iter_args
// CHECK: arith.mulf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK-NEXT: arith.addf {{.*}} fastmath<contract> : vector<8xf32>
// CHECK: %[[B:.*]] = arith.addf %[[T]]#0, %{{.*}} fastmath<contract> : vector<8xf32>
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[B]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.store %[[R]], %arg3
// CHECK-NOT: vector.load %arg3
// UNFUSED-LABEL: func.func @fused_epilogue
// UNFUSED: vector.store
// UNFUSED: vector.load %arg3
// UNFUSED: arith.maximumf
func.func @fused_epilogue(%A: memref<2x4xf32>, %B: memref<4x8xf32>, %bias: memref<8xf32>, %C: memref<2x8xf32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<2x4xf32>) -> f32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x8xf32>) -> f32
    %m = arith.mulf %a, %b : f32
    gpu.yield %m : f32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 2, 8, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0.0 : f32,
      schedule = {order = ["k", "i", "j"], unroll = {"i" = 2}, vectorize = "j"}} : (memref<2x8xf32>) -> ()
  "tp.block"(%C) ({
    %c = "tp.read"(%C) {map = affine_map<(i0, i1) -> (i0, i1)>} : (memref<2x8xf32>) -> f32
    %b = "tp.read"(%bias) {map = affine_map<(i0, i1) -> (i1)>} : (memref<8xf32>) -> f32
    %s = arith.addf %c, %b : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    gpu.yield %r : f32
  }) {name = "epilogue", axes = ["i0", "i1"], kinds = "SS", extents = array<i64: 2, 8>,
      out_map = affine_map<(i0, i1) -> (i0, i1)>, combiner = "none", init, schedule = {vectorize = "i1"}} : (memref<2x8xf32>) -> ()
  return
}

// -----

// A scatter block stores at the position its body yields; with a combiner it loads the element
// there, combines and stores back, one point after the other.
// CHECK-LABEL: func.func @scatter_add
// CHECK: scf.for %[[I:.*]] = %c0 to %c3 step %c1
// CHECK-NEXT: scf.for %[[J:.*]] = %c0 to %c4 step %c1
// CHECK-NEXT: %[[U:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK-NEXT: %[[K:.*]] = memref.load %arg1[%[[I]]]
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT: %[[OLD:.*]] = memref.load %arg2[%[[ROW]], %[[J]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]]
// CHECK-NEXT: memref.store %[[NEW]], %arg2[%[[ROW]], %[[J]]]
func.func @scatter_add(%U: memref<3x4xf32>, %I: memref<3xi64>, %O: memref<5x4xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %u = "tp.read"(%U) {map = affine_map<(i, j) -> (i, j)>} : (memref<3x4xf32>) -> f32
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<3xi64>) -> i64
    %row = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    gpu.yield %u, %row, %j : f32, index, index
  }) {name = "scatter", axes = ["i", "j"], kinds = "SS", extents = array<i64: 3, 4>,
      out_map = affine_map<(i, j) -> ()>, combiner = "add", init, schedule = {}} : (memref<5x4xf32>) -> ()
  return
}

// -----

// An epilogue writing another buffer of the same shape (an int8 requantization of the i32
// accumulator, the accumulator's only reader) is fused too: the tile goes straight to the
// int8 output and the i32 temporary is never written.
// CHECK-LABEL: func.func @fused_epilogue_other_buffer
// CHECK: %[[T:.*]]:2 = scf.for {{.*}} iter_args
// CHECK: arith.muli {{.*}} : vector<8xi32>
// CHECK: %[[N:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi8>
// CHECK-NEXT: vector.store %[[N]], %arg3
// CHECK-NOT: vector.store {{.*}}, %arg2
// UNFUSED-LABEL: func.func @fused_epilogue_other_buffer
// UNFUSED: vector.store {{.*}}, %arg2
// UNFUSED: vector.load %arg2
func.func @fused_epilogue_other_buffer(%A: memref<2x4xi8>, %B: memref<4x8xi8>, %acc: memref<2x8xi32>, %C: memref<2x8xi8>) attributes {tp.kernel} {
  "tp.block"(%acc) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<2x4xi8>) -> i8
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x8xi8>) -> i8
    %ai = arith.extsi %a : i8 to i32
    %bi = arith.extsi %b : i8 to i32
    %m = arith.muli %ai, %bi : i32
    gpu.yield %m : i32
  }) {name = "matmul", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 2, 8, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0 : i32,
      schedule = {order = ["k", "i", "j"], unroll = {"i" = 2}, vectorize = "j"}} : (memref<2x8xi32>) -> ()
  "tp.block"(%C) ({
    %c = "tp.read"(%acc) {map = affine_map<(i0, i1) -> (i0, i1)>} : (memref<2x8xi32>) -> i32
    %n = arith.trunci %c : i32 to i8
    gpu.yield %n : i8
  }) {name = "requantize", axes = ["i0", "i1"], kinds = "SS", extents = array<i64: 2, 8>,
      out_map = affine_map<(i0, i1) -> (i0, i1)>, combiner = "none", init, schedule = {vectorize = "i1"}} : (memref<2x8xi8>) -> ()
  return
}

// -----

// A scatter block vectorized along the axis that is its last position: lane 0's position starts
// one vector load-combine-store of consecutive elements.
// CHECK-LABEL: func.func @scatter_rows_vectorized
// CHECK: scf.for %[[I:.*]] = %c0 to %c3 step %c1
// CHECK: %[[U:.*]] = vector.load %arg0[%[[I]], %{{.*}}] : memref<3x16xf32>, vector<8xf32>
// CHECK: %[[ROW:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[COL:.*]] = vector.extract %{{.*}}[0] : index from vector<8xindex>
// CHECK-NEXT: %[[OLD:.*]] = vector.load %arg2[%[[ROW]], %[[COL]]] : memref<5x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[U]] : vector<8xf32>
// CHECK-NEXT: vector.store %[[NEW]], %arg2[%[[ROW]], %[[COL]]]
func.func @scatter_rows_vectorized(%U: memref<3x16xf32>, %I: memref<3xi64>, %O: memref<5x16xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %u = "tp.read"(%U) {map = affine_map<(i, j) -> (i, j)>} : (memref<3x16xf32>) -> f32
    %i = "tp.read"(%I) {map = affine_map<(i, j) -> (i)>} : (memref<3xi64>) -> i64
    %row = arith.index_cast %i : i64 to index
    %j = "tp.index"() {axis = "j"} : () -> index
    gpu.yield %u, %row, %j : f32, index, index
  }) {name = "scatter", axes = ["i", "j"], kinds = "SS", extents = array<i64: 3, 16>,
      out_map = affine_map<(i, j) -> ()>, combiner = "max", init,
      schedule = {tile = {j = array<i64: 8>}, vectorize = "j.1"}} : (memref<5x16xf32>) -> ()
  return
}

// -----

// tp.dot4 (four uint8 x int8 products per i32 word) in a register tile: with 256-bit VNNI, one
// vpdpbusd per 8 lanes taking the accumulator in (16 lanes: two halves), with 512-bit VNNI one
// for all 16; without, the bytes are taken apart with shifts and multiplied in i32.
// CHECK-LABEL: func.func @dot4
// CHECK-NOT: llvm.call_intrinsic
// CHECK: arith.shrui {{.*}} : vector<16xi32>
// CHECK: arith.muli {{.*}} : vector<16xi32>
// VNNI-LABEL: func.func @dot4
// VNNI: %[[T:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}, %[[ACC1:.*]] = %{{.*}}) -> (vector<16xi32>, vector<16xi32>)
// VNNI: %[[A:.*]] = vector.bitcast %{{.*}} : vector<8xi32> to vector<32xi8>
// VNNI-NEXT: %[[B:.*]] = vector.bitcast %{{.*}} : vector<8xi32> to vector<32xi8>
// VNNI-NEXT: %[[D:.*]] = llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"(%{{.*}}, %[[A]], %[[B]]) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// VNNI-NEXT: vector.insert_strided_slice %[[D]], %[[ACC0]] {offsets = [0], strides = [1]} : vector<8xi32> into vector<16xi32>
// VNNI-NOT: arith.shrui
// VNNI512-LABEL: func.func @dot4
// VNNI512: %[[A:.*]] = vector.bitcast %{{.*}} : vector<16xi32> to vector<64xi8>
// VNNI512-NEXT: %[[B:.*]] = vector.bitcast %{{.*}} : vector<16xi32> to vector<64xi8>
// VNNI512-NEXT: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[A]], %[[B]]) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// VNNI512-NOT: vector.insert_strided_slice
// Without VNNI, with 256-bit vpmaddwd (AVX2): per 8 lanes the even and the odd bytes widened in
// 16-bit halves (u8: mask, logical shift; s8: arithmetic shifts) and two vpmaddwd, exact.
// MADD-LABEL: func.func @dot4
// MADD-NOT: arith.muli
// MADD: %[[A:.*]] = vector.bitcast %{{.*}} : vector<8xi32> to vector<16xi16>
// MADD-NEXT: %[[B:.*]] = vector.bitcast %{{.*}} : vector<8xi32> to vector<16xi16>
// MADD-NEXT: %[[AE:.*]] = arith.andi %[[A]], %{{.*}} : vector<16xi16>
// MADD-NEXT: %[[AO:.*]] = arith.shrui %[[A]], %{{.*}} : vector<16xi16>
// MADD-NEXT: %[[BS:.*]] = arith.shli %[[B]], %{{.*}} : vector<16xi16>
// MADD-NEXT: %[[BE:.*]] = arith.shrsi %[[BS]], %{{.*}} : vector<16xi16>
// MADD-NEXT: %[[BO:.*]] = arith.shrsi %[[B]], %{{.*}} : vector<16xi16>
// MADD-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%[[AE]], %[[BE]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// MADD-NEXT: %[[O:.*]] = llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%[[AO]], %[[BO]]) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// MADD-NEXT: %[[S:.*]] = arith.addi %[[E]], %[[O]] : vector<8xi32>
// MADD-NEXT: arith.addi %{{.*}}, %[[S]] : vector<8xi32>
// MADD-NOT: arith.muli
// MADD-LABEL: func.func
func.func @dot4(%A: memref<2x4xi32>, %B: memref<4x16xi32>, %C: memref<2x16xi32>) attributes {tp.kernel} {
  "tp.block"(%C) ({
    %a = "tp.read"(%A) {map = affine_map<(i, j, k) -> (i, k)>} : (memref<2x4xi32>) -> i32
    %b = "tp.read"(%B) {map = affine_map<(i, j, k) -> (k, j)>} : (memref<4x16xi32>) -> i32
    %d = "tp.dot4"(%a, %b) : (i32, i32) -> i32
    gpu.yield %d : i32
  }) {name = "dot", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 2, 16, 4>,
      out_map = affine_map<(i, j, k) -> (i, j)>, combiner = "add", init = 0 : i32,
      schedule = {order = ["k", "i", "j"], unroll = {"i" = 2}, vectorize = "j"}} : (memref<2x16xi32>) -> ()
  return
}

// -----

// A reduction vectorized along its reduce axis: 8 lanes of partial sums carried by the k loop,
// the peeled tail (20 = 2 x 8 + 4) combined into lane 0, one horizontal sum per row.
// CHECK-LABEL: func.func @row_sums
// CHECK: %[[ACC:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: %[[TAIL:.*]] = vector.reduction <add>, %{{.*}} fastmath<reassoc,contract> : vector<4xf32> into f32
// CHECK: %[[L0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<8xf32>
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc,contract> : vector<8xf32> into f32
func.func @row_sums(%X: memref<3x20xf32>, %O: memref<3x1xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(i, z, k) -> (i, k)>} : (memref<3x20xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "sum", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 3, 1, 20>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "add", init = 0.0 : f32,
      schedule = {tile = {k = array<i64: 8>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1"}} : (memref<3x1xf32>) -> ()
  return
}

// -----

// A `fastmax` reduction (a softmax's row maximum) combines lanes with compare-and-select (x86's
// maxps), not the NaN-propagating maximumf; the horizontal step halves the lanes (8 -> 4 -> 2
// -> 1), and the 5-lane tail (21 = 2 x 8 + 5) overlaps its halves (lanes 0-2 and 2-4).
// CHECK-LABEL: func.func @row_fastmax
// CHECK-NOT: maximumf
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8xf32>)
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NEXT: arith.select %[[GT]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [3], strides = [1]} : vector<5xf32> to vector<3xf32>
// CHECK-NEXT: vector.extract_strided_slice %{{.*}} {offsets = [2], sizes = [3], strides = [1]} : vector<5xf32> to vector<3xf32>
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK-NOT: maximumf
func.func @row_fastmax(%X: memref<3x21xf32>, %O: memref<3x1xf32>) attributes {tp.kernel} {
  "tp.block"(%O) ({
    %x = "tp.read"(%X) {map = affine_map<(i, z, k) -> (i, k)>} : (memref<3x21xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "max", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 3, 1, 21>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "fastmax", init = 0xFF800000 : f32,
      schedule = {tile = {k = array<i64: 8>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1"}} : (memref<3x1xf32>) -> ()
  return
}

// -----

// Blocks that work row by row (a row's maximum, then the row minus it) share their row loops:
// one loop over tiles of rows (7 rows of 2 KiB fit in 16 KiB; the last tile is partial), each block's loops over the tile's rows
// inside it, so the rows stay in L1 from the first block to the last.
// CHECK-LABEL: func.func @rows_fused
// CHECK: scf.for %[[T:.*]] = %c0 to %c7 step %c1 {
// CHECK: scf.for %[[R:.*]] = %c0 to %c
// CHECK: vector.reduction <maximumf>
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: scf.for %[[R2:.*]] = %c0 to %c
// CHECK: memref.load %arg1
// CHECK: vector.store %{{.*}}, %arg2
// CHECK-NOT: scf.for %{{.*}} = %c0 to %c48 step
// UNFUSED-LABEL: func.func @rows_fused
func.func @rows_fused(%X: memref<48x512xf32>, %M: memref<48x1xf32>, %Y: memref<48x512xf32>) attributes {tp.kernel} {
  "tp.block"(%M) ({
    %x = "tp.read"(%X) {map = affine_map<(i, z, k) -> (i, k)>} : (memref<48x512xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "max", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 48, 1, 512>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "max", init = 0xFF800000 : f32,
      schedule = {tile = {k = array<i64: 16>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1"}} : (memref<48x1xf32>) -> ()
  "tp.block"(%Y) ({
    %x = "tp.read"(%X) {map = affine_map<(i, j) -> (i, j)>} : (memref<48x512xf32>) -> f32
    %m = "tp.read"(%M) {map = affine_map<(i, j) -> (i, 0)>} : (memref<48x1xf32>) -> f32
    %d = arith.subf %x, %m : f32
    gpu.yield %d : f32
  }) {name = "shift", axes = ["i", "j"], kinds = "SS", extents = array<i64: 48, 512>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {tile = {j = array<i64: 16>}, order = ["i", "j.0", "j.1"], vectorize = "j.1"}} : (memref<48x512xf32>) -> ()
  return
}

// -----

// Row fusion with parallel rows: the tiles of rows are what the threads share (48 rows in 8
// tiles of 6 on two threads, 4 tiles each), and each tile's rows stay inside the tensor.
// CHUNKS-LABEL: func.func @rows_fused_parallel
// CHUNKS: scf.parallel (%[[C:.*]]) = (%c0) to (%c2) step (%c1) {
// CHUNKS: %[[LO:.*]] = affine.apply #{{.*}}(%[[C]])
// CHUNKS: %[[HI:.*]] = affine.apply #{{.*}}(%[[C]])
// CHUNKS: scf.for %[[T:.*]] = %[[LO]] to %[[HI]] step %c1 {
// CHUNKS: scf.for %[[R:.*]] = %c0 to %c6 step %c1 {
// CHUNKS: affine.apply #[[ROWMAP:.*]](%[[T]], %[[R]])
// CHUNKS: vector.reduction <maximumf>
// CHUNKS-NEXT: %[[ROW:.*]] = affine.apply #[[ROWMAP]](%[[T]], %[[R]])
// CHUNKS-NEXT: memref.store %{{.*}}, %arg1[%[[ROW]], %c0]
// CHUNKS: scf.for %{{.*}} = %c0 to %c6 step %c1 {
// CHUNKS: vector.store %{{.*}}, %arg2
// CHUNKS-NOT: scf.parallel
func.func @rows_fused_parallel(%X: memref<48x512xf32>, %M: memref<48x1xf32>, %Y: memref<48x512xf32>) attributes {tp.kernel} {
  "tp.block"(%M) ({
    %x = "tp.read"(%X) {map = affine_map<(i, z, k) -> (i, k)>} : (memref<48x512xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "max", axes = ["i", "z", "k"], kinds = "SSR", extents = array<i64: 48, 1, 512>,
      out_map = affine_map<(i, z, k) -> (i, z)>, combiner = "max", init = 0xFF800000 : f32,
      schedule = {tile = {k = array<i64: 16>}, order = ["i", "z", "k.0", "k.1"], vectorize = "k.1", parallel = ["i"]}} : (memref<48x1xf32>) -> ()
  "tp.block"(%Y) ({
    %x = "tp.read"(%X) {map = affine_map<(i, j) -> (i, j)>} : (memref<48x512xf32>) -> f32
    %m = "tp.read"(%M) {map = affine_map<(i, j) -> (i, 0)>} : (memref<48x1xf32>) -> f32
    %d = arith.subf %x, %m : f32
    gpu.yield %d : f32
  }) {name = "shift", axes = ["i", "j"], kinds = "SS", extents = array<i64: 48, 512>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {tile = {j = array<i64: 16>}, order = ["i", "j.0", "j.1"], vectorize = "j.1", parallel = ["i"]}} : (memref<48x512xf32>) -> ()
  return
}

// -----

// Blocks whose shared row loops are a single row (a batch of 1; the reader then reads other
// rows, as a conv reads its padded input) are not row-fused: the reader keeps its own parallel
// loops.
// CHECK-LABEL: func.func @one_shared_row
// CHUNKS-LABEL: func.func @one_shared_row
// CHUNKS: scf.for %{{.*}} = %c0 to %c10 step %c1 {
// CHUNKS: scf.parallel
// CHUNKS: memref.load %arg1
func.func @one_shared_row(%X: memref<1x10x16xf32>, %Y: memref<1x10x16xf32>, %Z: memref<1x8x16xf32>) attributes {tp.kernel} {
  "tp.block"(%Y) ({
    %x = "tp.read"(%X) {map = affine_map<(n, i, j) -> (n, i, j)>} : (memref<1x10x16xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "copy", axes = ["n", "i", "j"], kinds = "SSS", extents = array<i64: 1, 10, 16>,
      out_map = affine_map<(n, i, j) -> (n, i, j)>, combiner = "none", init,
      schedule = {order = ["n", "i", "j"]}} : (memref<1x10x16xf32>) -> ()
  "tp.block"(%Z) ({
    %y = "tp.read"(%Y) {map = affine_map<(n, i, j) -> (n, i + 1, j)>} : (memref<1x10x16xf32>) -> f32
    %y2 = "tp.read"(%Y) {map = affine_map<(n, i, j) -> (n, i + 2, j)>} : (memref<1x10x16xf32>) -> f32
    %s = arith.addf %y, %y2 : f32
    gpu.yield %s : f32
  }) {name = "shifted", axes = ["n", "i", "j"], kinds = "SSS", extents = array<i64: 1, 8, 16>,
      out_map = affine_map<(n, i, j) -> (n, i, j)>, combiner = "none", init,
      schedule = {order = ["n", "i", "j"], parallel = ["n", "i"]}} : (memref<1x8x16xf32>) -> ()
  return
}

// -----

// Row-fused blocks run their shared rows in parallel when any of them is parallel: the padded
// copy below is too small to split (no parallel loops of its own), the conv-like reader is not.
// Before, the first block's schedule decided and the fused nest ran on one thread.
// CHUNKS-LABEL: func.func @serial_first_unit
// CHUNKS: scf.parallel
// CHUNKS: memref.load %arg0
// CHUNKS: memref.load %arg1
func.func @serial_first_unit(%X: memref<1x16x10x8xf32>, %Y: memref<1x16x12x8xf32>, %Z: memref<1x16x10x8xf32>) attributes {tp.kernel} {
  "tp.block"(%Y) ({
    %x = "tp.read_padded"(%X) {map = affine_map<(n, c, i, j) -> (n, c, i - 1, j)>, value = 0.0 : f32} : (memref<1x16x10x8xf32>) -> f32
    gpu.yield %x : f32
  }) {name = "pad", axes = ["n", "c", "i", "j"], kinds = "SSSS", extents = array<i64: 1, 16, 12, 8>,
      out_map = affine_map<(n, c, i, j) -> (n, c, i, j)>, combiner = "none", init,
      schedule = {order = ["n", "c", "i", "j"]}} : (memref<1x16x12x8xf32>) -> ()
  "tp.block"(%Z) ({
    %y = "tp.read"(%Y) {map = affine_map<(n, c, i, j) -> (n, c, i, j)>} : (memref<1x16x12x8xf32>) -> f32
    %y2 = "tp.read"(%Y) {map = affine_map<(n, c, i, j) -> (n, c, i + 2, j)>} : (memref<1x16x12x8xf32>) -> f32
    %s = arith.addf %y, %y2 : f32
    gpu.yield %s : f32
  }) {name = "window", axes = ["n", "c", "i", "j"], kinds = "SSSS", extents = array<i64: 1, 16, 10, 8>,
      out_map = affine_map<(n, c, i, j) -> (n, c, i, j)>, combiner = "none", init,
      schedule = {order = ["n", "c", "i", "j"], parallel = ["n", "c"]}} : (memref<1x16x10x8xf32>) -> ()
  return
}

// -----

// Row fusion over chunks of rows (tp-chunk-rows' schedules for a 2-head attention over 64
// queries in chunks of 15): one parallel loop over heads and chunks holds every block; inside a
// chunk, Q·Kᵀ runs its 3 register tiles of 5 rows, the max and exp their 15 rows (together,
// as one tile of rows), and ·V one tile of 15 rows. The last chunk (rows 60-63) is guarded.
// CHECK-LABEL: func.func @chunked_attention
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c2, %c5)
// CHECK: scf.for %{{.*}} = %c0 to %c3
// CHECK: scf.for %{{.*}} = %c0 to %c8
// CHECK: scf.for %{{.*}} = %c0 to %c15
// CHECK: scf.for %{{.*}} = %c0 to %c15
// CHECK: math.exp
// CHECK: scf.for %{{.*}} = %c0 to %c64
// CHECK: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @chunked_attention(%q: memref<1x2x64x8xf32>, %kt: memref<1x2x8x64xf32>, %v: memref<1x2x64x8xf32>, %out: memref<1x2x64x8xf32>, %ws: memref<?xi8>) attributes {tp.kernel} {
  %c0 = arith.constant 0 : index
  %s = memref.view %ws[%c0][] : memref<?xi8> to memref<1x2x64x64xf32>
  "tp.block"(%s) ({
    %0 = "tp.read"(%q) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x8xf32>) -> f32
    %1 = "tp.read"(%kt) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x8x64xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 64, 8>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_0", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {order = ["s0", "s1", "s2.0", "s2.1", "k", "s2.2", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15, 5>}, unroll = {s2.2 = 5 : i64}, vectorize = "s3"}} : (memref<1x2x64x64xf32>) -> ()
  %c16384 = arith.constant 16384 : index
  %m = memref.view %ws[%c16384][] : memref<?xi8> to memref<1x2x64x1xf32>
  "tp.block"(%m) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    gpu.yield %0 : f32
  }) {axes = ["s0", "s1", "s2", "r3"], combiner = "max", extents = array<i64: 1, 2, 64, 64>, init = 0xFF800000 : f32, kinds = "SSSR", name = "softmax_max_1", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, schedule = {order = ["s0", "s1", "s2.0", "s2.1", "r3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15>}, vectorize = "r3"}} : (memref<1x2x64x1xf32>) -> ()
  "tp.block"(%s) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%m) {map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>} : (memref<1x2x64x1xf32>) -> f32
    %2 = arith.subf %0, %1 : f32
    %3 = math.exp %2 : f32
    gpu.yield %3 : f32
  }) {axes = ["i0", "i1", "i2", "i3"], combiner = "none", extents = array<i64: 1, 2, 64, 64>, init, kinds = "SSSS", name = "softmax_exp_2", out_map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, schedule = {order = ["i0", "i1", "i2.0", "i2.1", "i3.0", "i3.1"], parallel = ["i0", "i1", "i2.0"], tile = {i2 = array<i64: 15>, i3 = array<i64: 16>}, vectorize = "i3.1"}} : (memref<1x2x64x64xf32>) -> ()
  "tp.block"(%out) ({
    %0 = "tp.read"(%s) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d2, d4)>} : (memref<1x2x64x64xf32>) -> f32
    %1 = "tp.read"(%v) {map = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, d4, d3)>} : (memref<1x2x64x8xf32>) -> f32
    %2 = arith.mulf %0, %1 : f32
    gpu.yield %2 : f32
  }) {axes = ["s0", "s1", "s2", "s3", "k"], combiner = "add", extents = array<i64: 1, 2, 64, 8, 64>, init = 0.000000e+00 : f32, kinds = "SSSSR", name = "matmul_6", out_map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, schedule = {order = ["s0", "s1", "s2.0", "k", "s2.1", "s3"], parallel = ["s0", "s1", "s2.0"], tile = {s2 = array<i64: 15>}, unroll = {s2.1 = 15 : i64}, vectorize = "s3"}} : (memref<1x2x64x8xf32>) -> ()
  return
}

// -----

// Lanes two apart along the innermost dim (a stride-2 window): one load of 32 floats and a
// shuffle of the even ones where that stays inside the row; past its end one gather, its lanes
// masked to the row and its indices clamped into it.
// CHECK-LABEL: func.func @strided_lanes
// CHECK: scf.if
// CHECK: %[[W:.*]] = vector.load %arg0[%{{.*}}] : memref<100xf32>, vector<32xf32>
// CHECK: vector.shuffle %[[W]], %[[W]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: } else {
// CHECK-NOT: memref.load
// CHECK: %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : vector<16xi1>
// CHECK: %[[LO:.*]] = arith.maxsi
// CHECK: %[[IX:.*]] = arith.minsi %[[LO]]
// CHECK: vector.gather %arg0[%c0] [%[[IX]]], %[[IN]], %{{.*}} : memref<100xf32>, vector<16xindex>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK-NEXT: scf.yield
func.func @strided_lanes(%A: memref<100xf32>, %O: memref<48xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i * 2)>} : (memref<100xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "every_other", axes = ["i"], kinds = "S", extents = array<i64: 48>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tile = {i = array<i64: 16>}, order = ["i.0", "i.1"], vectorize = "i.1"}} : (memref<48xf32>) -> ()
  return
}

// -----

// A padded window (a pool with pads 1): inside the image one vector load; at its borders one
// gather whose lanes outside the row, or on a row outside the image, read the padding value
// (the row index is clamped and its check joins the lanes' mask).
// CHECK-LABEL: func.func @padded_border
// CHECK: scf.if
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] : memref<10x10xf32>, vector<8xf32>
// CHECK: } else {
// CHECK-NOT: memref.load
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %c9 : index
// CHECK: %[[OK:.*]] = vector.broadcast %{{.*}} : i1 to vector<8xi1>
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %[[OK]] : vector<8xi1>
// CHECK: vector.gather %arg0[%[[ROW]], %c0] [%{{.*}}], %[[MASK]], %{{.*}} : memref<10x10xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
func.func @padded_border(%A: memref<10x10xf32>, %O: memref<10x16xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read_padded"(%A) {map = affine_map<(i, j, k) -> (i + k - 1, j - 1)>, value = -1.0 : f32} : (memref<10x10xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "window", axes = ["i", "j", "k"], kinds = "SSR", extents = array<i64: 10, 16, 3>, out_map = affine_map<(i, j, k) -> (i, j)>,
      combiner = "max", init = 0xFF800000 : f32, schedule = {tile = {j = array<i64: 8>}, order = ["i", "j.0", "k", "j.1"], vectorize = "j.1"}} : (memref<10x16xf32>) -> ()
  return
}

// -----

// An extent known only at run time: the loop over the rows runs to the kernel's symbol
// argument `n`; the static axis keeps its vectors.
// CHECK-LABEL: func.func @symbolic_rows(
// CHECK-SAME: %[[X:.*]]: memref<?x16xf32>, %[[Y:.*]]: memref<?x16xf32>, %[[N:.*]]: index)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[I]], %{{.*}}] : memref<?x16xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[Y]][%[[I]], %{{.*}}] : memref<?x16xf32>, vector<8xf32>
func.func @symbolic_rows(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) attributes {tp.kernel, tp.symbols = ["n"]} {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(d0, d1) -> (d0, d1)>} : (memref<?x16xf32>) -> f32
    %c0 = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %c0 : f32
    gpu.yield %r : f32
  }) {axes = ["i", "j"], combiner = "none", extent_exprs = ["n", ""], extents = array<i64: -1, 16>, init, kinds = "SS", name = "relu_0", out_map = affine_map<(d0, d1) -> (d0, d1)>, schedule = {order = ["i", "j.0", "j.1"], tile = {j = array<i64: 8>}, vectorize = "j.1"}} : (memref<?x16xf32>) -> ()
  return
}

// -----

// A map reading 4 inputs per point (a Winograd transform's sums) keeps its loops rolled in
// LLVM: fully unrolled, 14 x 6 loads per row cost Loop Strength Reduction 0.6 s on one kernel.
// A map with fewer reads leaves LLVM free to unroll.
// CHECK: #[[$UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[$ROLLED:.*]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// CHECK-LABEL: func.func @many_reads_rolled
// CHECK: scf.for
// CHECK: } {loop_annotation = #[[$ROLLED]]}
// CHECK-LABEL: func.func @few_reads_free
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @many_reads_rolled(%X: memref<4x14x16xf32>, %O: memref<14x16xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%X) {map = affine_map<(i, j) -> (0, i, j)>} : (memref<4x14x16xf32>) -> f32
    %b = "tp.read"(%X) {map = affine_map<(i, j) -> (1, i, j)>} : (memref<4x14x16xf32>) -> f32
    %c = "tp.read"(%X) {map = affine_map<(i, j) -> (2, i, j)>} : (memref<4x14x16xf32>) -> f32
    %d = "tp.read"(%X) {map = affine_map<(i, j) -> (3, i, j)>} : (memref<4x14x16xf32>) -> f32
    %s0 = arith.addf %a, %b : f32
    %s1 = arith.subf %c, %d : f32
    %s = arith.addf %s0, %s1 : f32
    gpu.yield %s : f32
  }) {name = "transform", axes = ["i", "j"], kinds = "SS", extents = array<i64: 14, 16>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {order = ["i", "j"], vectorize = "j"}} : (memref<14x16xf32>) -> ()
  return
}

func.func @few_reads_free(%X: memref<14x16xf32>, %O: memref<14x16xf32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%X) {map = affine_map<(i, j) -> (i, j)>} : (memref<14x16xf32>) -> f32
    %s = arith.addf %a, %a : f32
    gpu.yield %s : f32
  }) {name = "double", axes = ["i", "j"], kinds = "SS", extents = array<i64: 14, 16>,
      out_map = affine_map<(i, j) -> (i, j)>, combiner = "none", init,
      schedule = {order = ["i", "j"], vectorize = "j"}} : (memref<14x16xf32>) -> ()
  return
}
