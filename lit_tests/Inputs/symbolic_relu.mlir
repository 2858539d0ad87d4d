// A graph-dialect model with one symbolic dim (n): relu over [n, 16] (tp-profile.mlir reads it).
module {
  func.func @main(%x: tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]> {
    %0 = "graph.relu"(%x) : (tensor<?x16xf32, ["n", 16]>) -> tensor<?x16xf32, ["n", 16]>
    return %0 : tensor<?x16xf32, ["n", 16]>
  }
}
