/* Written by faultlens: the runner and assertions of its Criterion model (see
   criterion.h beside it). faultlens appends to this file a main() that runs
   the test named by FAULTLENS_CRITERION_TEST ("suite/test", as --filter
   names it in the native run) through faultlens_criterion_run. */
#include "criterion.h"

static int faultlens_criterion_failed;

int faultlens_criterion_run(const struct faultlens_criterion_options *suite,
                            const struct faultlens_criterion_options *test, void (*body)(void))
{
    if (suite != NULL && suite->init != NULL)
        suite->init();
    if (test->init != NULL)
        test->init();
    body();
    if (test->fini != NULL)
        test->fini();
    if (suite != NULL && suite->fini != NULL)
        suite->fini();
    return faultlens_criterion_failed ? 1 : 0;
}

void faultlens_criterion_check(int holds, int fatal, const char *message, const char *file,
                               int line)
{
    if (holds)
        return;
    fprintf(stderr, "[----] %s:%d: Assertion Failed\n[----]   %s\n", file, line, message);
    faultlens_criterion_failed = 1;
    if (fatal)
        exit(1);
}

int faultlens_criterion_strcmp(const char *a, const char *b)
{
    return strcmp(a, b);
}

int faultlens_criterion_memcmp(const void *a, const void *b, size_t size)
{
    const unsigned char *x = a;
    const unsigned char *y = b;
    for (size_t i = 0; i < size; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

int faultlens_criterion_close(double a, double b, double epsilon)
{
    return a <= b + epsilon && a >= b - epsilon;
}

void faultlens_criterion_skip(void)
{
    printf("[SKIP] the test was skipped\n");
    exit(0);
}
