/* Written by faultlens: Check's test API as faultlens's C model runs one
   test case (a TCase). The C model reads this header in place of <check.h>
   (it is included first and takes Check's include guard), so a test's
   assertions become calls of plain C functions: a failing one prints where
   it failed, as Check logs it, and ends the run with status 1, which is the
   expectation a diagnosis explains. The native build still uses the real
   Check. */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK_ATTRIBUTE_UNUSED __attribute__((unused))
#define CK_EXPORT
#define CK_DLL_EXP

typedef void (*SFun)(void);
typedef void (*TFun)(int);
typedef struct TTest {
    const char *name;
    TFun fn;
    const char *file;
    int line;
} TTest;
typedef struct Suite Suite;
typedef struct TCase TCase;
typedef struct SRunner SRunner;

enum print_output { CK_SILENT, CK_MINIMAL, CK_NORMAL, CK_VERBOSE, CK_ENV, CK_SUBUNIT, CK_LAST };
enum fork_status { CK_FORK_GETENV, CK_FORK, CK_NOFORK };

Suite *suite_create(const char *name);
TCase *tcase_create(const char *name);
void suite_add_tcase(Suite *s, TCase *tc);
void faultlens_check_add_test(TCase *tc, const TTest *t, int start, int end);
void tcase_add_checked_fixture(TCase *tc, SFun setup, SFun teardown);
void tcase_add_unchecked_fixture(TCase *tc, SFun setup, SFun teardown);
void tcase_set_timeout(TCase *tc, double timeout);
SRunner *srunner_create(Suite *s);
void srunner_add_suite(SRunner *sr, Suite *s);
void srunner_run_all(SRunner *sr, enum print_output mode);
void srunner_run(SRunner *sr, const char *sname, const char *tcname, enum print_output mode);
int srunner_ntests_failed(SRunner *sr);
int srunner_ntests_run(SRunner *sr);
void srunner_free(SRunner *sr);
void srunner_set_fork_status(SRunner *sr, enum fork_status fstat);
void srunner_set_log(SRunner *sr, const char *fname);
void srunner_set_xml(SRunner *sr, const char *fname);
void srunner_set_tap(SRunner *sr, const char *fname);

void faultlens_check_fail(const char *file, int line, const char *message);
void faultlens_check_true(int holds, const char *file, int line, const char *message);
void faultlens_check_signed(int op, intmax_t x, intmax_t y, const char *file, int line,
                            const char *expression);
void faultlens_check_unsigned(int op, uintmax_t x, uintmax_t y, const char *file, int line,
                              const char *expression);
void faultlens_check_strings(int op, const char *x, const char *y, const char *file, int line,
                             const char *expression);
void faultlens_check_pointers(int op, const void *x, const void *y, const char *file, int line,
                              const char *expression);
void faultlens_check_memory(int op, const void *x, const void *y, size_t size, const char *file,
                            int line, const char *expression);
void faultlens_check_doubles(int op, double x, double y, double tolerance, const char *file,
                             int line, const char *expression);

/* Comparison codes of the assertions. */
#define FAULTLENS_EQ 0
#define FAULTLENS_NE 1
#define FAULTLENS_LT 2
#define FAULTLENS_LE 3
#define FAULTLENS_GT 4
#define FAULTLENS_GE 5

#define START_TEST(name)                                                        \
    static void name##_fn(int _i CK_ATTRIBUTE_UNUSED);                          \
    static const TTest name##_ttest = {#name, name##_fn, __FILE__, __LINE__};   \
    static const TTest *name = &name##_ttest;                                   \
    static void name##_fn(int _i CK_ATTRIBUTE_UNUSED)
#define END_TEST

#define tcase_add_test(tc, tf) faultlens_check_add_test(tc, tf, 0, 1)
#define tcase_add_loop_test(tc, tf, s, e) faultlens_check_add_test(tc, tf, s, e)

#define ck_assert(expr) faultlens_check_true((expr) != 0, __FILE__, __LINE__, "Assertion '" #expr "' failed")
#define ck_assert_msg(expr, ...) faultlens_check_true((expr) != 0, __FILE__, __LINE__, "Assertion '" #expr "' failed")
#define fail_unless(expr, ...) faultlens_check_true((expr) != 0, __FILE__, __LINE__, "Assertion '" #expr "' failed")
#define fail_if(expr, ...) faultlens_check_true((expr) == 0, __FILE__, __LINE__, "Failure '" #expr "' occurred")
#define ck_abort() faultlens_check_fail(__FILE__, __LINE__, "Failed")
#define ck_abort_msg(...) faultlens_check_fail(__FILE__, __LINE__, #__VA_ARGS__)
#define fail(...) faultlens_check_fail(__FILE__, __LINE__, #__VA_ARGS__)

#define FAULTLENS_SIGNED(op, text, X, Y) \
    faultlens_check_signed(op, (intmax_t)(X), (intmax_t)(Y), __FILE__, __LINE__, #X " " text " " #Y)
#define ck_assert_int_eq(X, Y) FAULTLENS_SIGNED(FAULTLENS_EQ, "==", X, Y)
#define ck_assert_int_ne(X, Y) FAULTLENS_SIGNED(FAULTLENS_NE, "!=", X, Y)
#define ck_assert_int_lt(X, Y) FAULTLENS_SIGNED(FAULTLENS_LT, "<", X, Y)
#define ck_assert_int_le(X, Y) FAULTLENS_SIGNED(FAULTLENS_LE, "<=", X, Y)
#define ck_assert_int_gt(X, Y) FAULTLENS_SIGNED(FAULTLENS_GT, ">", X, Y)
#define ck_assert_int_ge(X, Y) FAULTLENS_SIGNED(FAULTLENS_GE, ">=", X, Y)
#define FAULTLENS_UNSIGNED(op, text, X, Y) \
    faultlens_check_unsigned(op, (uintmax_t)(X), (uintmax_t)(Y), __FILE__, __LINE__, #X " " text " " #Y)
#define ck_assert_uint_eq(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_EQ, "==", X, Y)
#define ck_assert_uint_ne(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_NE, "!=", X, Y)
#define ck_assert_uint_lt(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_LT, "<", X, Y)
#define ck_assert_uint_le(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_LE, "<=", X, Y)
#define ck_assert_uint_gt(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_GT, ">", X, Y)
#define ck_assert_uint_ge(X, Y) FAULTLENS_UNSIGNED(FAULTLENS_GE, ">=", X, Y)
#define FAULTLENS_STRINGS(op, text, X, Y) \
    faultlens_check_strings(op, (const char *)(X), (const char *)(Y), __FILE__, __LINE__, #X " " text " " #Y)
#define ck_assert_str_eq(X, Y) FAULTLENS_STRINGS(FAULTLENS_EQ, "==", X, Y)
#define ck_assert_str_ne(X, Y) FAULTLENS_STRINGS(FAULTLENS_NE, "!=", X, Y)
#define ck_assert_str_lt(X, Y) FAULTLENS_STRINGS(FAULTLENS_LT, "<", X, Y)
#define ck_assert_str_le(X, Y) FAULTLENS_STRINGS(FAULTLENS_LE, "<=", X, Y)
#define ck_assert_str_gt(X, Y) FAULTLENS_STRINGS(FAULTLENS_GT, ">", X, Y)
#define ck_assert_str_ge(X, Y) FAULTLENS_STRINGS(FAULTLENS_GE, ">=", X, Y)
#define FAULTLENS_POINTERS(op, text, X, Y) \
    faultlens_check_pointers(op, (const void *)(X), (const void *)(Y), __FILE__, __LINE__, #X " " text " " #Y)
#define ck_assert_ptr_eq(X, Y) FAULTLENS_POINTERS(FAULTLENS_EQ, "==", X, Y)
#define ck_assert_ptr_ne(X, Y) FAULTLENS_POINTERS(FAULTLENS_NE, "!=", X, Y)
#define ck_assert_ptr_null(X) FAULTLENS_POINTERS(FAULTLENS_EQ, "==", X, NULL)
#define ck_assert_ptr_nonnull(X) FAULTLENS_POINTERS(FAULTLENS_NE, "!=", X, NULL)
#define ck_assert_mem_eq(X, Y, L) \
    faultlens_check_memory(FAULTLENS_EQ, X, Y, L, __FILE__, __LINE__, #X " == " #Y)
#define ck_assert_mem_ne(X, Y, L) \
    faultlens_check_memory(FAULTLENS_NE, X, Y, L, __FILE__, __LINE__, #X " != " #Y)
#define ck_assert_double_eq_tol(X, Y, T) \
    faultlens_check_doubles(FAULTLENS_EQ, X, Y, T, __FILE__, __LINE__, #X " == " #Y)
#define ck_assert_double_ne_tol(X, Y, T) \
    faultlens_check_doubles(FAULTLENS_NE, X, Y, T, __FILE__, __LINE__, #X " != " #Y)
#define ck_assert_double_eq(X, Y) faultlens_check_doubles(FAULTLENS_EQ, X, Y, 0.0, __FILE__, __LINE__, #X " == " #Y)
#define ck_assert_double_ne(X, Y) faultlens_check_doubles(FAULTLENS_NE, X, Y, 0.0, __FILE__, __LINE__, #X " != " #Y)

#endif
