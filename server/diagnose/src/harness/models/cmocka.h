/* Written by faultlens: CMocka's test API as faultlens's C model runs one
   test case. The C model reads this header in place of <cmocka.h> (it is
   included first and takes CMocka's include guard), so a test's assertions
   become calls of plain C functions: a failing one prints where it failed
   and ends the run with status 1, which is the expectation a diagnosis
   explains. The native build still uses the real CMocka. */
#ifndef CMOCKA_H_
#define CMOCKA_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uintmax_t LargestIntegralType;
typedef void (*CMUnitTestFunction)(void **state);
typedef int (*CMFixtureFunction)(void **state);

struct CMUnitTest {
    const char *name;
    CMUnitTestFunction test_func;
    CMFixtureFunction setup_func;
    CMFixtureFunction teardown_func;
    void *initial_state;
};

int faultlens_cmocka_run(const struct CMUnitTest *tests, size_t count,
                         CMFixtureFunction group_setup, CMFixtureFunction group_teardown);
void faultlens_cmocka_fail(const char *message, const char *file, int line);
void faultlens_cmocka_true(int holds, const char *message, const char *file, int line);
void faultlens_cmocka_integers(int equal, LargestIntegralType a, LargestIntegralType b,
                               const char *file, int line);
void faultlens_cmocka_strings(int equal, const char *a, const char *b, const char *file,
                              int line);
void faultlens_cmocka_memory(int equal, const void *a, const void *b, size_t size,
                             const char *file, int line);
void faultlens_cmocka_range(int inside, LargestIntegralType value, LargestIntegralType low,
                            LargestIntegralType high, const char *file, int line);
void faultlens_cmocka_set(int inside, LargestIntegralType value,
                          const LargestIntegralType *values, size_t count, const char *file,
                          int line);
void faultlens_cmocka_skip(void);

#define cmocka_unit_test(f) { #f, f, NULL, NULL, NULL }
#define cmocka_unit_test_setup(f, setup) { #f, f, setup, NULL, NULL }
#define cmocka_unit_test_teardown(f, teardown) { #f, f, NULL, teardown, NULL }
#define cmocka_unit_test_setup_teardown(f, setup, teardown) { #f, f, setup, teardown, NULL }
#define cmocka_unit_test_prestate(f, state) { #f, f, NULL, NULL, state }
#define cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, state) \
    { #f, f, setup, teardown, state }
#define cmocka_run_group_tests(tests, group_setup, group_teardown) \
    faultlens_cmocka_run(tests, sizeof(tests) / sizeof((tests)[0]), group_setup, group_teardown)
#define cmocka_run_group_tests_name(name, tests, group_setup, group_teardown) \
    cmocka_run_group_tests(tests, group_setup, group_teardown)

#define assert_true(c) faultlens_cmocka_true((c) != 0, #c, __FILE__, __LINE__)
#define assert_false(c) faultlens_cmocka_true((c) == 0, #c, __FILE__, __LINE__)
#define assert_non_null(p) faultlens_cmocka_true((p) != NULL, #p " is NULL", __FILE__, __LINE__)
#define assert_null(p) faultlens_cmocka_true((p) == NULL, #p " is not NULL", __FILE__, __LINE__)
#define assert_ptr_equal(a, b) \
    faultlens_cmocka_true((const void *)(a) == (const void *)(b), #a " != " #b, __FILE__, __LINE__)
#define assert_ptr_not_equal(a, b) \
    faultlens_cmocka_true((const void *)(a) != (const void *)(b), #a " == " #b, __FILE__, __LINE__)
#define assert_return_code(rc, error) \
    faultlens_cmocka_true((rc) >= 0, #rc " is negative", __FILE__, __LINE__)
#define assert_int_equal(a, b) \
    faultlens_cmocka_integers(1, (LargestIntegralType)(a), (LargestIntegralType)(b), __FILE__, __LINE__)
#define assert_int_not_equal(a, b) \
    faultlens_cmocka_integers(0, (LargestIntegralType)(a), (LargestIntegralType)(b), __FILE__, __LINE__)
#define assert_string_equal(a, b) \
    faultlens_cmocka_strings(1, (const char *)(a), (const char *)(b), __FILE__, __LINE__)
#define assert_string_not_equal(a, b) \
    faultlens_cmocka_strings(0, (const char *)(a), (const char *)(b), __FILE__, __LINE__)
#define assert_memory_equal(a, b, size) \
    faultlens_cmocka_memory(1, (const void *)(a), (const void *)(b), size, __FILE__, __LINE__)
#define assert_memory_not_equal(a, b, size) \
    faultlens_cmocka_memory(0, (const void *)(a), (const void *)(b), size, __FILE__, __LINE__)
#define assert_in_range(value, minimum, maximum)                                          \
    faultlens_cmocka_range(1, (LargestIntegralType)(value), (LargestIntegralType)(minimum), \
                           (LargestIntegralType)(maximum), __FILE__, __LINE__)
#define assert_not_in_range(value, minimum, maximum)                                      \
    faultlens_cmocka_range(0, (LargestIntegralType)(value), (LargestIntegralType)(minimum), \
                           (LargestIntegralType)(maximum), __FILE__, __LINE__)
#define assert_in_set(value, values, count) \
    faultlens_cmocka_set(1, (LargestIntegralType)(value), values, count, __FILE__, __LINE__)
#define assert_not_in_set(value, values, count) \
    faultlens_cmocka_set(0, (LargestIntegralType)(value), values, count, __FILE__, __LINE__)
#define fail() faultlens_cmocka_fail("Failure!", __FILE__, __LINE__)
#define fail_msg(...) faultlens_cmocka_fail(#__VA_ARGS__, __FILE__, __LINE__)
#define skip() faultlens_cmocka_skip()
#define print_message(...) printf(__VA_ARGS__)
#define print_error(...) fprintf(stderr, __VA_ARGS__)
#define test_malloc(size) malloc(size)
#define test_calloc(n, size) calloc(n, size)
#define test_realloc(p, size) realloc(p, size)
#define test_free(p) free(p)

#endif
