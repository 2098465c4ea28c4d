/* classic.c: the rows of examples/common-operations.hcl that have a C
 * analog, each timed over the spec's count times the scale (argument 1),
 * printed as "instance ns_per_op" lines. Each row's loop is a function of
 * its own, so that its variables stay in registers as the Go op's do.
 * Built by bench/writeups with gcc -O2 -fno-tree-vectorize. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long sink;
static volatile long int_divisor = 7;
static volatile double float_divisor = 7.0;

__attribute__((noinline)) static long add_one(long x) {
	__asm__ volatile("");
	return x + 1;
}

__attribute__((noinline)) static long add_field(const void *self, long x) {
	__asm__ volatile("");
	return x + *(const long *)self;
}

/* A C++ object's layout: a vtable pointer first, then the fields. */
struct vtable {
	long (*add)(const void *, long);
};
struct object {
	const struct vtable *vt;
	long field;
};
static const struct vtable object_vt = {add_field};
static struct object obj = {&object_vt, 1};
static const struct object *volatile objp = &obj;
static long (*volatile add_one_fp)(long) = add_one;
static void *(*volatile memcpy_fp)(void *, const void *, size_t) = memcpy;
static char *src, *dst;

#define LOOP(name, setup, body)                            \
	__attribute__((noinline)) static long name(long n) {   \
		long acc = 0;                                      \
		setup;                                             \
		for (long i = 0; i < n; i++) {                     \
			body;                                          \
		}                                                  \
		return acc;                                        \
	}

LOOP(direct_call, , acc += add_one(i))
/* the code pointer loaded once, as call.func_value's */
LOOP(func_value_call, long (*f)(long) = add_one_fp, acc += f(i))
/* the dynamic type hidden; the vtable read each call */
LOOP(interface_call, const struct object *o = objp, acc += o->vt->add(o, i))
LOOP(integer_division, long d = int_divisor, acc += i / d)
LOOP(float_division_int, double d = float_divisor, acc += (long)((double)i / d))
LOOP(float_division, double d = float_divisor; double x = 0; double f = 0, x++; f += x / d; acc = (long)f)
/* glibc's memcpy, called (not inlined), the copy kept by the barrier */
LOOP(memcpy_16, void *(*mc)(void *, const void *, size_t) = memcpy_fp,
     mc(dst, src, 16); __asm__ volatile("" ::: "memory"))
LOOP(memcpy_1m, void *(*mc)(void *, const void *, size_t) = memcpy_fp,
     mc(dst, src, 1 << 20); __asm__ volatile("" ::: "memory"))
/* as c.malloc: malloc, a one-byte volatile store, free */
LOOP(malloc_16, , char *p = malloc(16); *(volatile char *)p = (char)i; free(p))
LOOP(malloc_16m, , char *p = malloc(16 << 20); *(volatile char *)p = (char)i; free(p))

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double scale = 1;

static void row(const char *name, double count, long (*f)(long)) {
	long n = (long)(count * scale);
	if (n < 1)
		n = 1;
	double t0 = now();
	sink += f(n);
	double t1 = now();
	printf("%s %.4f\n", name, (t1 - t0) * 1e9 / n);
}

int main(int argc, char **argv) {
	if (argc > 1)
		scale = atof(argv[1]);
	src = malloc(1 << 20);
	dst = malloc(1 << 20);
	memset(src, 1, 1 << 20);
	memset(dst, 0, 1 << 20);
	row("direct_call", 1e9, direct_call);
	row("func_value_call", 1e9, func_value_call);
	row("interface_call", 1e9, interface_call);
	row("integer_division", 1e9, integer_division);
	row("float_division_int", 1e8, float_division_int);
	row("float_division", 1e8, float_division);
	row("memcpy/size=16B", 1e8, memcpy_16);
	row("memcpy/size=1MB", 1e4, memcpy_1m);
	row("alloc/size=16B", 1e8, malloc_16);
	row("alloc/size=16MB", 1e5, malloc_16m);
	sink += dst[7];
	return 0;
}
