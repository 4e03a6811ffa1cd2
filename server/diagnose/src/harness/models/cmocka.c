/* Written by faultlens: the runner and assertions of its CMocka model (see
   cmocka.h beside it). The runner runs the test case named by
   FAULTLENS_CMOCKA_TEST, as faultlens's runtime selects it in the native
   build, with the group's and the case's fixtures around it. */
#include "cmocka.h"

#include <string.h>

int faultlens_cmocka_run(const struct CMUnitTest *tests, size_t count,
                         CMFixtureFunction group_setup, CMFixtureFunction group_teardown)
{
    const char *only = getenv("FAULTLENS_CMOCKA_TEST");
    void *group_state = NULL;
    if (group_setup != NULL && group_setup(&group_state) != 0) {
        fprintf(stderr, "[  ERROR   ] --- the group's setup failed\n");
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        const struct CMUnitTest *t = &tests[i];
        if (only != NULL && strcmp(only, t->name) != 0)
            continue;
        /* The group's state when its setup made one, as CMocka does. */
        void *state = group_state != NULL ? group_state : t->initial_state;
        printf("[ RUN      ] %s\n", t->name);
        if (t->setup_func != NULL && t->setup_func(&state) != 0) {
            fprintf(stderr, "[  ERROR   ] %s: the test's setup failed\n", t->name);
            exit(1);
        }
        t->test_func(&state);
        if (t->teardown_func != NULL && t->teardown_func(&state) != 0) {
            fprintf(stderr, "[  ERROR   ] %s: the test's teardown failed\n", t->name);
            exit(1);
        }
        printf("[       OK ] %s\n", t->name);
    }
    if (group_teardown != NULL && group_teardown(&group_state) != 0) {
        fprintf(stderr, "[  ERROR   ] --- the group's teardown failed\n");
        return 1;
    }
    return 0;
}

void faultlens_cmocka_fail(const char *message, const char *file, int line)
{
    fprintf(stderr, "[  ERROR   ] --- %s\n[   LINE   ] --- %s:%d: error: Failure!\n", message,
            file, line);
    exit(1);
}

void faultlens_cmocka_true(int holds, const char *message, const char *file, int line)
{
    if (!holds)
        faultlens_cmocka_fail(message, file, line);
}

void faultlens_cmocka_integers(int equal, LargestIntegralType a, LargestIntegralType b,
                               const char *file, int line)
{
    if ((a == b) != equal) {
        fprintf(stderr, "[  ERROR   ] --- %lu %s %lu\n", (unsigned long)a, equal ? "!=" : "==",
                (unsigned long)b);
        faultlens_cmocka_fail("the integers compare wrong", file, line);
    }
}

void faultlens_cmocka_strings(int equal, const char *a, const char *b, const char *file,
                              int line)
{
    if ((strcmp(a, b) == 0) != equal) {
        fprintf(stderr, "[  ERROR   ] --- \"%s\" %s \"%s\"\n", a, equal ? "!=" : "==", b);
        faultlens_cmocka_fail("the strings compare wrong", file, line);
    }
}

void faultlens_cmocka_memory(int equal, const void *a, const void *b, size_t size,
                             const char *file, int line)
{
    const unsigned char *x = a;
    const unsigned char *y = b;
    int same = 1;
    for (size_t i = 0; i < size; i++) {
        if (x[i] != y[i]) {
            same = 0;
            break;
        }
    }
    if (same != equal)
        faultlens_cmocka_fail("the memory blocks compare wrong", file, line);
}

void faultlens_cmocka_range(int inside, LargestIntegralType value, LargestIntegralType low,
                            LargestIntegralType high, const char *file, int line)
{
    if ((value >= low && value <= high) != inside)
        faultlens_cmocka_fail("the value is on the wrong side of the range", file, line);
}

void faultlens_cmocka_set(int inside, LargestIntegralType value,
                          const LargestIntegralType *values, size_t count, const char *file,
                          int line)
{
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        if (values[i] == value)
            found = 1;
    }
    if (found != inside)
        faultlens_cmocka_fail("the value is on the wrong side of the set", file, line);
}

void faultlens_cmocka_skip(void)
{
    printf("[  SKIPPED ]\n");
    exit(0);
}
