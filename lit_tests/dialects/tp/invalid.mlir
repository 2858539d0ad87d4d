// RUN: mlc-opt %s --split-input-file --verify-diagnostics
// Every verifier message of the tp dialect.

func.func @kinds_length(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op kinds 'SR' must have one S (spatial) or R (reduce) per axis}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "SR", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @duplicate_axes(%O: memref<4x4xf32>) {
  // expected-error @+1 {{'tp.block' op axes ['i', 'i'] must be distinct identifiers}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i", "i"], kinds = "SS", extents = array<i64: 4, 4>, out_map = affine_map<(i, j) -> (i, j)>,
      combiner = "none", init, schedule = {}} : (memref<4x4xf32>) -> ()
  return
}

// -----

func.func @out_map_out_of_bounds(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op out_map index 0 (d0 + 1) ranges over [1, 4] but the dim has size 4}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i + 1)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @out_map_uses_reduce_axis(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op out_map uses reduce axis 'k'}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["k"], kinds = "R", extents = array<i64: 4>, out_map = affine_map<(k) -> (k)>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @reduce_without_combiner(%O: memref<1xf32>) {
  // expected-error @+1 {{'tp.block' op a block with reduce axes needs a combiner other than 'none', and only it}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["k"], kinds = "R", extents = array<i64: 4>, out_map = affine_map<(k) -> (0)>,
      combiner = "none", init, schedule = {}} : (memref<1xf32>) -> ()
  return
}

// -----

func.func @unknown_combiner(%O: memref<1xf32>) {
  // expected-error @+1 {{'tp.block' op combiner 'avg' is not one of none, add, mul, max, min}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["k"], kinds = "R", extents = array<i64: 4>, out_map = affine_map<(k) -> (0)>,
      combiner = "avg", init = 0.0 : f32, schedule = {}} : (memref<1xf32>) -> ()
  return
}

// -----

func.func @init_type(%O: memref<1xf32>) {
  // expected-error @+1 {{'tp.block' op init must be a f32 constant, got 0 : i64}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["k"], kinds = "R", extents = array<i64: 4>, out_map = affine_map<(k) -> (0)>,
      combiner = "add", init = 0 : i64, schedule = {}} : (memref<1xf32>) -> ()
  return
}

// -----

func.func @yield_type(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op body must yield one f32, got (i32)}}
  "tp.block"(%O) ({
    %c = arith.constant 1 : i32
    gpu.yield %c : i32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @read_out_of_bounds(%A: memref<4xf32>, %O: memref<4xf32>) {
  "tp.block"(%O) ({
    // expected-error @+1 {{'tp.read' op reads out of bounds (use tp.read_padded for padding): index 0 (d0 - 1) ranges over [-1, 2] but the dim has size 4}}
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i - 1)>} : (memref<4xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @read_map_rank(%A: memref<4x4xf32>, %O: memref<4xf32>) {
  "tp.block"(%O) ({
    // expected-error @+1 {{'tp.read' op map (d0) -> (d0) must have 1 dims and 2 results}}
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<4x4xf32>) -> f32
    gpu.yield %a : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @read_outside_block(%A: memref<4xf32>) {
  // expected-error @+1 {{'tp.read' op must be nested in a tp.block}}
  %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<4xf32>) -> f32
  return
}

// -----

func.func @unknown_index_axis(%O: memref<4xindex>) {
  "tp.block"(%O) ({
    // expected-error @+1 {{'tp.index' op axis 'j' is not an axis of block 'b'}}
    %j = "tp.index"() {axis = "j"} : () -> index
    gpu.yield %j : index
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xindex>) -> ()
  return
}

// -----

func.func @load_indices(%A: memref<4x4xf32>, %O: memref<4xf32>) {
  "tp.block"(%O) ({
    %i = "tp.index"() {axis = "i"} : () -> index
    // expected-error @+1 {{'tp.load' op needs 2 indices, got 1}}
    %a = "tp.load"(%A, %i) : (memref<4x4xf32>, index) -> f32
    gpu.yield %a : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @schedule_unknown_axis(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: tile names unknown axis 'x' (axes: i)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tile = {x = array<i64: 2>}}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @schedule_bad_tile(%O: memref<8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: tile sizes [4, 3] of axis 'i' (extent 8) must be decreasing, positive, each dividing the previous one}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tile = {i = array<i64: 4, 3>}}} : (memref<8xf32>) -> ()
  return
}

// -----

func.func @schedule_vectorize_reduce_with_stored_rows(%O: memref<2xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: vectorized reduce loop 'k.1' needs the spatial loops after the first reduce loop unrolled, not ['i']}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i", "k"], kinds = "SR", extents = array<i64: 2, 8>, out_map = affine_map<(i, k) -> (i)>,
      combiner = "add", init = 0.0 : f32, schedule = {tile = {k = array<i64: 4>}, order = ["k.0", "i", "k.1"], vectorize = "k.1"}} : (memref<2xf32>) -> ()
  return
}

// -----

func.func @schedule_vectorize_not_innermost(%O: memref<8x8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: vectorized loop 'i' must be the innermost loop}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i", "j"], kinds = "SS", extents = array<i64: 8, 8>, out_map = affine_map<(i, j) -> (i, j)>,
      combiner = "none", init, schedule = {vectorize = "i"}} : (memref<8x8xf32>) -> ()
  return
}

// -----

func.func @schedule_parallel_reduce(%O: memref<1xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: parallel loop 'k' must be a spatial loop}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["k"], kinds = "R", extents = array<i64: 8>, out_map = affine_map<(k) -> (0)>,
      combiner = "add", init = 0.0 : f32, schedule = {parallel = ["k"]}} : (memref<1xf32>) -> ()
  return
}

// -----

func.func @schedule_order(%O: memref<8x8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: order ['i'] must list every loop exactly once: ['i', 'j']}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i", "j"], kinds = "SS", extents = array<i64: 8, 8>, out_map = affine_map<(i, j) -> (i, j)>,
      combiner = "none", init, schedule = {order = ["i"]}} : (memref<8x8xf32>) -> ()
  return
}

// -----

func.func @schedule_unknown_key(%O: memref<8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: unknown schedule key(s) ['tiles']; expected ['tile', 'order', 'unroll', 'vectorize', 'parallel', 'parallel_from']}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {tiles = {}}} : (memref<8xf32>) -> ()
  return
}

// -----

func.func @schedule_unroll_loop(%O: memref<8xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: unroll names unknown loop 'i.1' (loops: i)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 8>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {unroll = {"i.1" = 2}}} : (memref<8xf32>) -> ()
  return
}

// -----

func.func @not_a_memref(%O: tensor<4xf32>) {
  // expected-error @+2 {{expected base type 'builtin.memref' but got 'builtin.tensor'}}
  // expected-note @+1 {{see current operation}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    gpu.yield %c : f32
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @scatter_position_rank(%O: memref<4x4xf32>) {
  // expected-error @+1 {{'tp.block' op a scatter block yields one f32 and 2 index values (its output position), got (f32, index)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    gpu.yield %c, %i : f32, index
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> ()>,
      combiner = "none", init, schedule = {}} : (memref<4x4xf32>) -> ()
  return
}

// -----

func.func @scatter_with_out_map(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op out_map (d0) -> (d0) must have 1 dims and 0 results (a scatter block yields its positions)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    gpu.yield %c, %i : f32, index
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @scatter_reduce_axis(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op a scatter block has spatial axes only (its combiner needs none)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    gpu.yield %c, %i : f32, index
  }) {name = "b", axes = ["i", "k"], kinds = "SR", extents = array<i64: 4, 2>, out_map = affine_map<(i, k) -> ()>,
      combiner = "add", init, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @scatter_init(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op init must be `unit` for a scatter block (it combines into the output)}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    gpu.yield %c, %i : f32, index
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> ()>,
      combiner = "add", init = 0.0 : f32, schedule = {}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @scatter_parallel(%O: memref<4xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: a scatter block runs sequentially (repeated positions apply in order): no parallel loops}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    gpu.yield %c, %i : f32, index
  }) {name = "b", axes = ["i"], kinds = "S", extents = array<i64: 4>, out_map = affine_map<(i) -> ()>,
      combiner = "none", init, schedule = {parallel = ["i"]}} : (memref<4xf32>) -> ()
  return
}

// -----

func.func @scatter_vectorized_along_a_computed_position(%I: memref<4xi64>, %O: memref<8x4xf32>) {
  // expected-error @+1 {{'tp.block' op schedule: a scatter block may only vectorize the axis that is its last output position (lanes must write consecutive elements), not 'j'}}
  "tp.block"(%O) ({
    %c = arith.constant 1.0 : f32
    %i = "tp.index"() {axis = "i"} : () -> index
    %r = "tp.read"(%I) {map = affine_map<(i, j) -> (j)>} : (memref<4xi64>) -> i64
    %j = arith.index_cast %r : i64 to index
    gpu.yield %c, %i, %j : f32, index, index
  }) {name = "b", axes = ["i", "j"], kinds = "SS", extents = array<i64: 8, 4>, out_map = affine_map<(i, j) -> ()>,
      combiner = "none", init, schedule = {vectorize = "j"}} : (memref<8x4xf32>) -> ()
  return
}

// -----

func.func @dot4_operands_are_words(%A: memref<4xi8>, %O: memref<1xi32>) {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i, k) -> (k)>} : (memref<4xi8>) -> i8
    // expected-error @+1 {{expected 'i32' but got 'i8'}}
    %d = "tp.dot4"(%a, %a) : (i8, i8) -> i32
    gpu.yield %d : i32
  }) {name = "b", axes = ["i", "k"], kinds = "SR", extents = array<i64: 1, 4>, out_map = affine_map<(i, k) -> (i)>,
      combiner = "add", init = 0 : i32, schedule = {}} : (memref<1xi32>) -> ()
  return
}
