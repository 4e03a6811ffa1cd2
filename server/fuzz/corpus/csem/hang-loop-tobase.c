# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long unsigned int size_t;
# 40 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h" 3 4
typedef __builtin_va_list __gnuc_va_list;
# 52 "/usr/include/stdio.h" 3 4
typedef __gnuc_va_list va_list;
# 63 "/usr/include/stdio.h" 3 4
typedef __off_t off_t;
# 178 "/usr/include/stdio.h" 3 4
extern int fclose (FILE *__stream);
# 188 "/usr/include/stdio.h" 3 4
extern FILE *tmpfile (void)
  __attribute__ ((__malloc__)) __attribute__ ((__malloc__ (fclose, 1))) ;
# 239 "/usr/include/stdio.h" 3 4
extern int fflush_unlocked (FILE *__stream);
# 293 "/usr/include/stdio.h" 3 4
extern FILE *fdopen (int __fd, const char *__modes) __attribute__ ((__nothrow__ , __leaf__))
  __attribute__ ((__malloc__)) __attribute__ ((__malloc__ (fclose, 1))) ;
# 538 "/usr/include/stdio.h" 3 4
extern int fgetc_unlocked (FILE *__stream);
# 885 "/usr/include/stdio.h" 3 4
extern int __uflow (FILE *);
extern int __overflow (FILE *, int);
# 329 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef int wchar_t;
# 10 "/usr/include/x86_64-linux-gnu/bits/types/time_t.h" 3 4
typedef __time_t time_t;
# 5 "/usr/include/x86_64-linux-gnu/bits/types/sigset_t.h" 2 3 4

typedef __sigset_t sigset_t;
# 31 "/usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h" 3 4
};
# 53 "/usr/include/x86_64-linux-gnu/bits/struct_mutex.h" 3 4
};
# 55 "/usr/include/x86_64-linux-gnu/bits/struct_rwlock.h" 3 4
};
# 695 "/usr/include/stdlib.h" 3 4
extern char *mktemp (char *__template) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1)));
# 708 "/usr/include/stdlib.h" 3 4
extern int mkstemp (char *__template) __attribute__ ((__nonnull__ (1))) ;
# 730 "/usr/include/stdlib.h" 3 4
extern int mkstemps (char *__template, int __suffixlen) __attribute__ ((__nonnull__ (1))) ;
# 751 "/usr/include/stdlib.h" 3 4
extern char *mkdtemp (char *__template) __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1))) ;
# 804 "/usr/include/stdlib.h" 3 4
extern int system (const char *__command) ;
# 1026 "/usr/include/stdlib.h" 3 4
extern int getloadavg (double __loadavg[], int __nelem)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__nonnull__ (1)));
# 8 "hang-loop/tobase.c"
static const char digit_chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";

static int parse_unsigned(const char *text, unsigned long *value)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return 0;
    *value = strtoul(text, &end, 10);
    return *end == '\0';
}

static unsigned count_digits(unsigned long n, unsigned long base)
{
    unsigned digits = 1;
    while (n >= base) {
        n /= base;
        digits++;
    }
    return digits;
}

int main(int argc, char **argv)
{
    unsigned long n, base, width = 0;
    char out[64 + 1];

    if (argc < 3 || argc > 4) {
        fprintf(
# 37 "hang-loop/tobase.c" 3 4
               stderr
# 37 "hang-loop/tobase.c"
                     , "usage: tobase N BASE [WIDTH]\n");
        return 2;
    }
    if (!parse_unsigned(argv[1], &n) || !parse_unsigned(argv[2], &base) ||
        (argc == 4 && !parse_unsigned(argv[3], &width))) {
        fprintf(
# 42 "hang-loop/tobase.c" 3 4
               stderr
# 42 "hang-loop/tobase.c"
                     , "tobase: arguments must be non-negative integers\n");
        return 2;
    }
    if (base < 1 || base > 36) {
        fprintf(
# 46 "hang-loop/tobase.c" 3 4
               stderr
# 46 "hang-loop/tobase.c"
                     , "tobase: base must be between 2 and 36\n");
        return 2;
    }
    if (width > 64) {
        fprintf(
# 50 "hang-loop/tobase.c" 3 4
               stderr
# 50 "hang-loop/tobase.c"
                     , "tobase: width must be at most %d\n", 64);
        return 2;
    }

    unsigned len = count_digits(n, base);
    if (len < width)
        len = (unsigned)width;
    out[len] = '\0';
    for (unsigned i = len; i > 0; i--) {
        out[i - 1] = digit_chars[n % base];
        n /= base;
    }
    puts(out);
    return 0;
}
