// The f32 multiply-accumulate core of tt.dot: acc[m][n] = fma(a[m][k], b[k][n], acc[m][n]) for k in order.
// Every variant performs exactly the same fma steps on every element (only which elements are in flight at
// once differs), so all give the same bits as the naive loop. Without -mfma, std::fma is a library call, so
// the hot loops are compiled twice more with GCC target attributes (AVX2+FMA: 4x16 register blocks;
// AVX-512: 4x32 blocks) and picked once at run time with __builtin_cpu_supports. K is walked in chunks so a
// block's slice of b stays in L1 for large K; chunking keeps each element's k order intact because the
// partial sum goes back to `acc` between chunks.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "interpreter/Dot.h"

namespace tilesim {
namespace {

constexpr int64_t kDepthChunk = 256;

// The reference loop, also the tail of the SIMD variants (columns that do not fill a vector).
inline void scalarColumns(const float* a, const float* b, float* acc, int64_t rows, int64_t firstColumn,
                          int64_t columns, int64_t depth, int64_t lda, int64_t ldb, int64_t ldacc) {
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t k = 0; k < depth; ++k) {
      float av = a[m * lda + k];
      for (int64_t n = firstColumn; n < columns; ++n) acc[m * ldacc + n] = std::fma(av, b[k * ldb + n], acc[m * ldacc + n]);
    }
}

void portableKernel(const float* a, const float* b, float* acc, int64_t rows, int64_t columns, int64_t depth) {
  scalarColumns(a, b, acc, rows, 0, columns, depth, depth, columns, columns);
}

#define TILESIM_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TILESIM_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))

// The SIMD kernel of one instruction set, written once for both: VECTOR holds LANES floats, PREFIX names its
// intrinsics (PREFIX##_loadu_ps, ...) and TARGET enables them. A macro, because a GCC target attribute cannot be a
// template parameter; everything the two kernels do differently follows from LANES. It defines
//   BLOCK<Rows, Vectors>: one Rows x (Vectors * LANES) block of acc over `depth` steps of k (a: row-major with
//     stride lda; b, acc: stride ldb), the sums held in registers;
//   ROWS<Rows>: Rows rows of acc, 2 and 1 vectors at a time; AVX-512 hands the last (fewer than 16) columns to
//     AVX2's ROWS, which leaves the rest to the scalar loop;
//   KERNEL: k in chunks of kDepthChunk, within a chunk the rows in blocks of 8 (AVX-512 only), 4 and 1.
#define TILESIM_FMA_KERNEL(BLOCK, ROWS, KERNEL, TARGET, VECTOR, PREFIX, LANES, NARROWER_COLUMNS)                       \
  template <int Rows, int Vectors>                                                                                     \
  TARGET inline void BLOCK(const float* a, const float* b, float* acc, int64_t depth, int64_t lda, int64_t ldb) {      \
    VECTOR sum[Rows][Vectors];                                                                                         \
    _Pragma("GCC unroll 8") for (int r = 0; r < Rows; ++r) {                                                           \
      _Pragma("GCC unroll 8") for (int v = 0; v < Vectors; ++v) sum[r][v] =                                            \
          PREFIX##_loadu_ps(acc + r * ldb + v * LANES);                                                                \
    }                                                                                                                  \
    for (int64_t k = 0; k < depth; ++k) {                                                                              \
      VECTOR bv[Vectors];                                                                                              \
      _Pragma("GCC unroll 8") for (int v = 0; v < Vectors; ++v) bv[v] = PREFIX##_loadu_ps(b + k * ldb + v * LANES);    \
      _Pragma("GCC unroll 8") for (int r = 0; r < Rows; ++r) {                                                         \
        VECTOR av = PREFIX##_set1_ps(a[r * lda + k]);                                                                  \
        _Pragma("GCC unroll 8") for (int v = 0; v < Vectors; ++v) sum[r][v] = PREFIX##_fmadd_ps(av, bv[v], sum[r][v]); \
      }                                                                                                                \
    }                                                                                                                  \
    _Pragma("GCC unroll 8") for (int r = 0; r < Rows; ++r) {                                                           \
      _Pragma("GCC unroll 8") for (int v = 0; v < Vectors; ++v)                                                        \
          PREFIX##_storeu_ps(acc + r * ldb + v * LANES, sum[r][v]);                                                    \
    }                                                                                                                  \
  }                                                                                                                    \
                                                                                                                       \
  template <int Rows>                                                                                                  \
  TARGET inline void ROWS(const float* a, const float* b, float* acc, int64_t firstColumn, int64_t columns,            \
                          int64_t depth, int64_t lda) {                                                                \
    int64_t n = firstColumn;                                                                                           \
    for (; n + 2 * LANES <= columns; n += 2 * LANES) BLOCK<Rows, 2>(a, b + n, acc + n, depth, lda, columns);           \
    for (; n + LANES <= columns; n += LANES) BLOCK<Rows, 1>(a, b + n, acc + n, depth, lda, columns);                   \
    NARROWER_COLUMNS;                                                                                                  \
  }                                                                                                                    \
                                                                                                                       \
  TARGET void KERNEL(const float* a, const float* b, float* acc, int64_t rows, int64_t columns, int64_t depth) {       \
    for (int64_t k0 = 0; k0 < depth; k0 += kDepthChunk) {                                                              \
      int64_t chunk = std::min(kDepthChunk, depth - k0);                                                               \
      const float* bChunk = b + k0 * columns;                                                                          \
      int64_t m = 0;                                                                                                   \
      if constexpr (LANES > 8)                                                                                         \
        for (; m + 8 <= rows; m += 8)                                                                                  \
          ROWS<8>(a + m * depth + k0, bChunk, acc + m * columns, 0, columns, chunk, depth);                            \
      for (; m + 4 <= rows; m += 4) ROWS<4>(a + m * depth + k0, bChunk, acc + m * columns, 0, columns, chunk, depth);  \
      for (; m < rows; ++m) ROWS<1>(a + m * depth + k0, bChunk, acc + m * columns, 0, columns, chunk, depth);          \
    }                                                                                                                  \
  }

TILESIM_FMA_KERNEL(blockAvx2, rowsAvx2, avx2Kernel, TILESIM_TARGET_AVX2, __m256, _mm256, 8,
                   scalarColumns(a, b, acc, Rows, n, columns, depth, lda, columns, columns))
TILESIM_FMA_KERNEL(blockAvx512, rowsAvx512, avx512Kernel, TILESIM_TARGET_AVX512, __m512, _mm512, 16,
                   rowsAvx2<Rows>(a, b, acc, n, columns, depth, lda))
#undef TILESIM_FMA_KERNEL

using Kernel = void (*)(const float*, const float*, float*, int64_t, int64_t, int64_t);

struct KernelChoice {
  Kernel kernel;
  const char* name;
};

// Chosen once; immutable afterwards (a function-local static is initialised thread-safely).
const KernelChoice& kernelChoice() {
  static const KernelChoice choice = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) return KernelChoice{avx512Kernel, "avx512"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return KernelChoice{avx2Kernel, "avx2+fma"};
    return KernelChoice{portableKernel, "portable"};
  }();
  return choice;
}

}  // namespace

void multiplyAccumulateF32(const float* a, const float* b, float* acc, int64_t batches, int64_t rows,
                           int64_t columns, int64_t depth) {
  Kernel kernel = kernelChoice().kernel;
  for (int64_t batch = 0; batch < batches; ++batch)
    kernel(a + batch * rows * depth, b + batch * depth * columns, acc + batch * rows * columns, rows, columns, depth);
}

const char* multiplyAccumulateF32Variant() { return kernelChoice().name; }

}  // namespace tilesim
