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

// One Rows x (Vectors*8) block of acc, over `depth` steps of k. a: row-major with stride lda; b, acc: stride n.
template <int Rows, int Vectors>
TILESIM_TARGET_AVX2 inline void blockAvx2(const float* a, const float* b, float* acc, int64_t depth, int64_t lda,
                                          int64_t ldb) {
  __m256 sum[Rows][Vectors];
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) sum[r][v] = _mm256_loadu_ps(acc + r * ldb + v * 8);
  for (int64_t k = 0; k < depth; ++k) {
    __m256 bv[Vectors];
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) bv[v] = _mm256_loadu_ps(b + k * ldb + v * 8);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      __m256 av = _mm256_set1_ps(a[r * lda + k]);
#pragma GCC unroll 8
      for (int v = 0; v < Vectors; ++v) sum[r][v] = _mm256_fmadd_ps(av, bv[v], sum[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) _mm256_storeu_ps(acc + r * ldb + v * 8, sum[r][v]);
}

template <int Rows>
TILESIM_TARGET_AVX2 inline void rowsAvx2(const float* a, const float* b, float* acc, int64_t columns, int64_t depth,
                                         int64_t lda) {
  int64_t n = 0;
  for (; n + 16 <= columns; n += 16) blockAvx2<Rows, 2>(a, b + n, acc + n, depth, lda, columns);
  for (; n + 8 <= columns; n += 8) blockAvx2<Rows, 1>(a, b + n, acc + n, depth, lda, columns);
  scalarColumns(a, b, acc, Rows, n, columns, depth, lda, columns, columns);
}

TILESIM_TARGET_AVX2 void avx2Kernel(const float* a, const float* b, float* acc, int64_t rows, int64_t columns,
                                    int64_t depth) {
  for (int64_t k0 = 0; k0 < depth; k0 += kDepthChunk) {
    int64_t chunk = std::min(kDepthChunk, depth - k0);
    const float* bChunk = b + k0 * columns;
    int64_t m = 0;
    for (; m + 4 <= rows; m += 4) rowsAvx2<4>(a + m * depth + k0, bChunk, acc + m * columns, columns, chunk, depth);
    for (; m < rows; ++m) rowsAvx2<1>(a + m * depth + k0, bChunk, acc + m * columns, columns, chunk, depth);
  }
}

template <int Rows, int Vectors>
TILESIM_TARGET_AVX512 inline void blockAvx512(const float* a, const float* b, float* acc, int64_t depth,
                                              int64_t lda, int64_t ldb) {
  __m512 sum[Rows][Vectors];
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) sum[r][v] = _mm512_loadu_ps(acc + r * ldb + v * 16);
  for (int64_t k = 0; k < depth; ++k) {
    __m512 bv[Vectors];
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) bv[v] = _mm512_loadu_ps(b + k * ldb + v * 16);
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r) {
      __m512 av = _mm512_set1_ps(a[r * lda + k]);
#pragma GCC unroll 8
      for (int v = 0; v < Vectors; ++v) sum[r][v] = _mm512_fmadd_ps(av, bv[v], sum[r][v]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
    for (int v = 0; v < Vectors; ++v) _mm512_storeu_ps(acc + r * ldb + v * 16, sum[r][v]);
}

template <int Rows>
TILESIM_TARGET_AVX512 inline void rowsAvx512(const float* a, const float* b, float* acc, int64_t columns,
                                             int64_t depth, int64_t lda) {
  int64_t n = 0;
  for (; n + 32 <= columns; n += 32) blockAvx512<Rows, 2>(a, b + n, acc + n, depth, lda, columns);
  for (; n + 16 <= columns; n += 16) blockAvx512<Rows, 1>(a, b + n, acc + n, depth, lda, columns);
  for (; n + 8 <= columns; n += 8) blockAvx2<Rows, 1>(a, b + n, acc + n, depth, lda, columns);
  scalarColumns(a, b, acc, Rows, n, columns, depth, lda, columns, columns);
}

TILESIM_TARGET_AVX512 void avx512Kernel(const float* a, const float* b, float* acc, int64_t rows, int64_t columns,
                                        int64_t depth) {
  for (int64_t k0 = 0; k0 < depth; k0 += kDepthChunk) {
    int64_t chunk = std::min(kDepthChunk, depth - k0);
    const float* bChunk = b + k0 * columns;
    int64_t m = 0;
    for (; m + 8 <= rows; m += 8) rowsAvx512<8>(a + m * depth + k0, bChunk, acc + m * columns, columns, chunk, depth);
    for (; m + 4 <= rows; m += 4) rowsAvx512<4>(a + m * depth + k0, bChunk, acc + m * columns, columns, chunk, depth);
    for (; m < rows; ++m) rowsAvx512<1>(a + m * depth + k0, bChunk, acc + m * columns, columns, chunk, depth);
  }
}

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
