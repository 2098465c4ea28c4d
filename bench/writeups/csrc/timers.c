/* timers.c: the calls of examples/timers.hcl, N calls each (argument 1,
 * default 10000000), printed as "name seconds" lines, as the 2005 thread's
 * program timed them; further arguments name the calls to time (all when
 * none). Built by bench/writeups with gcc -O2. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

/* The null function: a call that is not inlined, adding one to its
 * argument, its results summed (as call.direct). */
__attribute__((noinline)) static long null_function(long x) {
	__asm__ volatile("");
	return x + 1;
}

static int argc_;
static char **argv_;

/* want says whether the call name was asked for. */
static int want(const char *name) {
	if (argc_ <= 2)
		return 1;
	for (int i = 2; i < argc_; i++)
		if (strcmp(argv_[i], name) == 0)
			return 1;
	return 0;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define TIME(name, body)                                   \
	do {                                                   \
		if (!want(name))                                   \
			break;                                         \
		long acc = 0;                                      \
		double t0 = now();                                 \
		for (long i = 0; i < n; i++) {                     \
			body;                                          \
		}                                                  \
		double t1 = now();                                 \
		sink = acc;                                        \
		printf("%s %.6f\n", name, t1 - t0);                \
	} while (0)

int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	argc_ = argc;
	argv_ = argv;
	struct timeval tv;
	struct timespec ts;

	TIME("null_function", acc += null_function(i));
	TIME("getpid", acc += getpid());
	TIME("time", acc += time(NULL));
	TIME("gettimeofday", gettimeofday(&tv, NULL); acc += tv.tv_usec);
	/* The raw system call, as clock.gettime makes it: no vDSO. */
	TIME("clock_gettime_syscall", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts); acc += ts.tv_nsec);
	/* What Go's time.Now reads: the real-time and the monotonic clock,
	 * both through the vDSO. */
	TIME("realtime_monotonic", clock_gettime(CLOCK_REALTIME, &ts); acc += ts.tv_nsec;
	     clock_gettime(CLOCK_MONOTONIC, &ts); acc += ts.tv_nsec);
	return 0;
}
