// A C++ program: a global object constructed before main and destroyed
// after it, a function-local static, new/delete, a virtual call, a template.
#include <gpuintrin.h>
#include <stdio.h>

struct Tracer {
  const char *Name;
  explicit Tracer(const char *N) : Name(N) { printf("construct %s\n", Name); }
  ~Tracer() { printf("destroy %s\n", Name); }
};
static Tracer Global("global");

struct Shape {
  virtual ~Shape() = default;
  virtual int area() const = 0;
};
struct Square : Shape {
  int Side;
  explicit Square(int S) : Side(S) {}
  int area() const override { return Side * Side; }
};

static int &counter() {
  static int Count = 100; // initialised once, by whichever lane comes first
  return Count;
}

template <typename T> T twice(T V) { return V + V; }

int main() {
  __scoped_atomic_fetch_add(&counter(), 1, __ATOMIC_RELAXED,
                            __MEMORY_SCOPE_DEVICE);
  if (__gpu_thread_id_x() != 0)
    return 0;
  int *P = new int[4];
  for (int I = 0; I < 4; ++I)
    P[I] = twice(I);
  Shape *S = new Square(P[3]);
  // One wave: all 64 lanes counted before lane 0 gets here.
  printf("area %d, twice %g, count %d\n", S->area(), twice(1.25), counter());
  delete S;
  delete[] P;
  return 0;
}
