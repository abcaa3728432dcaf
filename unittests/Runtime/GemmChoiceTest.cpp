//===- GemmChoiceTest.cpp - The host's f32 GEMM library choice ------------===//
//
// judgeGemmRates on made-up rates: the faster library takes each size class
// (the CBLAS only by the margin), a library under half the other's large
// rate is sick and takes none, a missing one (rate 0) likewise; and
// classifyGemm's class boundaries, without overflow at BLAS-size extremes;
// judgeShapeRates: a shape leaves its class's library only by the margin,
// never for a sick or missing one.
// (The measurement itself and the kept files:
// test/Integration/JIT/perf/gemm-choice.mlir.)
//
//===----------------------------------------------------------------------===//

#include "GemmChoice.h"

#include "gtest/gtest.h"

using trellis::GemmChoice;
using trellis::GemmClass;
using trellis::GemmLibrary;
using trellis::runtime::GemmMeasurement;
using trellis::runtime::judgeGemmRates;

namespace {
/// Rates {small, medium, large, thin, short, narrow} of the CBLAS and of
/// oneDNN.
GemmMeasurement rates(std::array<double, 6> cblas, std::array<double, 6> dnnl) {
  GemmMeasurement m;
  m.gflops[static_cast<unsigned>(GemmLibrary::Cblas)] = cblas;
  m.gflops[static_cast<unsigned>(GemmLibrary::Dnnl)] = dnnl;
  judgeGemmRates(m);
  return m;
}

constexpr auto Cblas = GemmLibrary::Cblas;
constexpr auto Dnnl = GemmLibrary::Dnnl;
} // namespace

TEST(GemmChoice, FasterLibraryTakesEachClass) {
  GemmMeasurement m =
      rates({100, 90, 92, 70, 60, 30}, {78, 111, 105, 90, 35, 80});
  EXPECT_EQ(m.choice, (GemmChoice{Cblas, Dnnl, Dnnl, Dnnl, Cblas, Dnnl}));
  EXPECT_FALSE(m.sick[0]);
  EXPECT_FALSE(m.sick[1]);
}

TEST(GemmChoice, CblasNeedsTheMargin) {
  // 5 % faster is noise: oneDNN keeps the class; 20 % is not.
  EXPECT_EQ(
      rates({105, 120, 100, 130, 105, 125}, {100, 100, 100, 100, 100, 100})
          .choice,
      (GemmChoice{Dnnl, Cblas, Dnnl, Cblas, Dnnl, Cblas}));
}

TEST(GemmChoice, SickCblasTakesNothing) {
  // Debian's OpenBLAS on a CPU it does not know: fast on tiny shapes, under
  // half oneDNN's rate on large ones.
  GemmMeasurement m =
      rates({120, 40, 45, 40, 200, 30}, {80, 110, 130, 120, 90, 90});
  EXPECT_TRUE(m.sick[static_cast<unsigned>(Cblas)]);
  EXPECT_FALSE(m.sick[static_cast<unsigned>(Dnnl)]);
  EXPECT_EQ(m.choice, GemmChoice::all(Dnnl));
}

TEST(GemmChoice, SickDnnlTakesNothing) {
  GemmMeasurement m =
      rates({50, 90, 100, 90, 80, 70}, {120, 60, 40, 50, 200, 90});
  EXPECT_TRUE(m.sick[static_cast<unsigned>(Dnnl)]);
  EXPECT_EQ(m.choice, GemmChoice::all(Cblas));
}

TEST(GemmChoice, MissingLibraryIsNeverChosen) {
  EXPECT_EQ(rates({0, 0, 0, 0, 0, 0}, {80, 100, 120, 110, 90, 70}).choice,
            GemmChoice::all(Dnnl));
  EXPECT_EQ(rates({80, 100, 120, 110, 90, 70}, {0, 0, 0, 0, 0, 0}).choice,
            GemmChoice::all(Cblas));
  // Neither measured: the default, nothing sick.
  GemmMeasurement none = rates({0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
  EXPECT_EQ(none.choice, GemmChoice::all(Dnnl));
  EXPECT_FALSE(none.sick[0] || none.sick[1]);
}

/// The orientation choice on made-up rates of kOrientationGemms' two forms
/// ({direct, transposed} per library) after the classes are chosen.
GemmMeasurement orientation(std::array<double, 6> cblas,
                            std::array<double, 6> dnnl,
                            std::array<double, 2> cblasForms,
                            std::array<double, 2> dnnlForms) {
  GemmMeasurement m;
  m.gflops[static_cast<unsigned>(Cblas)] = cblas;
  m.gflops[static_cast<unsigned>(Dnnl)] = dnnl;
  for (unsigned form = 0; form < 2; ++form) {
    m.orientationGflops[form][static_cast<unsigned>(Cblas)] = cblasForms[form];
    m.orientationGflops[form][static_cast<unsigned>(Dnnl)] = dnnlForms[form];
  }
  judgeGemmRates(m);
  return m;
}

TEST(GemmChoice, TransposedShortProductsByTheMargin) {
  std::array<double, 6> even = {100, 100, 100, 100, 100, 100};
  // Zen 5, oneDNN: dY·Wᵀ 142 GFLOP/s, W·dHᵀ 193.
  EXPECT_TRUE(
      orientation(even, even, {140, 150}, {142, 193}).choice.transposeShort);
  // 5 % is noise: the direct form stays.
  EXPECT_FALSE(
      orientation(even, even, {140, 150}, {142, 149}).choice.transposeShort);
  // Each form counts in its class's library: short to the CBLAS (145 on
  // the direct form), large to oneDNN (150 on the transposed one).
  std::array<double, 6> cblasShort = {100, 100, 100, 100, 200, 100};
  EXPECT_FALSE(orientation(cblasShort, even, {145, 300}, {90, 150})
                   .choice.transposeShort);
  // A form nobody measured is never taken.
  EXPECT_FALSE(orientation(even, even, {0, 0}, {0, 0}).choice.transposeShort);
  EXPECT_FALSE(
      orientation(even, even, {0, 150}, {0, 193}).choice.transposeShort);
}

TEST(GemmChoice, ClassBoundaries) {
  using trellis::classifyGemm;
  EXPECT_EQ(classifyGemm(64, 64, 63), GemmClass::Small);
  EXPECT_EQ(classifyGemm(64, 64, 64), GemmClass::Medium);
  EXPECT_EQ(classifyGemm(256, 256, 255), GemmClass::Medium);
  EXPECT_EQ(classifyGemm(256, 256, 256), GemmClass::Large);
  // Large with K <= 128: thin (a weight gradient over a batch of 64).
  EXPECT_EQ(classifyGemm(1024, 1024, 64), GemmClass::Thin);
  EXPECT_EQ(classifyGemm(2048, 2048, 128), GemmClass::Thin);
  EXPECT_EQ(classifyGemm(1024, 1024, 129), GemmClass::Large);
  // Large, not thin, with M <= 128: short (a layer over a batch of 64).
  EXPECT_EQ(classifyGemm(64, 1024, 1024), GemmClass::Short);
  EXPECT_EQ(classifyGemm(128, 2048, 2048), GemmClass::Short);
  EXPECT_EQ(classifyGemm(129, 1024, 1024), GemmClass::Large);
  // Large, neither thin nor short, with N <= 32: narrow (a convolution's
  // im2col GEMM with 16 filters, its weight gradient).
  EXPECT_EQ(classifyGemm(19600, 16, 144), GemmClass::Narrow);
  EXPECT_EQ(classifyGemm(144, 16, 19600), GemmClass::Narrow);
  EXPECT_EQ(classifyGemm(1 << 20, 32, 1024), GemmClass::Narrow);
  EXPECT_EQ(classifyGemm(1 << 20, 33, 1024), GemmClass::Large);
  EXPECT_EQ(classifyGemm(19600, 144, 16), GemmClass::Thin);
  EXPECT_EQ(classifyGemm(128, 16, 1 << 20), GemmClass::Short);
  EXPECT_EQ(classifyGemm(64, 1024, 64), GemmClass::Medium);
  EXPECT_EQ(classifyGemm(64, 64, 64), GemmClass::Medium);
  EXPECT_EQ(classifyGemm(1, 1, 1), GemmClass::Small);
  // BLAS-size extremes: no overflow of M·N·K.
  const int64_t big = int64_t(1) << 31;
  EXPECT_EQ(classifyGemm(big, big, big), GemmClass::Large);
  EXPECT_EQ(classifyGemm(1, big, big), GemmClass::Short);
  EXPECT_EQ(classifyGemm(big, 1, 1), GemmClass::Thin);
  EXPECT_EQ(classifyGemm(1, 1, big), GemmClass::Short);
  EXPECT_EQ(classifyGemm(big, big, 129), GemmClass::Large);
  // Each measured GEMM is in the class it counts for, and every class is
  // measured.
  std::array<bool, trellis::kNumGemmClasses> measured{};
  for (const trellis::runtime::MeasuredGemm &gemm :
       trellis::runtime::kMeasuredGemms) {
    EXPECT_EQ(classifyGemm(gemm.shape.m, gemm.shape.n, gemm.shape.k),
              gemm.gemmClass);
    measured[static_cast<unsigned>(gemm.gemmClass)] = true;
  }
  for (bool classMeasured : measured)
    EXPECT_TRUE(classMeasured);
}

TEST(GemmChoice, ShapeLeavesItsClassOnlyByTheMargin) {
  using trellis::runtime::judgeShapeRates;
  auto gflops = [](double dnnl, double cblas) {
    std::array<double, 2> r{};
    r[static_cast<unsigned>(Dnnl)] = dnnl;
    r[static_cast<unsigned>(Cblas)] = cblas;
    return r;
  };
  std::array<bool, 2> healthy = {false, false};
  // Zen 5 capped to AVX2, 1 thread: 1024×256×2048 Aᵀ·B, oneDNN 60,
  // OpenBLAS 87.
  EXPECT_EQ(judgeShapeRates(Dnnl, gflops(60, 87), healthy), Cblas);
  // The margin holds both ways: 5 % does not move a shape.
  EXPECT_EQ(judgeShapeRates(Dnnl, gflops(100, 105), healthy), Dnnl);
  EXPECT_EQ(judgeShapeRates(Cblas, gflops(105, 100), healthy), Cblas);
  EXPECT_EQ(judgeShapeRates(Cblas, gflops(120, 100), healthy), Dnnl);
  // A sick library takes no shape, however fast it ran this one.
  std::array<bool, 2> sickCblas{};
  sickCblas[static_cast<unsigned>(Cblas)] = true;
  EXPECT_EQ(judgeShapeRates(Dnnl, gflops(60, 87), sickCblas), Dnnl);
  // A library missing from the measurement (0) is never taken.
  EXPECT_EQ(judgeShapeRates(Cblas, gflops(100, 0), healthy), Dnnl);
  EXPECT_EQ(judgeShapeRates(Dnnl, gflops(100, 0), healthy), Dnnl);
}

TEST(GemmChoice, ShapeSpelling) {
  EXPECT_EQ((trellis::GemmShape{1024, 256, 2048, true, false}.str()),
            "1024x256x2048:tn");
  EXPECT_EQ((trellis::GemmShape{64, 1024, 1024, false, true}.str()),
            "64x1024x1024:nt");
}

TEST(GemmChoice, OnlyShapesOfBoundedCostAreMeasured) {
  using trellis::GemmShape;
  using trellis::runtime::isMeasurableShape;
  // The LM step's largest: 2048×1024×256, 2^30 flops.
  EXPECT_TRUE(isMeasurableShape(GemmShape{2048, 1024, 256, false, false}));
  EXPECT_TRUE(isMeasurableShape(GemmShape{1024, 1024, 1024, true, false}));
  // 2^31 flops and beyond: a call of 10-20 ms, 36 of them.
  EXPECT_FALSE(isMeasurableShape(GemmShape{2048, 1024, 1024, false, false}));
  // Few flops, operands over 64 MiB.
  EXPECT_FALSE(isMeasurableShape(GemmShape{1 << 22, 4, 4, false, false}));
  EXPECT_FALSE(isMeasurableShape(GemmShape{4096, 4096, 1, false, false}));
  // BLAS-size extremes do not overflow.
  int64_t max = (int64_t(1) << 31) - 1;
  EXPECT_FALSE(isMeasurableShape(GemmShape{max, max, max, false, false}));
  EXPECT_FALSE(isMeasurableShape(GemmShape{max, 1, 1, false, true}));
}
