// A reversible residual classifier, trained by trellis-train (the main job;
// docs/training.md). Two projections of the 16 input features start the two
// streams of a reversible stack of 2 blocks (F and G residuals: layer_norm →
// dense 32→64 → gelu → dense 64→32, with swaps); the logits come from the
// sum of the streams. Its backward pass reconstructs the stack's activations
// instead of storing them. Batch 32 per rank, 4 classes.
//
//   trellis-train model.mlir --data=train.npz --eval-data=test.npz --output-dir=out

func.func private @logits(%wa: tensor<16x32xf32>,
    %wb: tensor<16x32xf32>,
    %zb: tensor<32xf32>,
    %f0s: tensor<32xf32>,
    %f0o: tensor<32xf32>,
    %f0w1: tensor<32x64xf32>,
    %f0b1: tensor<64xf32>,
    %f0w2: tensor<64x32xf32>,
    %f0b2: tensor<32xf32>,
    %g0s: tensor<32xf32>,
    %g0o: tensor<32xf32>,
    %g0w1: tensor<32x64xf32>,
    %g0b1: tensor<64xf32>,
    %g0w2: tensor<64x32xf32>,
    %g0b2: tensor<32xf32>,
    %f1s: tensor<32xf32>,
    %f1o: tensor<32xf32>,
    %f1w1: tensor<32x64xf32>,
    %f1b1: tensor<64xf32>,
    %f1w2: tensor<64x32xf32>,
    %f1b2: tensor<32xf32>,
    %g1s: tensor<32xf32>,
    %g1o: tensor<32xf32>,
    %g1w1: tensor<32x64xf32>,
    %g1b1: tensor<64xf32>,
    %g1w2: tensor<64x32xf32>,
    %g1b2: tensor<32xf32>,
    %wo: tensor<32x4xf32>,
    %bo: tensor<4xf32>,
    %x: tensor<32x16xf32>) -> tensor<32x4xf32> {
  %x1 = nn.dense %x, %wa, %zb : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %x2 = nn.dense %x, %wb, %zb : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
  %y:2 = nn.reversible_serial %x1, %x2 : tensor<32x32xf32>, tensor<32x32xf32> {
  ^bb0(%c1: tensor<32x32xf32>, %c2: tensor<32x32xf32>):
    %pf0:2 = nn.reversible_half_residual %c1, %c2 : tensor<32x32xf32>, tensor<32x32xf32> {
    ^bb0(%u: tensor<32x32xf32>):
      %f0n = nn.layer_norm %u, %f0s, %f0o : (tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      %f0h = nn.dense %f0n, %f0w1, %f0b1 : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
      %f0a = nn.gelu %f0h : tensor<32x64xf32>
      %f0r = nn.dense %f0a, %f0w2, %f0b2 : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      nn.yield %f0r : tensor<32x32xf32>
    }
    %sf0:2 = nn.reversible_swap %pf0#0, %pf0#1 : tensor<32x32xf32>, tensor<32x32xf32>
    %pg0:2 = nn.reversible_half_residual %sf0#0, %sf0#1 : tensor<32x32xf32>, tensor<32x32xf32> {
    ^bb0(%u: tensor<32x32xf32>):
      %g0n = nn.layer_norm %u, %g0s, %g0o : (tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      %g0h = nn.dense %g0n, %g0w1, %g0b1 : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
      %g0a = nn.gelu %g0h : tensor<32x64xf32>
      %g0r = nn.dense %g0a, %g0w2, %g0b2 : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      nn.yield %g0r : tensor<32x32xf32>
    }
    %sg0:2 = nn.reversible_swap %pg0#0, %pg0#1 : tensor<32x32xf32>, tensor<32x32xf32>
    %pf1:2 = nn.reversible_half_residual %sg0#0, %sg0#1 : tensor<32x32xf32>, tensor<32x32xf32> {
    ^bb0(%u: tensor<32x32xf32>):
      %f1n = nn.layer_norm %u, %f1s, %f1o : (tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      %f1h = nn.dense %f1n, %f1w1, %f1b1 : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
      %f1a = nn.gelu %f1h : tensor<32x64xf32>
      %f1r = nn.dense %f1a, %f1w2, %f1b2 : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      nn.yield %f1r : tensor<32x32xf32>
    }
    %sf1:2 = nn.reversible_swap %pf1#0, %pf1#1 : tensor<32x32xf32>, tensor<32x32xf32>
    %pg1:2 = nn.reversible_half_residual %sf1#0, %sf1#1 : tensor<32x32xf32>, tensor<32x32xf32> {
    ^bb0(%u: tensor<32x32xf32>):
      %g1n = nn.layer_norm %u, %g1s, %g1o : (tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      %g1h = nn.dense %g1n, %g1w1, %g1b1 : (tensor<32x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
      %g1a = nn.gelu %g1h : tensor<32x64xf32>
      %g1r = nn.dense %g1a, %g1w2, %g1b2 : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<32x32xf32>
      nn.yield %g1r : tensor<32x32xf32>
    }
    %sg1:2 = nn.reversible_swap %pg1#0, %pg1#1 : tensor<32x32xf32>, tensor<32x32xf32>
    nn.yield %sg1#0, %sg1#1 : tensor<32x32xf32>, tensor<32x32xf32>
  }
  %m = arith.addf %y#0, %y#1 : tensor<32x32xf32>
  %logits = nn.dense %m, %wo, %bo : (tensor<32x32xf32>, tensor<32x4xf32>, tensor<4xf32>) -> tensor<32x4xf32>
  return %logits : tensor<32x4xf32>
}

func.func private @loss(%wa: tensor<16x32xf32>,
    %wb: tensor<16x32xf32>,
    %zb: tensor<32xf32>,
    %f0s: tensor<32xf32>,
    %f0o: tensor<32xf32>,
    %f0w1: tensor<32x64xf32>,
    %f0b1: tensor<64xf32>,
    %f0w2: tensor<64x32xf32>,
    %f0b2: tensor<32xf32>,
    %g0s: tensor<32xf32>,
    %g0o: tensor<32xf32>,
    %g0w1: tensor<32x64xf32>,
    %g0b1: tensor<64xf32>,
    %g0w2: tensor<64x32xf32>,
    %g0b2: tensor<32xf32>,
    %f1s: tensor<32xf32>,
    %f1o: tensor<32xf32>,
    %f1w1: tensor<32x64xf32>,
    %f1b1: tensor<64xf32>,
    %f1w2: tensor<64x32xf32>,
    %f1b2: tensor<32xf32>,
    %g1s: tensor<32xf32>,
    %g1o: tensor<32xf32>,
    %g1w1: tensor<32x64xf32>,
    %g1b1: tensor<64xf32>,
    %g1w2: tensor<64x32xf32>,
    %g1b2: tensor<32xf32>,
    %wo: tensor<32x4xf32>,
    %bo: tensor<4xf32>,
    %x: tensor<32x16xf32>, %labels: tensor<32xi32>) -> tensor<f32> {
  %z = call @logits(%wa, %wb, %zb, %f0s, %f0o, %f0w1, %f0b1, %f0w2, %f0b2, %g0s, %g0o, %g0w1, %g0b1, %g0w2, %g0b2, %f1s, %f1o, %f1w1, %f1b1, %f1w2, %f1b2, %g1s, %g1o, %g1w1, %g1b1, %g1w2, %g1b2, %wo, %bo, %x) : (tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<32x16xf32>) -> tensor<32x4xf32>
  %l = nn.cross_entropy %z, %labels : (tensor<32x4xf32>, tensor<32xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// One SGD step (learning rate 0.1): new parameters, then the loss.
func.func @train_step(%wa: tensor<16x32xf32> {trellis.init = "glorot_uniform"},
    %wb: tensor<16x32xf32> {trellis.init = "glorot_uniform"},
    %zb: tensor<32xf32> {trellis.init = "zeros"},
    %f0s: tensor<32xf32> {trellis.init = "ones"},
    %f0o: tensor<32xf32> {trellis.init = "zeros"},
    %f0w1: tensor<32x64xf32> {trellis.init = "glorot_uniform"},
    %f0b1: tensor<64xf32> {trellis.init = "zeros"},
    %f0w2: tensor<64x32xf32> {trellis.init = "normal:0.02"},
    %f0b2: tensor<32xf32> {trellis.init = "zeros"},
    %g0s: tensor<32xf32> {trellis.init = "ones"},
    %g0o: tensor<32xf32> {trellis.init = "zeros"},
    %g0w1: tensor<32x64xf32> {trellis.init = "glorot_uniform"},
    %g0b1: tensor<64xf32> {trellis.init = "zeros"},
    %g0w2: tensor<64x32xf32> {trellis.init = "normal:0.02"},
    %g0b2: tensor<32xf32> {trellis.init = "zeros"},
    %f1s: tensor<32xf32> {trellis.init = "ones"},
    %f1o: tensor<32xf32> {trellis.init = "zeros"},
    %f1w1: tensor<32x64xf32> {trellis.init = "glorot_uniform"},
    %f1b1: tensor<64xf32> {trellis.init = "zeros"},
    %f1w2: tensor<64x32xf32> {trellis.init = "normal:0.02"},
    %f1b2: tensor<32xf32> {trellis.init = "zeros"},
    %g1s: tensor<32xf32> {trellis.init = "ones"},
    %g1o: tensor<32xf32> {trellis.init = "zeros"},
    %g1w1: tensor<32x64xf32> {trellis.init = "glorot_uniform"},
    %g1b1: tensor<64xf32> {trellis.init = "zeros"},
    %g1w2: tensor<64x32xf32> {trellis.init = "normal:0.02"},
    %g1b2: tensor<32xf32> {trellis.init = "zeros"},
    %wo: tensor<32x4xf32> {trellis.init = "glorot_uniform"},
    %bo: tensor<4xf32> {trellis.init = "zeros"},
    %x: tensor<32x16xf32> {trellis.batch = "x"}, %labels: tensor<32xi32> {trellis.batch = "y"})
    -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<f32>) {
  %l, %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7, %g8, %g9, %g10, %g11, %g12, %g13, %g14, %g15, %g16, %g17, %g18, %g19, %g20, %g21, %g22, %g23, %g24, %g25, %g26, %g27, %g28 = ad.value_and_grad @loss(%wa, %wb, %zb, %f0s, %f0o, %f0w1, %f0b1, %f0w2, %f0b2, %g0s, %g0o, %g0w1, %g0b1, %g0w2, %g0b2, %f1s, %f1o, %f1w1, %f1b1, %f1w2, %f1b2, %g1s, %g1o, %g1w1, %g1b1, %g1w2, %g1b2, %wo, %bo, %x, %labels)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28>}
      : (tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<32x16xf32>, tensor<32xi32>) -> (tensor<f32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>)
  %lr0 = arith.constant dense<0.1> : tensor<16x32xf32>
  %s0 = arith.mulf %g0, %lr0 : tensor<16x32xf32>
  %n0 = arith.subf %wa, %s0 : tensor<16x32xf32>
  %lr1 = arith.constant dense<0.1> : tensor<16x32xf32>
  %s1 = arith.mulf %g1, %lr1 : tensor<16x32xf32>
  %n1 = arith.subf %wb, %s1 : tensor<16x32xf32>
  %lr2 = arith.constant dense<0.1> : tensor<32xf32>
  %s2 = arith.mulf %g2, %lr2 : tensor<32xf32>
  %n2 = arith.subf %zb, %s2 : tensor<32xf32>
  %lr3 = arith.constant dense<0.1> : tensor<32xf32>
  %s3 = arith.mulf %g3, %lr3 : tensor<32xf32>
  %n3 = arith.subf %f0s, %s3 : tensor<32xf32>
  %lr4 = arith.constant dense<0.1> : tensor<32xf32>
  %s4 = arith.mulf %g4, %lr4 : tensor<32xf32>
  %n4 = arith.subf %f0o, %s4 : tensor<32xf32>
  %lr5 = arith.constant dense<0.1> : tensor<32x64xf32>
  %s5 = arith.mulf %g5, %lr5 : tensor<32x64xf32>
  %n5 = arith.subf %f0w1, %s5 : tensor<32x64xf32>
  %lr6 = arith.constant dense<0.1> : tensor<64xf32>
  %s6 = arith.mulf %g6, %lr6 : tensor<64xf32>
  %n6 = arith.subf %f0b1, %s6 : tensor<64xf32>
  %lr7 = arith.constant dense<0.1> : tensor<64x32xf32>
  %s7 = arith.mulf %g7, %lr7 : tensor<64x32xf32>
  %n7 = arith.subf %f0w2, %s7 : tensor<64x32xf32>
  %lr8 = arith.constant dense<0.1> : tensor<32xf32>
  %s8 = arith.mulf %g8, %lr8 : tensor<32xf32>
  %n8 = arith.subf %f0b2, %s8 : tensor<32xf32>
  %lr9 = arith.constant dense<0.1> : tensor<32xf32>
  %s9 = arith.mulf %g9, %lr9 : tensor<32xf32>
  %n9 = arith.subf %g0s, %s9 : tensor<32xf32>
  %lr10 = arith.constant dense<0.1> : tensor<32xf32>
  %s10 = arith.mulf %g10, %lr10 : tensor<32xf32>
  %n10 = arith.subf %g0o, %s10 : tensor<32xf32>
  %lr11 = arith.constant dense<0.1> : tensor<32x64xf32>
  %s11 = arith.mulf %g11, %lr11 : tensor<32x64xf32>
  %n11 = arith.subf %g0w1, %s11 : tensor<32x64xf32>
  %lr12 = arith.constant dense<0.1> : tensor<64xf32>
  %s12 = arith.mulf %g12, %lr12 : tensor<64xf32>
  %n12 = arith.subf %g0b1, %s12 : tensor<64xf32>
  %lr13 = arith.constant dense<0.1> : tensor<64x32xf32>
  %s13 = arith.mulf %g13, %lr13 : tensor<64x32xf32>
  %n13 = arith.subf %g0w2, %s13 : tensor<64x32xf32>
  %lr14 = arith.constant dense<0.1> : tensor<32xf32>
  %s14 = arith.mulf %g14, %lr14 : tensor<32xf32>
  %n14 = arith.subf %g0b2, %s14 : tensor<32xf32>
  %lr15 = arith.constant dense<0.1> : tensor<32xf32>
  %s15 = arith.mulf %g15, %lr15 : tensor<32xf32>
  %n15 = arith.subf %f1s, %s15 : tensor<32xf32>
  %lr16 = arith.constant dense<0.1> : tensor<32xf32>
  %s16 = arith.mulf %g16, %lr16 : tensor<32xf32>
  %n16 = arith.subf %f1o, %s16 : tensor<32xf32>
  %lr17 = arith.constant dense<0.1> : tensor<32x64xf32>
  %s17 = arith.mulf %g17, %lr17 : tensor<32x64xf32>
  %n17 = arith.subf %f1w1, %s17 : tensor<32x64xf32>
  %lr18 = arith.constant dense<0.1> : tensor<64xf32>
  %s18 = arith.mulf %g18, %lr18 : tensor<64xf32>
  %n18 = arith.subf %f1b1, %s18 : tensor<64xf32>
  %lr19 = arith.constant dense<0.1> : tensor<64x32xf32>
  %s19 = arith.mulf %g19, %lr19 : tensor<64x32xf32>
  %n19 = arith.subf %f1w2, %s19 : tensor<64x32xf32>
  %lr20 = arith.constant dense<0.1> : tensor<32xf32>
  %s20 = arith.mulf %g20, %lr20 : tensor<32xf32>
  %n20 = arith.subf %f1b2, %s20 : tensor<32xf32>
  %lr21 = arith.constant dense<0.1> : tensor<32xf32>
  %s21 = arith.mulf %g21, %lr21 : tensor<32xf32>
  %n21 = arith.subf %g1s, %s21 : tensor<32xf32>
  %lr22 = arith.constant dense<0.1> : tensor<32xf32>
  %s22 = arith.mulf %g22, %lr22 : tensor<32xf32>
  %n22 = arith.subf %g1o, %s22 : tensor<32xf32>
  %lr23 = arith.constant dense<0.1> : tensor<32x64xf32>
  %s23 = arith.mulf %g23, %lr23 : tensor<32x64xf32>
  %n23 = arith.subf %g1w1, %s23 : tensor<32x64xf32>
  %lr24 = arith.constant dense<0.1> : tensor<64xf32>
  %s24 = arith.mulf %g24, %lr24 : tensor<64xf32>
  %n24 = arith.subf %g1b1, %s24 : tensor<64xf32>
  %lr25 = arith.constant dense<0.1> : tensor<64x32xf32>
  %s25 = arith.mulf %g25, %lr25 : tensor<64x32xf32>
  %n25 = arith.subf %g1w2, %s25 : tensor<64x32xf32>
  %lr26 = arith.constant dense<0.1> : tensor<32xf32>
  %s26 = arith.mulf %g26, %lr26 : tensor<32xf32>
  %n26 = arith.subf %g1b2, %s26 : tensor<32xf32>
  %lr27 = arith.constant dense<0.1> : tensor<32x4xf32>
  %s27 = arith.mulf %g27, %lr27 : tensor<32x4xf32>
  %n27 = arith.subf %wo, %s27 : tensor<32x4xf32>
  %lr28 = arith.constant dense<0.1> : tensor<4xf32>
  %s28 = arith.mulf %g28, %lr28 : tensor<4xf32>
  %n28 = arith.subf %bo, %s28 : tensor<4xf32>
  return %n0, %n1, %n2, %n3, %n4, %n5, %n6, %n7, %n8, %n9, %n10, %n11, %n12, %n13, %n14, %n15, %n16, %n17, %n18, %n19, %n20, %n21, %n22, %n23, %n24, %n25, %n26, %n27, %n28, %l : tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<f32>
}

// Held-out accuracy: the share of rows whose label's logit is the row maximum.
func.func @eval(%wa: tensor<16x32xf32>,
    %wb: tensor<16x32xf32>,
    %zb: tensor<32xf32>,
    %f0s: tensor<32xf32>,
    %f0o: tensor<32xf32>,
    %f0w1: tensor<32x64xf32>,
    %f0b1: tensor<64xf32>,
    %f0w2: tensor<64x32xf32>,
    %f0b2: tensor<32xf32>,
    %g0s: tensor<32xf32>,
    %g0o: tensor<32xf32>,
    %g0w1: tensor<32x64xf32>,
    %g0b1: tensor<64xf32>,
    %g0w2: tensor<64x32xf32>,
    %g0b2: tensor<32xf32>,
    %f1s: tensor<32xf32>,
    %f1o: tensor<32xf32>,
    %f1w1: tensor<32x64xf32>,
    %f1b1: tensor<64xf32>,
    %f1w2: tensor<64x32xf32>,
    %f1b2: tensor<32xf32>,
    %g1s: tensor<32xf32>,
    %g1o: tensor<32xf32>,
    %g1w1: tensor<32x64xf32>,
    %g1b1: tensor<64xf32>,
    %g1w2: tensor<64x32xf32>,
    %g1b2: tensor<32xf32>,
    %wo: tensor<32x4xf32>,
    %bo: tensor<4xf32>,
    %x: tensor<32x16xf32> {trellis.batch = "x"}, %labels: tensor<32xi32> {trellis.batch = "y"})
    -> (tensor<f32> {trellis.name = "accuracy"}, tensor<f32> {trellis.name = "loss"}) {
  %z = call @logits(%wa, %wb, %zb, %f0s, %f0o, %f0w1, %f0b1, %f0w2, %f0b2, %g0s, %g0o, %g0w1, %g0b1, %g0w2, %g0b2, %f1s, %f1o, %f1w1, %f1b1, %f1w2, %f1b2, %g1s, %g1o, %g1w1, %g1b1, %g1w2, %g1b2, %wo, %bo, %x) : (tensor<16x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>, tensor<32x16xf32>) -> tensor<32x4xf32>
  %l = nn.cross_entropy %z, %labels : (tensor<32x4xf32>, tensor<32xi32>) -> tensor<f32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %max = linalg.reduce ins(%z : tensor<32x4xf32>) outs(%init : tensor<32xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %m = arith.maximumf %v, %acc : f32
      linalg.yield %m : f32
    }
  %hit = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                         iterator_types = ["parallel"]}
      ins(%labels, %max : tensor<32xi32>, tensor<32xf32>) outs(%e : tensor<32xf32>) {
    ^bb0(%label: i32, %rowmax: f32, %out: f32):
      %i = linalg.index 0 : index
      %j = arith.index_cast %label : i32 to index
      %picked = tensor.extract %z[%i, %j] : tensor<32x4xf32>
      %ok = arith.cmpf oge, %picked, %rowmax : f32
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      %r = arith.select %ok, %one, %zero : f32
      linalg.yield %r : f32
  } -> tensor<32xf32>
  %acc = nn.mean %hit : (tensor<32xf32>) -> tensor<f32>
  return %acc, %l : tensor<f32>, tensor<f32>
}
