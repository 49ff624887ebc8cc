//===- bench/programs/SpMV.hip - Sparse matrix-vector product (hipSPARSE) -===//
//
// y = A x for a random CSR matrix through Debian's hipSPARSE (rocSPARSE's
// csrmv kernels: gathers of x at the column indices); checked against the
// host's product within float rounding.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include <hipsparse/hipsparse.h>
#include <cmath>
#include <vector>

constexpr int Rows = 1 << 15, Cols = 1 << 15, PerRow = 16, Reps = 24;

#define SPARSE_CHECK(Call)                                                     \
  do {                                                                         \
    hipsparseStatus_t St = (Call);                                             \
    EXPECT(St == HIPSPARSE_STATUS_SUCCESS, "%s returned %d", #Call, int(St));  \
  } while (0)

int main() {
  bench::Phases Ph;
  std::vector<int> RowPtr(Rows + 1), ColInd;
  std::vector<float> Val, X(Cols);
  for (int R = 0; R < Rows; ++R) {
    RowPtr[R] = int(ColInd.size());
    int Len = 1 + bench::hash(R) % (2 * PerRow); // uneven rows
    for (int K = 0; K < Len; ++K) {
      ColInd.push_back(int((bench::hash(R * 64 + K) % (Cols / Len)) +
                           K * (Cols / Len))); // sorted within the row
      Val.push_back(float(int(bench::hash(R ^ (K << 20)) % 9) - 4) / 4);
    }
  }
  RowPtr[Rows] = int(ColInd.size());
  for (int C = 0; C < Cols; ++C)
    X[C] = float(int(bench::hash(C + 99) % 17) - 8) / 8;
  int Nnz = RowPtr[Rows];
  int *DRow, *DCol;
  float *DVal, *DX, *DY;
  HIP_CHECK(hipMalloc(&DRow, (Rows + 1) * sizeof(int)));
  HIP_CHECK(hipMalloc(&DCol, Nnz * sizeof(int)));
  HIP_CHECK(hipMalloc(&DVal, Nnz * sizeof(float)));
  HIP_CHECK(hipMalloc(&DX, Cols * sizeof(float)));
  HIP_CHECK(hipMalloc(&DY, Rows * sizeof(float)));
  HIP_CHECK(hipMemcpy(DRow, RowPtr.data(), (Rows + 1) * sizeof(int),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(DCol, ColInd.data(), Nnz * sizeof(int),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(DVal, Val.data(), Nnz * sizeof(float),
                      hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(DX, X.data(), Cols * sizeof(float),
                      hipMemcpyHostToDevice));
  hipsparseHandle_t H;
  hipsparseMatDescr_t Desc;
  SPARSE_CHECK(hipsparseCreate(&H));
  SPARSE_CHECK(hipsparseCreateMatDescr(&Desc));
  float One = 1, Zero = 0;
  Ph.begin();
  for (int R = 0; R < Reps; ++R)
    SPARSE_CHECK(hipsparseScsrmv(H, HIPSPARSE_OPERATION_NON_TRANSPOSE, Rows,
                                 Cols, Nnz, &One, Desc, DVal, DRow, DCol, DX,
                                 &Zero, DY));
  Ph.end();
  std::vector<float> Y(Rows);
  HIP_CHECK(hipMemcpy(Y.data(), DY, Rows * sizeof(float),
                      hipMemcpyDeviceToHost));
  // Quarters times eighths: every partial sum is exact in float.
  for (int R = 0; R < Rows; ++R) {
    float Want = 0;
    for (int K = RowPtr[R]; K < RowPtr[R + 1]; ++K)
      Want += Val[K] * X[ColInd[K]];
    EXPECT(Y[R] == Want, "y[%d] = %g, host %g", R, Y[R], Want);
  }
  SPARSE_CHECK(hipsparseDestroyMatDescr(Desc));
  SPARSE_CHECK(hipsparseDestroy(H));
  return 0;
}
