/* Written by faultlens: the runner and assertions of its Unity model (see
   unity.h beside it). */
#include "unity.h"

#include <string.h>

static const char *faultlens_unity_only;
static const char *faultlens_unity_test = "";

void UnityBegin(const char *filename)
{
    (void)filename;
}

int UnityEnd(void)
{
    printf("\n-----------------------\nOK\n");
    return 0;
}

int UnityParseOptions(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            faultlens_unity_only = argv[++i];
    }
    return 0;
}

/* Whether `part` occurs in `name` (as strstr says; the C model has none). */
static int faultlens_unity_contains(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (; *name != '\0'; name++) {
        if (strncmp(name, part, n) == 0)
            return 1;
    }
    return n == 0;
}

void faultlens_unity_run(UnityTestFunction test, const char *name, int line)
{
    /* A runner with Unity's options runs the tests whose name holds its
       -n; faultlens's runtime runs the one named FAULTLENS_UNITY_TEST
       where the cases pass through UnityDefaultTestRun (a hand-written
       main). */
    const char *exact = getenv("FAULTLENS_UNITY_TEST");
    if (exact != NULL && strcmp(name, exact) != 0)
        return;
    if (faultlens_unity_only != NULL && !faultlens_unity_contains(name, faultlens_unity_only))
        return;
    faultlens_unity_test = name;
    setUp();
    test();
    tearDown();
    printf("%d:%s:PASS\n", line, name);
}

void faultlens_unity_fail(const char *message, const char *file, int line)
{
    printf("%s:%d:%s:FAIL: %s\n", file, line, faultlens_unity_test, message);
    exit(1);
}

void faultlens_unity_true(int holds, const char *message, const char *file, int line)
{
    if (!holds)
        faultlens_unity_fail(message, file, line);
}

void faultlens_unity_signed(int equal, intmax_t expected, intmax_t actual, const char *file,
                            int line)
{
    if ((expected == actual) != equal) {
        printf("%s:%d:%s:FAIL: Expected %ld Was %ld\n", file, line, faultlens_unity_test,
               (long)expected, (long)actual);
        exit(1);
    }
}

void faultlens_unity_unsigned(int equal, uintmax_t expected, uintmax_t actual, const char *file,
                              int line)
{
    if ((expected == actual) != equal) {
        printf("%s:%d:%s:FAIL: Expected %lu Was %lu\n", file, line, faultlens_unity_test,
               (unsigned long)expected, (unsigned long)actual);
        exit(1);
    }
}

void faultlens_unity_strings(const char *expected, const char *actual, const char *file,
                             int line)
{
    if (expected == NULL || actual == NULL) {
        if (expected != actual)
            faultlens_unity_fail("Expected and actual strings differ", file, line);
        return;
    }
    if (strcmp(expected, actual) != 0)
        faultlens_unity_fail("Expected and actual strings differ", file, line);
}

void faultlens_unity_memory(const void *expected, const void *actual, size_t size,
                            const char *file, int line)
{
    const unsigned char *x = expected;
    const unsigned char *y = actual;
    for (size_t i = 0; i < size; i++) {
        if (x[i] != y[i])
            faultlens_unity_fail("Memory Mismatch", file, line);
    }
}

void faultlens_unity_within(double delta, double expected, double actual, const char *file,
                            int line)
{
    double d = delta < 0 ? -delta : delta;
    if (!(actual <= expected + d && actual >= expected - d))
        faultlens_unity_fail("Values Not Within Delta", file, line);
}

void faultlens_unity_int_within(uintmax_t delta, intmax_t expected, intmax_t actual,
                                const char *file, int line)
{
    /* The distance as Unity measures it: unsigned, so it cannot overflow. */
    uintmax_t d = actual > expected ? (uintmax_t)actual - (uintmax_t)expected
                                    : (uintmax_t)expected - (uintmax_t)actual;
    if (d > delta)
        faultlens_unity_fail("Values Not Within Delta", file, line);
}

void faultlens_unity_ignore(void)
{
    printf("%s:IGNORE\n", faultlens_unity_test);
    exit(0);
}
