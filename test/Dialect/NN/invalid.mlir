// One case per verifier constraint of the nn dialect, under the id of the
// constraint it breaks (docs/spec.md, section `nn`).
// RUN: trellis-opt %s -split-input-file -verify-diagnostics

// nn.dense-C2
func.func @dense_rank0_x(%x: tensor<f32>, %w: tensor<1x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects x of rank at least 1}}
  %0 = nn.dense %x, %w, %b : (tensor<f32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// nn.dense-C3
func.func @dense_w_rank(%x: tensor<2x3xf32>, %w: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects w of rank 2, got rank 1}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.dense-C4
func.func @dense_contraction(%x: tensor<2x3xf32>, %w: tensor<5x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects w's first dimension to equal x's last (3), got 5}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<5x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.dense-C5
func.func @dense_bias_rank(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{expects b of rank 1, got rank 2}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.dense-C6
func.func @dense_bias_length(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{expects b of length 4, got 5}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<5xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.dense-C7
func.func @dense_result_shape(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects result shape [2,4], got [4,2]}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
  return
}

// -----

// nn.dense-C8
func.func @dense_element_types(%x: tensor<2x3xf32>, %w: tensor<3x4xf64>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.dense %x, %w, %b : (tensor<2x3xf32>, tensor<3x4xf64>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.relu-C1
func.func @dynamic_shape(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = nn.relu %x : tensor<?x3xf32>
  return
}

// -----

// nn.tanh-C1
func.func @integer_activation(%x: tensor<3xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = nn.tanh %x : tensor<3xi32>
  return
}

// -----

// nn.layer_norm-C3
func.func @layer_norm_rank0(%x: tensor<f32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{expects x of rank at least 1}}
  %0 = nn.layer_norm %x, %s, %s : (tensor<f32>, tensor<1xf32>, tensor<1xf32>) -> tensor<f32>
  return
}

// -----

// nn.layer_norm-C4
func.func @layer_norm_scale_rank(%x: tensor<2x4xf32>, %s: tensor<1x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects scale of rank 1, got rank 2}}
  %0 = nn.layer_norm %x, %s, %b : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.layer_norm-C5
func.func @layer_norm_scale_length(%x: tensor<2x4xf32>, %s: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects scale of length 4, got 3}}
  %0 = nn.layer_norm %x, %s, %b : (tensor<2x4xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.layer_norm-C7
func.func @layer_norm_bias_length(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{expects bias of length 4, got 2}}
  %0 = nn.layer_norm %x, %s, %b : (tensor<2x4xf32>, tensor<4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.layer_norm-C8
func.func @layer_norm_epsilon(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects a positive epsilon, got 0}}
  %0 = nn.layer_norm %x, %s, %s {epsilon = 0.0 : f32} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.layer_norm-C8 (an f64 epsilon)
func.func @layer_norm_epsilon_f64(%x: tensor<2x4xf64>, %s: tensor<4xf64>) {
  // expected-error @+1 {{expects a positive epsilon, got -1.000000e-12}}
  %0 = nn.layer_norm %x, %s, %s {epsilon = -1.0e-12 : f64} : (tensor<2x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  return
}

// -----

// nn.layer_norm-C10
func.func @layer_norm_f64_epsilon_f32(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{expects an f32 epsilon for 'f32' operands, got an f64 one}}
  %0 = nn.layer_norm %x, %s, %s {epsilon = 1.0e-50 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// nn.layer_norm-C1
func.func @layer_norm_epsilon_kind(%x: tensor<2x4xf16>, %s: tensor<4xf16>) {
  // expected-error @+1 {{attribute 'epsilon' failed to satisfy constraint: 32-bit or 64-bit float attribute}}
  %0 = nn.layer_norm %x, %s, %s {epsilon = 1.0e-3 : f16} : (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  return
}

// -----

// nn.layer_norm-C2
func.func @layer_norm_result_type(%x: tensor<2x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same type}}
  %0 = nn.layer_norm %x, %s, %s : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x2xf32>
  return
}

// -----

// nn.layer_norm-C9
func.func @layer_norm_element_types(%x: tensor<2x4xf32>, %s: tensor<4xf64>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.layer_norm %x, %s, %s : (tensor<2x4xf32>, tensor<4xf64>, tensor<4xf64>) -> tensor<2x4xf32>
  return
}

// -----

// nn.softmax-C3
func.func @softmax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{expects an operand of rank at least 1}}
  %0 = nn.softmax %x : tensor<f32>
  return
}

// -----

// nn.log_softmax-C4
func.func @log_softmax_empty_row(%x: tensor<3x0xf32>) {
  // expected-error @+1 {{expects a non-empty last dimension}}
  %0 = nn.log_softmax %x : tensor<3x0xf32>
  return
}

// -----

// nn.cross_entropy-C2
func.func @cross_entropy_logits_rank(%l: tensor<f32>, %y: tensor<i32>) {
  // expected-error @+1 {{expects logits of rank at least 1 (...xC)}}
  %0 = nn.cross_entropy %l, %y : (tensor<f32>, tensor<i32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C3
func.func @cross_entropy_labels_rank(%l: tensor<2x4xf32>, %y: tensor<2x1xi32>) {
  // expected-error @+1 {{expects labels of rank 1 (one less than logits), got rank 2}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2x1xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C3 (rank 3: the labels of a language model are BxL)
func.func @cross_entropy_labels_rank3(%l: tensor<2x3x4xf32>, %y: tensor<2xi32>) {
  // expected-error @+1 {{expects labels of rank 2 (one less than logits), got rank 1}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C4
func.func @cross_entropy_label_count(%l: tensor<2x4xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{expects one label per logits row: labels of shape [2], got [3]}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<3xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C4
func.func @cross_entropy_label_shape3(%l: tensor<2x3x4xf32>, %y: tensor<3x2xi32>) {
  // expected-error @+1 {{expects one label per logits row: labels of shape [2,3], got [3,2]}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x3x4xf32>, tensor<3x2xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C1
func.func @cross_entropy_label_dtype(%l: tensor<2x4xf32>, %y: tensor<2xi64>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2xi64>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C5
func.func @cross_entropy_empty(%l: tensor<0x4xf32>, %y: tensor<0xi32>) {
  // expected-error @+1 {{expects non-empty leading and class dimensions}}
  %0 = nn.cross_entropy %l, %y : (tensor<0x4xf32>, tensor<0xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C5
func.func @cross_entropy_empty3(%l: tensor<2x0x4xf32>, %y: tensor<2x0xi32>) {
  // expected-error @+1 {{expects non-empty leading and class dimensions}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x0x4xf32>, tensor<2x0xi32>) -> tensor<f32>
  return
}

// -----

// nn.cross_entropy-C1
func.func @cross_entropy_result_rank(%l: tensor<2x4xf32>, %y: tensor<2xi32>) {
  // expected-error @+1 {{result #0 must be 0D tensor of 32-bit float or 64-bit float values}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

// nn.cross_entropy-C6
func.func @cross_entropy_result_type(%l: tensor<2x4xf32>, %y: tensor<2xi32>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.cross_entropy %l, %y : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f64>
  return
}

// -----

// nn.mean-C2
func.func @mean_empty(%x: tensor<0x4xf32>) {
  // expected-error @+1 {{expects a non-empty operand}}
  %0 = nn.mean %x : (tensor<0x4xf32>) -> tensor<f32>
  return
}

// -----

// nn.mean-C3
func.func @mean_result_type(%x: tensor<3x4xf64>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f64' and 'f32'}}
  %0 = nn.mean %x : (tensor<3x4xf64>) -> tensor<f32>
  return
}

// -----

// nn.embedding-C2
func.func @embedding_table_rank(%ids: tensor<4xi32>, %t: tensor<10xf32>) {
  // expected-error @+1 {{expects a table of rank 2 (VxD), got rank 1}}
  %0 = nn.embedding %ids, %t : (tensor<4xi32>, tensor<10xf32>) -> tensor<4x1xf32>
  return
}

// -----

// nn.embedding-C3
func.func @embedding_empty_table(%ids: tensor<4xi32>, %t: tensor<0x8xf32>) {
  // expected-error @+1 {{expects a table with at least one row}}
  %0 = nn.embedding %ids, %t : (tensor<4xi32>, tensor<0x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// nn.embedding-C4
func.func @embedding_result_shape(%ids: tensor<2x4xi32>, %t: tensor<10x8xf32>) {
  // expected-error @+1 {{expects result shape [2,4,8], got [8,8]}}
  %0 = nn.embedding %ids, %t : (tensor<2x4xi32>, tensor<10x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

// nn.embedding-C1
func.func @embedding_id_dtype(%ids: tensor<4xf32>, %t: tensor<10x8xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = nn.embedding %ids, %t : (tensor<4xf32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// nn.embedding-C5
func.func @embedding_result_type(%ids: tensor<4xi32>, %t: tensor<10x8xf32>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.embedding %ids, %t : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf64>
  return
}

// -----

// nn.attention-C2
func.func @attention_rank(%q: tensor<4x8xf32>, %k: tensor<2x4x8xf32>) {
  // expected-error @+1 {{expects q of rank 3 (BxLxD), got rank 2}}
  %0 = nn.attention %q, %k, %k {num_heads = 2 : i64} : (tensor<4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// nn.attention-C3
func.func @attention_kv_shapes(%q: tensor<2x4x8xf32>, %v: tensor<2x5x8xf32>) {
  // expected-error @+1 {{expects k and v of one shape, got [2,4,8] and [2,5,8]}}
  %0 = nn.attention %q, %q, %v {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x5x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C4
func.func @attention_batch(%q: tensor<2x4x8xf32>, %k: tensor<3x4x8xf32>) {
  // expected-error @+1 {{expects q and k to agree in batch and feature dimensions, got [2,4,8] and [3,4,8]}}
  %0 = nn.attention %q, %k, %k {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<3x4x8xf32>, tensor<3x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C5
func.func @attention_causal_lengths(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>) {
  // expected-error @+1 {{expects as many queries as keys when causal, got 4 and 6}}
  %0 = nn.attention %q, %k, %k {num_heads = 2 : i64, causal = true} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C6
func.func @attention_zero_heads(%q: tensor<2x4x8xf32>) {
  // expected-error @+1 {{expects num_heads ≥ 1, got 0}}
  %0 = nn.attention %q, %q, %q {num_heads = 0 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C7
func.func @attention_heads_divide(%q: tensor<2x4x8xf32>) {
  // expected-error @+1 {{expects num_heads (3) to divide the feature dimension (8)}}
  %0 = nn.attention %q, %q, %q {num_heads = 3 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C9
func.func @attention_result(%q: tensor<2x4x8xf32>) {
  // expected-error @+1 {{expects the result type to equal q's type}}
  %0 = nn.attention %q, %q, %q {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// nn.attention-C8
func.func @attention_element_types(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf64>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.attention %q, %k, %k {num_heads = 2 : i64} : (tensor<2x4x8xf32>, tensor<2x4x8xf64>, tensor<2x4x8xf64>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.attention-C1
func.func @attention_missing_heads(%q: tensor<2x4x8xf32>) {
  // expected-error @+1 {{requires attribute 'num_heads'}}
  %0 = "nn.attention"(%q, %q, %q) : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

// nn.dropout-C3
func.func @dropout_key_length(%x: tensor<4xf32>, %k: tensor<3xui32>) {
  // expected-error @+1 {{expects a key of two 32-bit words, got 3}}
  %0 = nn.dropout %x, %k {rate = 0.5 : f32} : (tensor<4xf32>, tensor<3xui32>) -> tensor<4xf32>
  return
}

// -----

// nn.dropout-C1
func.func @dropout_key_dtype(%x: tensor<4xf32>, %k: tensor<2xf32>) {
  // expected-error @+1 {{operand #1 must be 1D tensor of 32-bit unsigned integer or 32-bit signless integer values}}
  %0 = nn.dropout %x, %k {rate = 0.5 : f32} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

// nn.dropout-C4
func.func @dropout_rate_one(%x: tensor<4xf32>, %k: tensor<2xui32>) {
  // expected-error @+1 {{expects 0 ≤ rate < 1, got 1}}
  %0 = nn.dropout %x, %k {rate = 1.0 : f32} : (tensor<4xf32>, tensor<2xui32>) -> tensor<4xf32>
  return
}

// -----

// nn.dropout-C4
func.func @dropout_rate_negative(%x: tensor<4xf32>, %k: tensor<2xui32>) {
  // expected-error @+1 {{expects 0 ≤ rate < 1, got -1.000000e-01}}
  %0 = nn.dropout %x, %k {rate = -0.1 : f32} : (tensor<4xf32>, tensor<2xui32>) -> tensor<4xf32>
  return
}

// -----

// nn.dropout-C2
func.func @dropout_result_type(%x: tensor<4xf32>, %k: tensor<2xui32>) {
  // expected-error @+1 {{failed to verify that all of {x, result} have same type}}
  %0 = nn.dropout %x, %k {rate = 0.5 : f32} : (tensor<4xf32>, tensor<2xui32>) -> tensor<4xf64>
  return
}

// -----

// nn.reversible_half_residual-C3
func.func @half_residual_arity(%a: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects the body to take 1 argument(s) of the types of the context values, got 2}}
  %0:2 = nn.reversible_half_residual %a, %c : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    nn.yield %x : tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_half_residual-C4
func.func @half_residual_yield(%a: tensor<4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{expects the body to yield 1 value(s) of type(s) matching the accumulator before any layer state, got 1}}
  %0:2 = nn.reversible_half_residual %a, %c : tensor<4xf32>, tensor<3xf32> {
  ^bb0(%x: tensor<3xf32>):
    nn.yield %x : tensor<3xf32>
  }
  return
}

// -----

// nn.reversible_half_residual-C1
func.func @half_residual_int_acc(%a: tensor<4xi32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0:2 = "nn.reversible_half_residual"(%a, %c) ({
  ^bb0(%x: tensor<4xf32>):
    "nn.yield"(%a) : (tensor<4xi32>) -> ()
  }) : (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>)
  return
}

// -----

// nn.reversible_serial-C3
func.func @serial_signature(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects the body to take 2 argument(s) of the types of the inputs, got 1}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    nn.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C4
func.func @serial_yield(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects the body to yield 2 value(s) of type(s) matching the inputs before any layer state, got 1}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    nn.yield %x : tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C5
func.func @serial_not_reversible(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects only reversible ops in its body, got nn.tanh}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %t = nn.tanh %x : tensor<4xf32>
    nn.yield %t, %y : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C7
func.func @serial_value_twice(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects each value of its body to be used exactly once, got 2 uses}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    nn.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C7
func.func @serial_value_dropped(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects each value of its body to be used exactly once, got 0 uses}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s:2 = nn.reversible_swap %x, %y : tensor<4xf32>, tensor<4xf32>
    %t:2 = nn.reversible_swap %s#0, %s#1 : tensor<4xf32>, tensor<4xf32>
    nn.yield %t#1, %t#1 : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C6
func.func @serial_captured(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects values of its body to flow only through reversible ops, but one is captured by a nested region}}
  %0:3 = nn.reversible_serial %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>):
    %p:2 = nn.reversible_half_residual %x, %y : tensor<4xf32>, tensor<4xf32> {
    ^bb0(%u: tensor<4xf32>):
      %t = nn.tanh %z : tensor<4xf32>
      nn.yield %t : tensor<4xf32>
    }
    nn.yield %p#0, %p#1, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C6
// Inside a serial, a residual that reads its own accumulator could not be
// inverted; the serial's linearity check rejects it.
func.func @serial_half_residual_reads_acc(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects values of its body to flow only through reversible ops, but one is captured by a nested region}}
  %0:2 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %p:2 = nn.reversible_half_residual %x, %y : tensor<4xf32>, tensor<4xf32> {
    ^bb0(%u: tensor<4xf32>):
      %t = nn.tanh %x : tensor<4xf32>
      nn.yield %t : tensor<4xf32>
    }
    nn.yield %p#0, %p#1 : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C8
func.func @serial_state_into_chain(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{expects layer state to flow only to the yield, but a state result feeds nn.reversible_half_residual}}
  %0:3 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %p:3 = nn.reversible_half_residual %x, %y : tensor<4xf32>, tensor<4xf32> {
    ^bb0(%u: tensor<4xf32>):
      %t = nn.tanh %u : tensor<4xf32>
      nn.yield %t, %m : tensor<4xf32>, tensor<4xf32>
    }
    %q:3 = nn.reversible_half_residual %p#0, %p#1, %p#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> {
    ^bb0(%u: tensor<4xf32>, %v: tensor<4xf32>):
      nn.yield %v : tensor<4xf32>
    }
    nn.yield %q#0, %q#1, %q#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.reversible_serial-C8
func.func @serial_state_first(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>) {
  // expected-error @+1 {{expects the body to yield its 2 chain value(s) first and layer state after them, got state at position 0}}
  %0:3 = nn.reversible_serial %a, %b : tensor<4xf32>, tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %p:3 = nn.reversible_half_residual %x, %y : tensor<4xf32>, tensor<4xf32> {
    ^bb0(%u: tensor<4xf32>):
      %t = nn.tanh %u : tensor<4xf32>
      nn.yield %t, %m : tensor<4xf32>, tensor<4xf32>
    }
    nn.yield %p#2, %p#1, %p#0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// nn.yield-C2
func.func @yield_outside(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects parent op to be one of 'nn.reversible_half_residual, nn.reversible_serial'}}
  "nn.yield"(%a) : (tensor<4xf32>) -> ()
  return
}

// -----

// nn.reversible_swap-C2
func.func @swap_result_types(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'nn.reversible_swap' op inferred type(s) 'tensor<3xf32>', 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>', 'tensor<3xf32>'}}
  // expected-error @+1 {{'nn.reversible_swap' op failed to infer returned types}}
  %0:2 = "nn.reversible_swap"(%a, %b) : (tensor<4xf32>, tensor<3xf32>) -> (tensor<4xf32>, tensor<3xf32>)
  return
}

// -----

// nn.sigmoid: x and result are float tensors of one static type.
func.func @integer_sigmoid(%x: tensor<3xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = nn.sigmoid %x : tensor<3xi32>
  return
}

// -----

func.func @dynamic_sigmoid(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = nn.sigmoid %x : tensor<?xf32>
  return
}

// -----

// nn.conv2d-C2
func.func @conv2d_x_rank(%x: tensor<8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects x of rank 4 (NxHxWxC), got rank 3}}
  %0 = nn.conv2d %x, %w, %b : (tensor<8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.conv2d-C3
func.func @conv2d_w_rank(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects w of rank 4 (KHxKWxCxF), got rank 3}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.conv2d-C4
func.func @conv2d_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects w's third dimension to equal x's channels (3), got 2}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.conv2d-C5
func.func @conv2d_bias(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{expects b of length 4, got 5}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<5xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.conv2d-C6
func.func @conv2d_attr_sizes(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects 2 strides, 2 dilations and 4 paddings, got 2, 2 and 2}}
  %0 = nn.conv2d %x, %w, %b {padding = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

// nn.conv2d-C7
func.func @conv2d_stride_zero(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects strides and dilations ≥ 1 and paddings ≥ 0}}
  %0 = nn.conv2d %x, %w, %b {strides = array<i64: 0, 1>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.conv2d-C8
func.func @conv2d_window_too_large(%x: tensor<1x4x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects the dilated window (5) to fit the padded input (4) in dimension 1}}
  %0 = nn.conv2d %x, %w, %b {dilations = array<i64: 2, 1>} : (tensor<1x4x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x1x6x4xf32>
  return
}

// -----

// nn.conv2d-C9
func.func @conv2d_result(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects result shape [1,3,3,4], got [1,4,4,4]}}
  %0 = nn.conv2d %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// nn.conv2d-C10
func.func @conv2d_types(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf64>, %b: tensor<4xf64>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.conv2d %x, %w, %b : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf64>, tensor<4xf64>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.flatten-C2
func.func @flatten_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{expects x of rank at least 1}}
  %0 = nn.flatten %x : (tensor<f32>) -> tensor<1x1xf32>
  return
}

// -----

// nn.flatten-C3
func.func @flatten_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expects result shape [2,12], got [6,4]}}
  %0 = nn.flatten %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return
}

// -----

// nn.flatten-C4
func.func @flatten_types(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.flatten %x : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return
}

// -----

// nn.conv2d-C8: window arithmetic that would overflow is an error, not UB.
func.func @conv2d_padding_overflow(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects paddings and dilations whose window extents fit in 64 bits}}
  %0 = nn.conv2d %x, %w, %b {padding = array<i64: 9223372036854775800, 100, 0, 0>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// nn.pool2d-C2
func.func @pool_rank(%x: tensor<2x8x8xf32>) {
  // expected-error @+1 {{expects x of rank 4 (NxHxWxC), got rank 3}}
  %0 = nn.max_pool2d %x {window = array<i64: 2, 2>} : (tensor<2x8x8xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

// nn.pool2d-C3
func.func @pool_window_size(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects a window of 2, 2 strides and 4 paddings, got 2, 1 and 4}}
  %0 = nn.avg_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

// nn.pool2d-C4
func.func @pool_zero_stride(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects a window and strides ≥ 1}}
  %0 = nn.max_pool2d %x {window = array<i64: 2, 2>, strides = array<i64: 0, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

// nn.pool2d-C5: a window made only of padding has no maximum.
func.func @pool_padding(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects each padding in [0, window) so that every window holds an input element, got 2 for a window of 2}}
  %0 = nn.max_pool2d %x {window = array<i64: 2, 2>, padding = array<i64: 0, 0, 2, 0>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x5x3xf32>
  return
}

// -----

// nn.pool2d-C6
func.func @pool_window_too_large(%x: tensor<1x3x8x3xf32>) {
  // expected-error @+1 {{expects the window (4) to fit the padded input (3) in dimension 1}}
  %0 = nn.avg_pool2d %x {window = array<i64: 4, 2>} : (tensor<1x3x8x3xf32>) -> tensor<1x1x4x3xf32>
  return
}

// -----

// nn.pool2d-C7
func.func @pool_result_shape(%x: tensor<1x7x8x3xf32>) {
  // expected-error @+1 {{expects result shape [1,3,4,3], got [1,4,4,3]}}
  %0 = nn.max_pool2d %x {window = array<i64: 2, 2>} : (tensor<1x7x8x3xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

// nn.pool2d-C8
func.func @pool_types(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %0 = nn.avg_pool2d %x {window = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf64>
  return
}

// -----

// nn.batch_norm-C2
func.func @batch_norm_rank(%x: tensor<f32>, %c: tensor<1xf32>) {
  // expected-error @+1 {{expects x of rank at least 1 (...xC)}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c : (tensor<f32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<f32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

// nn.batch_norm-C3
func.func @batch_norm_var_length(%x: tensor<8x4xf32>, %c: tensor<4xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects var of length 4, got 3}}
  %y, %m, %nv = nn.batch_norm %x, %c, %c, %c, %v : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<3xf32>)
  return
}

// -----

// nn.batch_norm-C4
func.func @batch_norm_y(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects y of x's type 'tensor<8x4xf32>', got 'tensor<4x8xf32>'}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C5
func.func @batch_norm_state(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects new_mean and new_var of the types of mean and var}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf64>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C6
func.func @batch_norm_types(%x: tensor<8x4xf32>, %c: tensor<4xf32>, %d: tensor<4xf64>) {
  // expected-error @+1 {{expects all float operands and results to have one element type, got 'f32' and 'f64'}}
  %y, %m, %v = nn.batch_norm %x, %d, %c, %c, %c : (tensor<8x4xf32>, tensor<4xf64>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C7
func.func @batch_norm_epsilon(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects a positive epsilon, got 0}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c {epsilon = 0.0 : f32} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C7: an f64 epsilon needs f64 operands.
func.func @batch_norm_epsilon_f64(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects an f32 epsilon for 'f32' operands, got an f64 one}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c {epsilon = 1.0e-12 : f64} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C8
func.func @batch_norm_momentum(%x: tensor<8x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects momentum in [0, 1], got 1.5}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c {momentum = 1.5 : f32} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// nn.batch_norm-C9: one position per channel has no unbiased variance.
func.func @batch_norm_one_position(%x: tensor<1x4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{expects at least 2 positions per channel in training, got 1}}
  %y, %m, %v = nn.batch_norm %x, %c, %c, %c, %c : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}
