// A tp kernel over a run-time extent n (tp-apply-records.mlir reads it).
func.func @kn(%A: memref<?xf32>, %O: memref<?xf32>, %n: index) attributes {tp.kernel, tp.symbols = ["n"]} {
  "tp.block"(%O) ({
    %a = "tp.read"(%A) {map = affine_map<(i) -> (i)>} : (memref<?xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i"], kinds = "S", extents = array<i64: -1>, extent_exprs = ["n"], out_map = affine_map<(i) -> (i)>,
      combiner = "none", init, schedule = {}} : (memref<?xf32>) -> ()
  return
}
