// The seed's mock_training_step: value_and_grad with aux (new state,
// logits) of mean(logits[..., 0]), then w − 1e-4·g for every weight.
// The model carries state: a running mean of its hidden activations.
// REQUIRES: numpy
// RUN: %python %S/mock_training_step.py %s %t

func.func @pure_fn(%x: tensor<8x6xf32>, %w1: tensor<6x10xf32>, %b1: tensor<10xf32>,
                   %w2: tensor<10x3xf32>, %b2: tensor<3xf32>, %state: tensor<10xf32>)
    -> (tensor<8x3xf32>, tensor<10xf32>) {
  %h = nn.dense %x, %w1, %b1 : (tensor<8x6xf32>, tensor<6x10xf32>, tensor<10xf32>) -> tensor<8x10xf32>
  %a = nn.relu %h : tensor<8x10xf32>
  %logits = nn.dense %a, %w2, %b2 : (tensor<8x10xf32>, tensor<10x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  // new_state = 0.9·state + 0.1·mean over the batch of a
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<10xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<10xf32>) -> tensor<10xf32>
  %sum = linalg.reduce ins(%a : tensor<8x10xf32>) outs(%fill : tensor<10xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %k1 = arith.constant dense<0.9> : tensor<10xf32>
  %k2 = arith.constant dense<0.0125> : tensor<10xf32>
  %old = arith.mulf %state, %k1 : tensor<10xf32>
  %new = arith.mulf %sum, %k2 : tensor<10xf32>
  %next = arith.addf %old, %new : tensor<10xf32>
  return %logits, %next : tensor<8x3xf32>, tensor<10xf32>
}

func.func @compute_mock_loss(%w1: tensor<6x10xf32>, %b1: tensor<10xf32>,
                             %w2: tensor<10x3xf32>, %b2: tensor<3xf32>,
                             %x: tensor<8x6xf32>, %state: tensor<10xf32>)
    -> (tensor<f32>, tensor<10xf32>, tensor<8x3xf32>) {
  %logits, %new_state = func.call @pure_fn(%x, %w1, %b1, %w2, %b2, %state)
      : (tensor<8x6xf32>, tensor<6x10xf32>, tensor<10xf32>, tensor<10x3xf32>, tensor<3xf32>, tensor<10xf32>)
      -> (tensor<8x3xf32>, tensor<10xf32>)
  %first = tensor.extract_slice %logits[0, 0] [8, 1] [1, 1] : tensor<8x3xf32> to tensor<8x1xf32>
  %loss = nn.mean %first : (tensor<8x1xf32>) -> tensor<f32>
  return %loss, %new_state, %logits : tensor<f32>, tensor<10xf32>, tensor<8x3xf32>
}

func.func @mock_training_step(%x: tensor<8x6xf32>, %w1: tensor<6x10xf32>, %b1: tensor<10xf32>,
                              %w2: tensor<10x3xf32>, %b2: tensor<3xf32>, %state: tensor<10xf32>)
    -> (tensor<6x10xf32>, tensor<10xf32>, tensor<10x3xf32>, tensor<3xf32>, tensor<10xf32>, tensor<8x3xf32>) {
  %g1, %g2, %g3, %g4, %new_state, %logits = ad.grad @compute_mock_loss(%w1, %b1, %w2, %b2, %x, %state)
      {argnums = array<i64: 0, 1, 2, 3>, has_aux = true}
      : (tensor<6x10xf32>, tensor<10xf32>, tensor<10x3xf32>, tensor<3xf32>, tensor<8x6xf32>, tensor<10xf32>)
      -> (tensor<6x10xf32>, tensor<10xf32>, tensor<10x3xf32>, tensor<3xf32>, tensor<10xf32>, tensor<8x3xf32>)
  %lr1 = arith.constant dense<1.0e-4> : tensor<6x10xf32>
  %lr2 = arith.constant dense<1.0e-4> : tensor<10xf32>
  %lr3 = arith.constant dense<1.0e-4> : tensor<10x3xf32>
  %lr4 = arith.constant dense<1.0e-4> : tensor<3xf32>
  %d1 = arith.mulf %lr1, %g1 : tensor<6x10xf32>
  %d2 = arith.mulf %lr2, %g2 : tensor<10xf32>
  %d3 = arith.mulf %lr3, %g3 : tensor<10x3xf32>
  %d4 = arith.mulf %lr4, %g4 : tensor<3xf32>
  %n1 = arith.subf %w1, %d1 : tensor<6x10xf32>
  %n2 = arith.subf %b1, %d2 : tensor<10xf32>
  %n3 = arith.subf %w2, %d3 : tensor<10x3xf32>
  %n4 = arith.subf %b2, %d4 : tensor<3xf32>
  return %n1, %n2, %n3, %n4, %new_state, %logits
      : tensor<6x10xf32>, tensor<10xf32>, tensor<10x3xf32>, tensor<3xf32>, tensor<10xf32>, tensor<8x3xf32>
}
