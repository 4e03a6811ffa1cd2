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
# 7 "multi-line-fault/clamp.c"
struct range {
    long lo;
    long hi;
};

static int parse_long(const char *text, long *out)
{
    char *end;
    *out = strtol(text, &end, 10);
    return end != text && *end == '\0';
}

static struct range make_range(long a, long b)
{
    struct range r = {a, b};
    if (r.lo > r.hi) {
        long tmp = r.lo;
        r.hi = tmp;
        r.lo = r.hi;
    }
    return r;
}

int main(int argc, char **argv)
{
    long a, b, x;
    int below = 0, inside = 0, above = 0;

    if (argc < 4) {
        fprintf(
# 37 "multi-line-fault/clamp.c" 3 4
               stderr
# 37 "multi-line-fault/clamp.c"
                     , "usage: clamp LO HI X...\n");
        return 2;
    }
    if (!parse_long(argv[1], &a) || !parse_long(argv[2], &b)) {
        fprintf(
# 41 "multi-line-fault/clamp.c" 3 4
               stderr
# 41 "multi-line-fault/clamp.c"
                     , "clamp: bounds must be integers\n");
        return 2;
    }
    for (int i = 3; i < argc; i++) {
        if (!parse_long(argv[i], &x)) {
            fprintf(
# 46 "multi-line-fault/clamp.c" 3 4
                   stderr
# 46 "multi-line-fault/clamp.c"
                         , "clamp: not a number: %s\n", argv[i]);
            return 2;
        }
    }

    struct range r = make_range(a, b);
    for (int i = 3; i < argc; i++) {
        parse_long(argv[i], &x);
        if (x < r.lo) {
            x = r.lo;
            below++;
        } else if (x > r.hi) {
            x = r.hi;
            above++;
        } else {
            inside++;
        }
        if (i > 3)
            putchar(' ');
        printf("%ld", x);
    }
    printf("\nbelow %d, inside %d, above %d\n", below, inside, above);
    return 0;
}
