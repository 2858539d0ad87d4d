// A tp kernel whose rows are a run-time size (for tp-apply-records' lit test).
func.func @rows(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %seq: index) attributes {tp.kernel, tp.symbols = ["seq"]} {
  "tp.block"(%y) ({
    %a = "tp.read"(%x) {map = affine_map<(i, j) -> (i, j)>} : (memref<?x64xf32>) -> f32
    %e = math.exp %a : f32
    gpu.yield %e : f32
  }) {name = "exp", axes = ["i", "j"], kinds = "SS", extents = array<i64: -1, 64>,
      extent_exprs = ["seq", ""], out_map = affine_map<(i, j) -> (i, j)>, combiner = "none",
      init, schedule = {}} : (memref<?x64xf32>) -> ()
  return
}
