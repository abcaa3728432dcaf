// A small Transformer language model (examples/transformer/README.md), generated
// by gen_model.py: vocabulary 10, sequence length 16, model width 32, 2 pre-layer-norm
// blocks of causal self-attention (2 heads; q, k, v and output projections) and a
// gelu feed-forward (128), a final layer_norm and a dense projection to the
// vocabulary. Positions come from a learned table read by nn.embedding on the
// position ids of the batch ("pos_ids"). The loss is the next-token
// cross-entropy on positions 1..15 (whose next token the grammar determines);
// Adam (lr 0.003), batch 32.
//
//   trellis-train model.mlir --data=train.npz --eval-data=test.npz --output-dir=out

// The mean cross-entropy of a batch of 32.
func.func private @loss(%tok: tensor<10x32xf32>,
    %pos: tensor<16x32xf32>,
    %l0_ln1s: tensor<32xf32>,
    %l0_ln1o: tensor<32xf32>,
    %l0_wq: tensor<32x32xf32>,
    %l0_bq: tensor<32xf32>,
    %l0_wk: tensor<32x32xf32>,
    %l0_bk: tensor<32xf32>,
    %l0_wv: tensor<32x32xf32>,
    %l0_bv: tensor<32xf32>,
    %l0_wo: tensor<32x32xf32>,
    %l0_bo: tensor<32xf32>,
    %l0_ln2s: tensor<32xf32>,
    %l0_ln2o: tensor<32xf32>,
    %l0_w1: tensor<32x128xf32>,
    %l0_b1: tensor<128xf32>,
    %l0_w2: tensor<128x32xf32>,
    %l0_b2: tensor<32xf32>,
    %l1_ln1s: tensor<32xf32>,
    %l1_ln1o: tensor<32xf32>,
    %l1_wq: tensor<32x32xf32>,
    %l1_bq: tensor<32xf32>,
    %l1_wk: tensor<32x32xf32>,
    %l1_bk: tensor<32xf32>,
    %l1_wv: tensor<32x32xf32>,
    %l1_bv: tensor<32xf32>,
    %l1_wo: tensor<32x32xf32>,
    %l1_bo: tensor<32xf32>,
    %l1_ln2s: tensor<32xf32>,
    %l1_ln2o: tensor<32xf32>,
    %l1_w1: tensor<32x128xf32>,
    %l1_b1: tensor<128xf32>,
    %l1_w2: tensor<128x32xf32>,
    %l1_b2: tensor<32xf32>,
    %lnfs: tensor<32xf32>,
    %lnfo: tensor<32xf32>,
    %wout: tensor<32x10xf32>,
    %bout: tensor<10xf32>,
    %x: tensor<32x16xi32>,
    %pos_ids: tensor<32x16xi32>,
    %y: tensor<32x15xi32>) -> tensor<f32> {
  %tok_emb_1 = nn.embedding %x, %tok : (tensor<32x16xi32>, tensor<10x32xf32>) -> tensor<32x16x32xf32>
  %pos_emb_2 = nn.embedding %pos_ids, %pos : (tensor<32x16xi32>, tensor<16x32xf32>) -> tensor<32x16x32xf32>
  %h_3 = arith.addf %tok_emb_1, %pos_emb_2 : tensor<32x16x32xf32>
  %l0_ln1__4 = nn.layer_norm %h_3, %l0_ln1s, %l0_ln1o : (tensor<32x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_q__5 = nn.dense %l0_ln1__4, %l0_wq, %l0_bq : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_k__6 = nn.dense %l0_ln1__4, %l0_wk, %l0_bk : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_v__7 = nn.dense %l0_ln1__4, %l0_wv, %l0_bv : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_att_8 = nn.attention %l0_q__5, %l0_k__6, %l0_v__7 {num_heads = 2 : i64, causal = true} : (tensor<32x16x32xf32>, tensor<32x16x32xf32>, tensor<32x16x32xf32>) -> tensor<32x16x32xf32>
  %l0_o__9 = nn.dense %l0_att_8, %l0_wo, %l0_bo : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_h_10 = arith.addf %h_3, %l0_o__9 : tensor<32x16x32xf32>
  %l0_ln2__11 = nn.layer_norm %l0_h_10, %l0_ln2s, %l0_ln2o : (tensor<32x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_ff1__12 = nn.dense %l0_ln2__11, %l0_w1, %l0_b1 : (tensor<32x16x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x16x128xf32>
  %gelu_13 = nn.gelu %l0_ff1__12 : tensor<32x16x128xf32>
  %l0_ff2__14 = nn.dense %gelu_13, %l0_w2, %l0_b2 : (tensor<32x16x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l0_h_15 = arith.addf %l0_h_10, %l0_ff2__14 : tensor<32x16x32xf32>
  %l1_ln1__16 = nn.layer_norm %l0_h_15, %l1_ln1s, %l1_ln1o : (tensor<32x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_q__17 = nn.dense %l1_ln1__16, %l1_wq, %l1_bq : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_k__18 = nn.dense %l1_ln1__16, %l1_wk, %l1_bk : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_v__19 = nn.dense %l1_ln1__16, %l1_wv, %l1_bv : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_att_20 = nn.attention %l1_q__17, %l1_k__18, %l1_v__19 {num_heads = 2 : i64, causal = true} : (tensor<32x16x32xf32>, tensor<32x16x32xf32>, tensor<32x16x32xf32>) -> tensor<32x16x32xf32>
  %l1_o__21 = nn.dense %l1_att_20, %l1_wo, %l1_bo : (tensor<32x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_h_22 = arith.addf %l0_h_15, %l1_o__21 : tensor<32x16x32xf32>
  %l1_ln2__23 = nn.layer_norm %l1_h_22, %l1_ln2s, %l1_ln2o : (tensor<32x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_ff1__24 = nn.dense %l1_ln2__23, %l1_w1, %l1_b1 : (tensor<32x16x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<32x16x128xf32>
  %gelu_25 = nn.gelu %l1_ff1__24 : tensor<32x16x128xf32>
  %l1_ff2__26 = nn.dense %gelu_25, %l1_w2, %l1_b2 : (tensor<32x16x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %l1_h_27 = arith.addf %l1_h_22, %l1_ff2__26 : tensor<32x16x32xf32>
  %lnf_28 = nn.layer_norm %l1_h_27, %lnfs, %lnfo : (tensor<32x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<32x16x32xf32>
  %scored_29 = tensor.extract_slice %lnf_28[0, 1, 0] [32, 15, 32] [1, 1, 1] : tensor<32x16x32xf32> to tensor<32x15x32xf32>
  %rows_30 = tensor.collapse_shape %scored_29 [[0, 1], [2]] : tensor<32x15x32xf32> into tensor<480x32xf32>
  %logits_31 = nn.dense %rows_30, %wout, %bout : (tensor<480x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<480x10xf32>
  %labels_32 = tensor.collapse_shape %y [[0, 1]] : tensor<32x15xi32> into tensor<480xi32>
  %xent_33 = nn.cross_entropy %logits_31, %labels_32 : (tensor<480x10xf32>, tensor<480xi32>) -> tensor<f32>
  return %xent_33 : tensor<f32>
}

// One Adam step (lr 0.003, beta1 0.9, beta2 0.98, eps 1e-09): the new parameters,
// moments and powers of beta, then the loss.
func.func @train_step(%tok: tensor<10x32xf32> {trellis.init = "normal:0.1"},
    %pos: tensor<16x32xf32> {trellis.init = "normal:0.1"},
    %l0_ln1s: tensor<32xf32> {trellis.init = "ones"},
    %l0_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %l0_wq: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l0_bq: tensor<32xf32> {trellis.init = "zeros"},
    %l0_wk: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l0_bk: tensor<32xf32> {trellis.init = "zeros"},
    %l0_wv: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l0_bv: tensor<32xf32> {trellis.init = "zeros"},
    %l0_wo: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l0_bo: tensor<32xf32> {trellis.init = "zeros"},
    %l0_ln2s: tensor<32xf32> {trellis.init = "ones"},
    %l0_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %l0_w1: tensor<32x128xf32> {trellis.init = "glorot_uniform"},
    %l0_b1: tensor<128xf32> {trellis.init = "zeros"},
    %l0_w2: tensor<128x32xf32> {trellis.init = "glorot_uniform"},
    %l0_b2: tensor<32xf32> {trellis.init = "zeros"},
    %l1_ln1s: tensor<32xf32> {trellis.init = "ones"},
    %l1_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %l1_wq: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l1_bq: tensor<32xf32> {trellis.init = "zeros"},
    %l1_wk: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l1_bk: tensor<32xf32> {trellis.init = "zeros"},
    %l1_wv: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l1_bv: tensor<32xf32> {trellis.init = "zeros"},
    %l1_wo: tensor<32x32xf32> {trellis.init = "glorot_uniform"},
    %l1_bo: tensor<32xf32> {trellis.init = "zeros"},
    %l1_ln2s: tensor<32xf32> {trellis.init = "ones"},
    %l1_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %l1_w1: tensor<32x128xf32> {trellis.init = "glorot_uniform"},
    %l1_b1: tensor<128xf32> {trellis.init = "zeros"},
    %l1_w2: tensor<128x32xf32> {trellis.init = "glorot_uniform"},
    %l1_b2: tensor<32xf32> {trellis.init = "zeros"},
    %lnfs: tensor<32xf32> {trellis.init = "ones"},
    %lnfo: tensor<32xf32> {trellis.init = "zeros"},
    %wout: tensor<32x10xf32> {trellis.init = "glorot_uniform"},
    %bout: tensor<10xf32> {trellis.init = "zeros"},
    %m_tok: tensor<10x32xf32> {trellis.init = "zeros"},
    %m_pos: tensor<16x32xf32> {trellis.init = "zeros"},
    %m_l0_ln1s: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_wq: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l0_bq: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_wk: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l0_bk: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_wv: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l0_bv: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_wo: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l0_bo: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_ln2s: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %m_l0_w1: tensor<32x128xf32> {trellis.init = "zeros"},
    %m_l0_b1: tensor<128xf32> {trellis.init = "zeros"},
    %m_l0_w2: tensor<128x32xf32> {trellis.init = "zeros"},
    %m_l0_b2: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_ln1s: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_wq: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l1_bq: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_wk: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l1_bk: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_wv: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l1_bv: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_wo: tensor<32x32xf32> {trellis.init = "zeros"},
    %m_l1_bo: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_ln2s: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %m_l1_w1: tensor<32x128xf32> {trellis.init = "zeros"},
    %m_l1_b1: tensor<128xf32> {trellis.init = "zeros"},
    %m_l1_w2: tensor<128x32xf32> {trellis.init = "zeros"},
    %m_l1_b2: tensor<32xf32> {trellis.init = "zeros"},
    %m_lnfs: tensor<32xf32> {trellis.init = "zeros"},
    %m_lnfo: tensor<32xf32> {trellis.init = "zeros"},
    %m_wout: tensor<32x10xf32> {trellis.init = "zeros"},
    %m_bout: tensor<10xf32> {trellis.init = "zeros"},
    %v_tok: tensor<10x32xf32> {trellis.init = "zeros"},
    %v_pos: tensor<16x32xf32> {trellis.init = "zeros"},
    %v_l0_ln1s: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_wq: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l0_bq: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_wk: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l0_bk: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_wv: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l0_bv: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_wo: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l0_bo: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_ln2s: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %v_l0_w1: tensor<32x128xf32> {trellis.init = "zeros"},
    %v_l0_b1: tensor<128xf32> {trellis.init = "zeros"},
    %v_l0_w2: tensor<128x32xf32> {trellis.init = "zeros"},
    %v_l0_b2: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_ln1s: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_ln1o: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_wq: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l1_bq: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_wk: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l1_bk: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_wv: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l1_bv: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_wo: tensor<32x32xf32> {trellis.init = "zeros"},
    %v_l1_bo: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_ln2s: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_ln2o: tensor<32xf32> {trellis.init = "zeros"},
    %v_l1_w1: tensor<32x128xf32> {trellis.init = "zeros"},
    %v_l1_b1: tensor<128xf32> {trellis.init = "zeros"},
    %v_l1_w2: tensor<128x32xf32> {trellis.init = "zeros"},
    %v_l1_b2: tensor<32xf32> {trellis.init = "zeros"},
    %v_lnfs: tensor<32xf32> {trellis.init = "zeros"},
    %v_lnfo: tensor<32xf32> {trellis.init = "zeros"},
    %v_wout: tensor<32x10xf32> {trellis.init = "zeros"},
    %v_bout: tensor<10xf32> {trellis.init = "zeros"},
    %beta1_pow: tensor<f32> {trellis.init = "ones"},
    %beta2_pow: tensor<f32> {trellis.init = "ones"},
    %x: tensor<32x16xi32> {trellis.batch = "x"},
    %pos_ids: tensor<32x16xi32> {trellis.batch = "pos_ids"},
    %y: tensor<32x15xi32> {trellis.batch = "y"})
    -> (tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %loss, %g0, %g1, %g2, %g3, %g4, %g5, %g6, %g7, %g8, %g9, %g10, %g11, %g12, %g13, %g14, %g15, %g16, %g17, %g18, %g19, %g20, %g21, %g22, %g23, %g24, %g25, %g26, %g27, %g28, %g29, %g30, %g31, %g32, %g33, %g34, %g35, %g36, %g37 = ad.value_and_grad @loss(%tok, %pos, %l0_ln1s, %l0_ln1o, %l0_wq, %l0_bq, %l0_wk, %l0_bk, %l0_wv, %l0_bv, %l0_wo, %l0_bo, %l0_ln2s, %l0_ln2o, %l0_w1, %l0_b1, %l0_w2, %l0_b2, %l1_ln1s, %l1_ln1o, %l1_wq, %l1_bq, %l1_wk, %l1_bk, %l1_wv, %l1_bv, %l1_wo, %l1_bo, %l1_ln2s, %l1_ln2o, %l1_w1, %l1_b1, %l1_w2, %l1_b2, %lnfs, %lnfo, %wout, %bout, %x, %pos_ids, %y)
      {argnums = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37>}
      : (tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<32x16xi32>, tensor<32x16xi32>, tensor<32x15xi32>)
      -> (tensor<f32>, tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>)
  %b1 = arith.constant 9.000000e-01 : f32
  %b2 = arith.constant 9.800000e-01 : f32
  %c1 = arith.constant 1.000000e-01 : f32
  %c2 = arith.constant 2.000000e-02 : f32
  %eps = arith.constant 1.000000e-09 : f32
  %lr = arith.constant 3.000000e-03 : f32
  %fone = arith.constant 1.0 : f32
  %b1p = tensor.extract %beta1_pow[] : tensor<f32>
  %b2p = tensor.extract %beta2_pow[] : tensor<f32>
  %b1t = arith.mulf %b1p, %b1 : f32
  %b2t = arith.mulf %b2p, %b2 : f32
  // lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
  %bc2 = arith.subf %fone, %b2t : f32
  %bc2s = math.sqrt %bc2 : f32
  %bc1 = arith.subf %fone, %b1t : f32
  %lrbc = arith.divf %bc2s, %bc1 : f32
  %lrt = arith.mulf %lr, %lrbc : f32
  %e0 = tensor.empty() : tensor<10x32xf32>
  %np0, %nm0, %nv0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%tok, %m_tok, %v_tok : tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>) outs(%g0, %e0, %e0 : tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>)
  %e1 = tensor.empty() : tensor<16x32xf32>
  %np1, %nm1, %nv1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%pos, %m_pos, %v_pos : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%g1, %e1, %e1 : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>)
  %e2 = tensor.empty() : tensor<32xf32>
  %np2, %nm2, %nv2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_ln1s, %m_l0_ln1s, %v_l0_ln1s : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g2, %e2, %e2 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e3 = tensor.empty() : tensor<32xf32>
  %np3, %nm3, %nv3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_ln1o, %m_l0_ln1o, %v_l0_ln1o : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g3, %e3, %e3 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e4 = tensor.empty() : tensor<32x32xf32>
  %np4, %nm4, %nv4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_wq, %m_l0_wq, %v_l0_wq : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g4, %e4, %e4 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e5 = tensor.empty() : tensor<32xf32>
  %np5, %nm5, %nv5 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_bq, %m_l0_bq, %v_l0_bq : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g5, %e5, %e5 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e6 = tensor.empty() : tensor<32x32xf32>
  %np6, %nm6, %nv6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_wk, %m_l0_wk, %v_l0_wk : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g6, %e6, %e6 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e7 = tensor.empty() : tensor<32xf32>
  %np7, %nm7, %nv7 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_bk, %m_l0_bk, %v_l0_bk : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g7, %e7, %e7 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e8 = tensor.empty() : tensor<32x32xf32>
  %np8, %nm8, %nv8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_wv, %m_l0_wv, %v_l0_wv : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g8, %e8, %e8 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e9 = tensor.empty() : tensor<32xf32>
  %np9, %nm9, %nv9 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_bv, %m_l0_bv, %v_l0_bv : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g9, %e9, %e9 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e10 = tensor.empty() : tensor<32x32xf32>
  %np10, %nm10, %nv10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_wo, %m_l0_wo, %v_l0_wo : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g10, %e10, %e10 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e11 = tensor.empty() : tensor<32xf32>
  %np11, %nm11, %nv11 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_bo, %m_l0_bo, %v_l0_bo : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g11, %e11, %e11 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e12 = tensor.empty() : tensor<32xf32>
  %np12, %nm12, %nv12 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_ln2s, %m_l0_ln2s, %v_l0_ln2s : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g12, %e12, %e12 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e13 = tensor.empty() : tensor<32xf32>
  %np13, %nm13, %nv13 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_ln2o, %m_l0_ln2o, %v_l0_ln2o : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g13, %e13, %e13 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e14 = tensor.empty() : tensor<32x128xf32>
  %np14, %nm14, %nv14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_w1, %m_l0_w1, %v_l0_w1 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>) outs(%g14, %e14, %e14 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>)
  %e15 = tensor.empty() : tensor<128xf32>
  %np15, %nm15, %nv15 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_b1, %m_l0_b1, %v_l0_b1 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%g15, %e15, %e15 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>)
  %e16 = tensor.empty() : tensor<128x32xf32>
  %np16, %nm16, %nv16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l0_w2, %m_l0_w2, %v_l0_w2 : tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>) outs(%g16, %e16, %e16 : tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>)
  %e17 = tensor.empty() : tensor<32xf32>
  %np17, %nm17, %nv17 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l0_b2, %m_l0_b2, %v_l0_b2 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g17, %e17, %e17 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e18 = tensor.empty() : tensor<32xf32>
  %np18, %nm18, %nv18 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_ln1s, %m_l1_ln1s, %v_l1_ln1s : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g18, %e18, %e18 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e19 = tensor.empty() : tensor<32xf32>
  %np19, %nm19, %nv19 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_ln1o, %m_l1_ln1o, %v_l1_ln1o : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g19, %e19, %e19 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e20 = tensor.empty() : tensor<32x32xf32>
  %np20, %nm20, %nv20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_wq, %m_l1_wq, %v_l1_wq : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g20, %e20, %e20 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e21 = tensor.empty() : tensor<32xf32>
  %np21, %nm21, %nv21 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_bq, %m_l1_bq, %v_l1_bq : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g21, %e21, %e21 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e22 = tensor.empty() : tensor<32x32xf32>
  %np22, %nm22, %nv22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_wk, %m_l1_wk, %v_l1_wk : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g22, %e22, %e22 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e23 = tensor.empty() : tensor<32xf32>
  %np23, %nm23, %nv23 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_bk, %m_l1_bk, %v_l1_bk : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g23, %e23, %e23 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e24 = tensor.empty() : tensor<32x32xf32>
  %np24, %nm24, %nv24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_wv, %m_l1_wv, %v_l1_wv : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g24, %e24, %e24 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e25 = tensor.empty() : tensor<32xf32>
  %np25, %nm25, %nv25 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_bv, %m_l1_bv, %v_l1_bv : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g25, %e25, %e25 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e26 = tensor.empty() : tensor<32x32xf32>
  %np26, %nm26, %nv26 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_wo, %m_l1_wo, %v_l1_wo : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) outs(%g26, %e26, %e26 : tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>)
  %e27 = tensor.empty() : tensor<32xf32>
  %np27, %nm27, %nv27 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_bo, %m_l1_bo, %v_l1_bo : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g27, %e27, %e27 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e28 = tensor.empty() : tensor<32xf32>
  %np28, %nm28, %nv28 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_ln2s, %m_l1_ln2s, %v_l1_ln2s : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g28, %e28, %e28 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e29 = tensor.empty() : tensor<32xf32>
  %np29, %nm29, %nv29 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_ln2o, %m_l1_ln2o, %v_l1_ln2o : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g29, %e29, %e29 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e30 = tensor.empty() : tensor<32x128xf32>
  %np30, %nm30, %nv30 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_w1, %m_l1_w1, %v_l1_w1 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>) outs(%g30, %e30, %e30 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>)
  %e31 = tensor.empty() : tensor<128xf32>
  %np31, %nm31, %nv31 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_b1, %m_l1_b1, %v_l1_b1 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) outs(%g31, %e31, %e31 : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>)
  %e32 = tensor.empty() : tensor<128x32xf32>
  %np32, %nm32, %nv32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%l1_w2, %m_l1_w2, %v_l1_w2 : tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>) outs(%g32, %e32, %e32 : tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<128x32xf32>, tensor<128x32xf32>, tensor<128x32xf32>)
  %e33 = tensor.empty() : tensor<32xf32>
  %np33, %nm33, %nv33 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%l1_b2, %m_l1_b2, %v_l1_b2 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g33, %e33, %e33 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e34 = tensor.empty() : tensor<32xf32>
  %np34, %nm34, %nv34 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%lnfs, %m_lnfs, %v_lnfs : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g34, %e34, %e34 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e35 = tensor.empty() : tensor<32xf32>
  %np35, %nm35, %nv35 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%lnfo, %m_lnfo, %v_lnfo : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%g35, %e35, %e35 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
  %e36 = tensor.empty() : tensor<32x10xf32>
  %np36, %nm36, %nv36 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%wout, %m_wout, %v_wout : tensor<32x10xf32>, tensor<32x10xf32>, tensor<32x10xf32>) outs(%g36, %e36, %e36 : tensor<32x10xf32>, tensor<32x10xf32>, tensor<32x10xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<32x10xf32>, tensor<32x10xf32>, tensor<32x10xf32>)
  %e37 = tensor.empty() : tensor<10xf32>
  %np37, %nm37, %nv37 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%bout, %m_bout, %v_bout : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) outs(%g37, %e37, %e37 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>) {
    ^bb0(%_p: f32, %_m: f32, %_v: f32, %_g: f32, %_o1: f32, %_o2: f32):
      %_m1 = arith.mulf %b1, %_m : f32
      %_m2 = arith.mulf %c1, %_g : f32
      %_mn = arith.addf %_m1, %_m2 : f32
      %_v1 = arith.mulf %b2, %_v : f32
      %_gg = arith.mulf %_g, %_g : f32
      %_v2 = arith.mulf %c2, %_gg : f32
      %_vn = arith.addf %_v1, %_v2 : f32
      %_sq = math.sqrt %_vn : f32
      %_den = arith.addf %_sq, %eps : f32
      %_q = arith.divf %_mn, %_den : f32
      %_st = arith.mulf %lrt, %_q : f32
      %_pn = arith.subf %_p, %_st : f32
      linalg.yield %_pn, %_mn, %_vn : f32, f32, f32
  } -> (tensor<10xf32>, tensor<10xf32>, tensor<10xf32>)
  %s0 = tensor.empty() : tensor<f32>
  %nb1 = linalg.fill ins(%b1t : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %nb2 = linalg.fill ins(%b2t : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  return %np0, %np1, %np2, %np3, %np4, %np5, %np6, %np7, %np8, %np9, %np10, %np11, %np12, %np13, %np14, %np15, %np16, %np17, %np18, %np19, %np20, %np21, %np22, %np23, %np24, %np25, %np26, %np27, %np28, %np29, %np30, %np31, %np32, %np33, %np34, %np35, %np36, %np37, %nm0, %nm1, %nm2, %nm3, %nm4, %nm5, %nm6, %nm7, %nm8, %nm9, %nm10, %nm11, %nm12, %nm13, %nm14, %nm15, %nm16, %nm17, %nm18, %nm19, %nm20, %nm21, %nm22, %nm23, %nm24, %nm25, %nm26, %nm27, %nm28, %nm29, %nm30, %nm31, %nm32, %nm33, %nm34, %nm35, %nm36, %nm37, %nv0, %nv1, %nv2, %nv3, %nv4, %nv5, %nv6, %nv7, %nv8, %nv9, %nv10, %nv11, %nv12, %nv13, %nv14, %nv15, %nv16, %nv17, %nv18, %nv19, %nv20, %nv21, %nv22, %nv23, %nv24, %nv25, %nv26, %nv27, %nv28, %nv29, %nv30, %nv31, %nv32, %nv33, %nv34, %nv35, %nv36, %nv37, %nb1, %nb2, %loss
      : tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<10x32xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x128xf32>, tensor<128xf32>, tensor<128x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x10xf32>, tensor<10xf32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// Held-out metrics on a batch of 128: the share of rows whose label's logit
// is the row maximum, and the cross-entropy.
func.func @eval(%tok: tensor<10x32xf32>,
    %pos: tensor<16x32xf32>,
    %l0_ln1s: tensor<32xf32>,
    %l0_ln1o: tensor<32xf32>,
    %l0_wq: tensor<32x32xf32>,
    %l0_bq: tensor<32xf32>,
    %l0_wk: tensor<32x32xf32>,
    %l0_bk: tensor<32xf32>,
    %l0_wv: tensor<32x32xf32>,
    %l0_bv: tensor<32xf32>,
    %l0_wo: tensor<32x32xf32>,
    %l0_bo: tensor<32xf32>,
    %l0_ln2s: tensor<32xf32>,
    %l0_ln2o: tensor<32xf32>,
    %l0_w1: tensor<32x128xf32>,
    %l0_b1: tensor<128xf32>,
    %l0_w2: tensor<128x32xf32>,
    %l0_b2: tensor<32xf32>,
    %l1_ln1s: tensor<32xf32>,
    %l1_ln1o: tensor<32xf32>,
    %l1_wq: tensor<32x32xf32>,
    %l1_bq: tensor<32xf32>,
    %l1_wk: tensor<32x32xf32>,
    %l1_bk: tensor<32xf32>,
    %l1_wv: tensor<32x32xf32>,
    %l1_bv: tensor<32xf32>,
    %l1_wo: tensor<32x32xf32>,
    %l1_bo: tensor<32xf32>,
    %l1_ln2s: tensor<32xf32>,
    %l1_ln2o: tensor<32xf32>,
    %l1_w1: tensor<32x128xf32>,
    %l1_b1: tensor<128xf32>,
    %l1_w2: tensor<128x32xf32>,
    %l1_b2: tensor<32xf32>,
    %lnfs: tensor<32xf32>,
    %lnfo: tensor<32xf32>,
    %wout: tensor<32x10xf32>,
    %bout: tensor<10xf32>,
    %m_tok: tensor<10x32xf32>,
    %m_pos: tensor<16x32xf32>,
    %m_l0_ln1s: tensor<32xf32>,
    %m_l0_ln1o: tensor<32xf32>,
    %m_l0_wq: tensor<32x32xf32>,
    %m_l0_bq: tensor<32xf32>,
    %m_l0_wk: tensor<32x32xf32>,
    %m_l0_bk: tensor<32xf32>,
    %m_l0_wv: tensor<32x32xf32>,
    %m_l0_bv: tensor<32xf32>,
    %m_l0_wo: tensor<32x32xf32>,
    %m_l0_bo: tensor<32xf32>,
    %m_l0_ln2s: tensor<32xf32>,
    %m_l0_ln2o: tensor<32xf32>,
    %m_l0_w1: tensor<32x128xf32>,
    %m_l0_b1: tensor<128xf32>,
    %m_l0_w2: tensor<128x32xf32>,
    %m_l0_b2: tensor<32xf32>,
    %m_l1_ln1s: tensor<32xf32>,
    %m_l1_ln1o: tensor<32xf32>,
    %m_l1_wq: tensor<32x32xf32>,
    %m_l1_bq: tensor<32xf32>,
    %m_l1_wk: tensor<32x32xf32>,
    %m_l1_bk: tensor<32xf32>,
    %m_l1_wv: tensor<32x32xf32>,
    %m_l1_bv: tensor<32xf32>,
    %m_l1_wo: tensor<32x32xf32>,
    %m_l1_bo: tensor<32xf32>,
    %m_l1_ln2s: tensor<32xf32>,
    %m_l1_ln2o: tensor<32xf32>,
    %m_l1_w1: tensor<32x128xf32>,
    %m_l1_b1: tensor<128xf32>,
    %m_l1_w2: tensor<128x32xf32>,
    %m_l1_b2: tensor<32xf32>,
    %m_lnfs: tensor<32xf32>,
    %m_lnfo: tensor<32xf32>,
    %m_wout: tensor<32x10xf32>,
    %m_bout: tensor<10xf32>,
    %v_tok: tensor<10x32xf32>,
    %v_pos: tensor<16x32xf32>,
    %v_l0_ln1s: tensor<32xf32>,
    %v_l0_ln1o: tensor<32xf32>,
    %v_l0_wq: tensor<32x32xf32>,
    %v_l0_bq: tensor<32xf32>,
    %v_l0_wk: tensor<32x32xf32>,
    %v_l0_bk: tensor<32xf32>,
    %v_l0_wv: tensor<32x32xf32>,
    %v_l0_bv: tensor<32xf32>,
    %v_l0_wo: tensor<32x32xf32>,
    %v_l0_bo: tensor<32xf32>,
    %v_l0_ln2s: tensor<32xf32>,
    %v_l0_ln2o: tensor<32xf32>,
    %v_l0_w1: tensor<32x128xf32>,
    %v_l0_b1: tensor<128xf32>,
    %v_l0_w2: tensor<128x32xf32>,
    %v_l0_b2: tensor<32xf32>,
    %v_l1_ln1s: tensor<32xf32>,
    %v_l1_ln1o: tensor<32xf32>,
    %v_l1_wq: tensor<32x32xf32>,
    %v_l1_bq: tensor<32xf32>,
    %v_l1_wk: tensor<32x32xf32>,
    %v_l1_bk: tensor<32xf32>,
    %v_l1_wv: tensor<32x32xf32>,
    %v_l1_bv: tensor<32xf32>,
    %v_l1_wo: tensor<32x32xf32>,
    %v_l1_bo: tensor<32xf32>,
    %v_l1_ln2s: tensor<32xf32>,
    %v_l1_ln2o: tensor<32xf32>,
    %v_l1_w1: tensor<32x128xf32>,
    %v_l1_b1: tensor<128xf32>,
    %v_l1_w2: tensor<128x32xf32>,
    %v_l1_b2: tensor<32xf32>,
    %v_lnfs: tensor<32xf32>,
    %v_lnfo: tensor<32xf32>,
    %v_wout: tensor<32x10xf32>,
    %v_bout: tensor<10xf32>,
    %beta1_pow: tensor<f32>,
    %beta2_pow: tensor<f32>,
    %x: tensor<128x16xi32> {trellis.batch = "x"},
    %pos_ids: tensor<128x16xi32> {trellis.batch = "pos_ids"},
    %y: tensor<128x15xi32> {trellis.batch = "y"})
    -> (tensor<f32> {trellis.name = "accuracy"}, tensor<f32> {trellis.name = "loss"}) {
  %tok_emb_1 = nn.embedding %x, %tok : (tensor<128x16xi32>, tensor<10x32xf32>) -> tensor<128x16x32xf32>
  %pos_emb_2 = nn.embedding %pos_ids, %pos : (tensor<128x16xi32>, tensor<16x32xf32>) -> tensor<128x16x32xf32>
  %h_3 = arith.addf %tok_emb_1, %pos_emb_2 : tensor<128x16x32xf32>
  %l0_ln1__4 = nn.layer_norm %h_3, %l0_ln1s, %l0_ln1o : (tensor<128x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_q__5 = nn.dense %l0_ln1__4, %l0_wq, %l0_bq : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_k__6 = nn.dense %l0_ln1__4, %l0_wk, %l0_bk : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_v__7 = nn.dense %l0_ln1__4, %l0_wv, %l0_bv : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_att_8 = nn.attention %l0_q__5, %l0_k__6, %l0_v__7 {num_heads = 2 : i64, causal = true} : (tensor<128x16x32xf32>, tensor<128x16x32xf32>, tensor<128x16x32xf32>) -> tensor<128x16x32xf32>
  %l0_o__9 = nn.dense %l0_att_8, %l0_wo, %l0_bo : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_h_10 = arith.addf %h_3, %l0_o__9 : tensor<128x16x32xf32>
  %l0_ln2__11 = nn.layer_norm %l0_h_10, %l0_ln2s, %l0_ln2o : (tensor<128x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_ff1__12 = nn.dense %l0_ln2__11, %l0_w1, %l0_b1 : (tensor<128x16x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<128x16x128xf32>
  %gelu_13 = nn.gelu %l0_ff1__12 : tensor<128x16x128xf32>
  %l0_ff2__14 = nn.dense %gelu_13, %l0_w2, %l0_b2 : (tensor<128x16x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l0_h_15 = arith.addf %l0_h_10, %l0_ff2__14 : tensor<128x16x32xf32>
  %l1_ln1__16 = nn.layer_norm %l0_h_15, %l1_ln1s, %l1_ln1o : (tensor<128x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_q__17 = nn.dense %l1_ln1__16, %l1_wq, %l1_bq : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_k__18 = nn.dense %l1_ln1__16, %l1_wk, %l1_bk : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_v__19 = nn.dense %l1_ln1__16, %l1_wv, %l1_bv : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_att_20 = nn.attention %l1_q__17, %l1_k__18, %l1_v__19 {num_heads = 2 : i64, causal = true} : (tensor<128x16x32xf32>, tensor<128x16x32xf32>, tensor<128x16x32xf32>) -> tensor<128x16x32xf32>
  %l1_o__21 = nn.dense %l1_att_20, %l1_wo, %l1_bo : (tensor<128x16x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_h_22 = arith.addf %l0_h_15, %l1_o__21 : tensor<128x16x32xf32>
  %l1_ln2__23 = nn.layer_norm %l1_h_22, %l1_ln2s, %l1_ln2o : (tensor<128x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_ff1__24 = nn.dense %l1_ln2__23, %l1_w1, %l1_b1 : (tensor<128x16x32xf32>, tensor<32x128xf32>, tensor<128xf32>) -> tensor<128x16x128xf32>
  %gelu_25 = nn.gelu %l1_ff1__24 : tensor<128x16x128xf32>
  %l1_ff2__26 = nn.dense %gelu_25, %l1_w2, %l1_b2 : (tensor<128x16x128xf32>, tensor<128x32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %l1_h_27 = arith.addf %l1_h_22, %l1_ff2__26 : tensor<128x16x32xf32>
  %lnf_28 = nn.layer_norm %l1_h_27, %lnfs, %lnfo : (tensor<128x16x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<128x16x32xf32>
  %scored_29 = tensor.extract_slice %lnf_28[0, 1, 0] [128, 15, 32] [1, 1, 1] : tensor<128x16x32xf32> to tensor<128x15x32xf32>
  %rows_30 = tensor.collapse_shape %scored_29 [[0, 1], [2]] : tensor<128x15x32xf32> into tensor<1920x32xf32>
  %logits_31 = nn.dense %rows_30, %wout, %bout : (tensor<1920x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<1920x10xf32>
  %labels_32 = tensor.collapse_shape %y [[0, 1]] : tensor<128x15xi32> into tensor<1920xi32>
  %xent_33 = nn.cross_entropy %logits_31, %labels_32 : (tensor<1920x10xf32>, tensor<1920xi32>) -> tensor<f32>
  %ninf = arith.constant 0xFF800000 : f32
  %rows = tensor.empty() : tensor<1920xf32>
  %maxinit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<1920xf32>) -> tensor<1920xf32>
  %rowmax = linalg.reduce ins(%logits_31 : tensor<1920x10xf32>) outs(%maxinit : tensor<1920xf32>) dimensions = [1]
      (%_v: f32, %_acc: f32) {
        %_m = arith.maximumf %_v, %_acc : f32
        linalg.yield %_m : f32
      }
  %hit = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%labels_32, %rowmax : tensor<1920xi32>, tensor<1920xf32>) outs(%rows : tensor<1920xf32>) {
    ^bb0(%_label: i32, %_mx: f32, %_out: f32):
      %_i = linalg.index 0 : index
      %_j = arith.index_cast %_label : i32 to index
      %_picked = tensor.extract %logits_31[%_i, %_j] : tensor<1920x10xf32>
      %_ok = arith.cmpf oge, %_picked, %_mx : f32
      %_one = arith.constant 1.0 : f32
      %_zero = arith.constant 0.0 : f32
      %_r = arith.select %_ok, %_one, %_zero : f32
      linalg.yield %_r : f32
  } -> tensor<1920xf32>
  %accuracy = nn.mean %hit : (tensor<1920xf32>) -> tensor<f32>
  return %accuracy, %xent_33 : tensor<f32>, tensor<f32>
}
