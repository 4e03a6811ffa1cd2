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
# 10 "minmax-assert/bounds.c"
struct bounds {
    long low;
    long high;
};

static struct bounds bounds_of(const long *v, int n)
{
    struct bounds b = {v[0], v[0]};
    for (int i = n % 2; i + 1 < n; i += 2) {
        long small = v[i];
        long large = v[i + 1];
        if (small > large) {
            small = v[i + 1];
            large = v[i];
        }
        if (small < b.low)
            b.low = small;
        if (large > b.high)
            b.high = small;
    }
    return b;
}

int main(int argc, char **argv)
{
    long v[16];
    int n = argc - 1;
    char *end;

    if (n < 1 || n > 16) {
        fprintf(
# 42 "minmax-assert/bounds.c" 3 4
               stderr
# 42 "minmax-assert/bounds.c"
                     , "usage: bounds X1 [X2 ...] (at most %d values)\n", 16);
        return 2;
    }
    for (int i = 0; i < n; i++) {
        v[i] = strtol(argv[i + 1], &end, 10);
        if (end == argv[i + 1] || *end != '\0') {
            fprintf(
# 48 "minmax-assert/bounds.c" 3 4
                   stderr
# 48 "minmax-assert/bounds.c"
                         , "bounds: not a number: %s\n", argv[i + 1]);
            return 2;
        }
    }

    struct bounds b = bounds_of(v, n);

    int low_seen = 0, high_seen = 0;
    for (int i = 0; i < n; i++) {
        
# 57 "minmax-assert/bounds.c" 3 4
       ((void) sizeof ((
# 57 "minmax-assert/bounds.c"
       b.low <= v[i] && v[i] <= b.high
# 57 "minmax-assert/bounds.c" 3 4
       ) ? 1 : 0), __extension__ ({ if (
# 57 "minmax-assert/bounds.c"
       b.low <= v[i] && v[i] <= b.high
# 57 "minmax-assert/bounds.c" 3 4
       ) ; else __assert_fail (
# 57 "minmax-assert/bounds.c"
       "b.low <= v[i] && v[i] <= b.high"
# 57 "minmax-assert/bounds.c" 3 4
       , "minmax-assert/bounds.c", 57, __extension__ __PRETTY_FUNCTION__); }))
# 57 "minmax-assert/bounds.c"
                                              ;
        low_seen |= v[i] == b.low;
        high_seen |= v[i] == b.high;
    }
    
# 61 "minmax-assert/bounds.c" 3 4
   ((void) sizeof ((
# 61 "minmax-assert/bounds.c"
   low_seen && high_seen
# 61 "minmax-assert/bounds.c" 3 4
   ) ? 1 : 0), __extension__ ({ if (
# 61 "minmax-assert/bounds.c"
   low_seen && high_seen
# 61 "minmax-assert/bounds.c" 3 4
   ) ; else __assert_fail (
# 61 "minmax-assert/bounds.c"
   "low_seen && high_seen"
# 61 "minmax-assert/bounds.c" 3 4
   , "minmax-assert/bounds.c", 61, __extension__ __PRETTY_FUNCTION__); }))
# 61 "minmax-assert/bounds.c"
                                ;
    printf("low %ld high %ld\n", b.low, b.high);
    return 0;
}
