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
# 5 "multi-file-helper/numparse.h"
int parse_uint(const char *text, unsigned *out);
# 145 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long int ptrdiff_t;
# 329 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef int wchar_t;
# 424 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef struct {
  long long __max_align_ll __attribute__((__aligned__(__alignof__(long long))));
  long double __max_align_ld __attribute__((__aligned__(__alignof__(long double))));
# 435 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
} max_align_t;
# 13 "multi-file-helper/roman.h"
int to_roman(unsigned n, char *out, size_t size);

unsigned from_roman(const char *s);
# 8 "multi-file-helper/main.c" 2

static int convert(const char *arg)
{
    unsigned n;
    char numeral[16];
    if (arg[0] >= '0' && arg[0] <= '9') {
        if (!parse_uint(arg, &n) || to_roman(n, numeral, sizeof numeral) != 0) {
            fprintf(
# 15 "multi-file-helper/main.c" 3 4
                   stderr
# 15 "multi-file-helper/main.c"
                         , "roman: %s is not a number from %d to %d\n", arg, 1, 3999);
            return 0;
        }
        puts(numeral);
        return 1;
    }
    n = from_roman(arg);
    if (n == 0) {
        fprintf(
# 23 "multi-file-helper/main.c" 3 4
               stderr
# 23 "multi-file-helper/main.c"
                     , "roman: %s is not a Roman numeral\n", arg);
        return 0;
    }
    printf("%u\n", n);
    return 1;
}

int main(int argc, char **argv)
{
    int status = 0;
    if (argc < 2) {
        fprintf(
# 34 "multi-file-helper/main.c" 3 4
               stderr
# 34 "multi-file-helper/main.c"
                     , "usage: roman NUMBER|NUMERAL...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        if (!convert(argv[i]))
            status = 1;
    return status;
}
