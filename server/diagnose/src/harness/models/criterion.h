/* Written by faultlens: Criterion's test API as faultlens's C model runs one
   test. The C model reads this header in place of <criterion/criterion.h>
   (it is included first and takes Criterion's include guard): Test() and
   TestSuite() define a function and its options under names the runner
   faultlens writes for the executable (criterion.c beside this file) calls,
   and a test's assertions become calls of plain C functions. A failing
   cr_assert prints where it failed and ends the run with status 1; a failing
   cr_expect lets the test go on and fails it at its end. The native build
   still uses the real Criterion. */
#ifndef CRITERION_H_
#define CRITERION_H_

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct faultlens_criterion_options {
    void (*init)(void);
    void (*fini)(void);
    int exit_code;
    int signal;
    int disabled;
    const char *description;
    double timeout;
};

int faultlens_criterion_run(const struct faultlens_criterion_options *suite,
                            const struct faultlens_criterion_options *test, void (*body)(void));
void faultlens_criterion_check(int holds, int fatal, const char *message, const char *file,
                               int line);
int faultlens_criterion_strcmp(const char *a, const char *b);
int faultlens_criterion_memcmp(const void *a, const void *b, size_t size);
int faultlens_criterion_close(double a, double b, double epsilon);
void faultlens_criterion_skip(void);

#define TestSuite(suite, ...) \
    const struct faultlens_criterion_options faultlens_criterion_suite_##suite = {.exit_code = 0, __VA_ARGS__}
#define Test(suite, name, ...)                                                              \
    void faultlens_criterion_test_##suite##__##name(void);                                  \
    const struct faultlens_criterion_options faultlens_criterion_case_##suite##__##name = { \
        .exit_code = 0, __VA_ARGS__};                                                       \
    void faultlens_criterion_test_##suite##__##name(void)

#define FAULTLENS_CR(fatal, holds, text) faultlens_criterion_check((holds) != 0, fatal, text, __FILE__, __LINE__)
#define cr_assert(c, ...) FAULTLENS_CR(1, c, "The expression " #c " is false.")
#define cr_expect(c, ...) FAULTLENS_CR(0, c, "The expression " #c " is false.")
#define cr_assert_not(c, ...) FAULTLENS_CR(1, !(c), "The expression " #c " is true.")
#define cr_expect_not(c, ...) FAULTLENS_CR(0, !(c), "The expression " #c " is true.")
#define cr_assert_eq(a, b, ...) FAULTLENS_CR(1, (a) == (b), "The expression (" #a ") == (" #b ") is false.")
#define cr_expect_eq(a, b, ...) FAULTLENS_CR(0, (a) == (b), "The expression (" #a ") == (" #b ") is false.")
#define cr_assert_neq(a, b, ...) FAULTLENS_CR(1, (a) != (b), "The expression (" #a ") != (" #b ") is false.")
#define cr_expect_neq(a, b, ...) FAULTLENS_CR(0, (a) != (b), "The expression (" #a ") != (" #b ") is false.")
#define cr_assert_lt(a, b, ...) FAULTLENS_CR(1, (a) < (b), "The expression (" #a ") < (" #b ") is false.")
#define cr_expect_lt(a, b, ...) FAULTLENS_CR(0, (a) < (b), "The expression (" #a ") < (" #b ") is false.")
#define cr_assert_leq(a, b, ...) FAULTLENS_CR(1, (a) <= (b), "The expression (" #a ") <= (" #b ") is false.")
#define cr_expect_leq(a, b, ...) FAULTLENS_CR(0, (a) <= (b), "The expression (" #a ") <= (" #b ") is false.")
#define cr_assert_gt(a, b, ...) FAULTLENS_CR(1, (a) > (b), "The expression (" #a ") > (" #b ") is false.")
#define cr_expect_gt(a, b, ...) FAULTLENS_CR(0, (a) > (b), "The expression (" #a ") > (" #b ") is false.")
#define cr_assert_geq(a, b, ...) FAULTLENS_CR(1, (a) >= (b), "The expression (" #a ") >= (" #b ") is false.")
#define cr_expect_geq(a, b, ...) FAULTLENS_CR(0, (a) >= (b), "The expression (" #a ") >= (" #b ") is false.")
#define cr_assert_null(p, ...) FAULTLENS_CR(1, (p) == NULL, #p " is not null.")
#define cr_expect_null(p, ...) FAULTLENS_CR(0, (p) == NULL, #p " is not null.")
#define cr_assert_not_null(p, ...) FAULTLENS_CR(1, (p) != NULL, #p " is null.")
#define cr_expect_not_null(p, ...) FAULTLENS_CR(0, (p) != NULL, #p " is null.")
#define cr_assert_str_eq(a, b, ...) FAULTLENS_CR(1, faultlens_criterion_strcmp(a, b) == 0, "The strings " #a " and " #b " differ.")
#define cr_expect_str_eq(a, b, ...) FAULTLENS_CR(0, faultlens_criterion_strcmp(a, b) == 0, "The strings " #a " and " #b " differ.")
#define cr_assert_str_neq(a, b, ...) FAULTLENS_CR(1, faultlens_criterion_strcmp(a, b) != 0, "The strings " #a " and " #b " are equal.")
#define cr_expect_str_neq(a, b, ...) FAULTLENS_CR(0, faultlens_criterion_strcmp(a, b) != 0, "The strings " #a " and " #b " are equal.")
#define cr_assert_str_empty(s, ...) FAULTLENS_CR(1, (s)[0] == '\0', "The string " #s " is not empty.")
#define cr_expect_str_empty(s, ...) FAULTLENS_CR(0, (s)[0] == '\0', "The string " #s " is not empty.")
#define cr_assert_str_not_empty(s, ...) FAULTLENS_CR(1, (s)[0] != '\0', "The string " #s " is empty.")
#define cr_expect_str_not_empty(s, ...) FAULTLENS_CR(0, (s)[0] != '\0', "The string " #s " is empty.")
#define cr_assert_arr_eq(a, b, size, ...) FAULTLENS_CR(1, faultlens_criterion_memcmp(a, b, size) == 0, "The arrays " #a " and " #b " differ.")
#define cr_expect_arr_eq(a, b, size, ...) FAULTLENS_CR(0, faultlens_criterion_memcmp(a, b, size) == 0, "The arrays " #a " and " #b " differ.")
#define cr_assert_arr_neq(a, b, size, ...) FAULTLENS_CR(1, faultlens_criterion_memcmp(a, b, size) != 0, "The arrays " #a " and " #b " are equal.")
#define cr_expect_arr_neq(a, b, size, ...) FAULTLENS_CR(0, faultlens_criterion_memcmp(a, b, size) != 0, "The arrays " #a " and " #b " are equal.")
#define cr_assert_float_eq(a, b, epsilon, ...) FAULTLENS_CR(1, faultlens_criterion_close(a, b, epsilon), "The numbers " #a " and " #b " are not within " #epsilon ".")
#define cr_expect_float_eq(a, b, epsilon, ...) FAULTLENS_CR(0, faultlens_criterion_close(a, b, epsilon), "The numbers " #a " and " #b " are not within " #epsilon ".")
#define cr_assert_float_neq(a, b, epsilon, ...) FAULTLENS_CR(1, !faultlens_criterion_close(a, b, epsilon), "The numbers " #a " and " #b " are within " #epsilon ".")
#define cr_expect_float_neq(a, b, epsilon, ...) FAULTLENS_CR(0, !faultlens_criterion_close(a, b, epsilon), "The numbers " #a " and " #b " are within " #epsilon ".")
#define cr_assert_fail(...) FAULTLENS_CR(1, 0, "The assertion failed.")
#define cr_expect_fail(...) FAULTLENS_CR(0, 0, "The expectation failed.")
#define cr_fatal(...) FAULTLENS_CR(1, 0, "The test failed.")
#define cr_fail(...) FAULTLENS_CR(0, 0, "The test failed.")
#define cr_skip_test(...) faultlens_criterion_skip()
#define cr_log_info(...) ((void)0)
#define cr_log_warn(...) ((void)0)
#define cr_log_error(...) ((void)0)

#endif
