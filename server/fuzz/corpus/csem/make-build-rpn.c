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
# 80 "/usr/include/string.h" 3 4
extern int __memcmpeq (const void *__s1, const void *__s2, size_t __n)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1, 2)));
# 107 "/usr/include/string.h" 3 4
extern void *memchr (const void *__s, int __c, size_t __n)
      __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 23 "/usr/include/x86_64-linux-gnu/bits/types/locale_t.h" 2 3 4

typedef __locale_t locale_t;
# 246 "/usr/include/string.h" 3 4
extern char *strchr (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 273 "/usr/include/string.h" 3 4
extern char *strrchr (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 323 "/usr/include/string.h" 3 4
extern char *strpbrk (const char *__s, const char *__accept)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1, 2)));
# 68 "/usr/include/strings.h" 3 4
extern char *index (const char *__s, int __c)
     __attribute__ ((__nothrow__ , __leaf__)) __attribute__ ((__pure__)) __attribute__ ((__nonnull__ (1)));
# 145 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long int ptrdiff_t;
# 424 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef struct {
  long long __max_align_ll __attribute__((__aligned__(__alignof__(long long))));
  long double __max_align_ld __attribute__((__aligned__(__alignof__(long double))));
# 435 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
} max_align_t;
# 9 "make-build/stack.h"
struct stack {
    long items[32];
    size_t size;
};

void stack_init(struct stack *st);

int stack_push(struct stack *st, long value);
int stack_pop(struct stack *st, long *value);
# 11 "make-build/rpn.c" 2

enum outcome { DONE, FAILED, BAD_TOKEN };

static int parse_long(const char *text, long *out)
{
    char *end;
    *out = strtol(text, &end, 10);
    return end != text && *end == '\0';
}

static const char *apply_unary(struct stack *st, const char *op)
{
    long a, b;
    if (stack_pop(st, &a) != 0)
        return "stack underflow";
    if (strcmp(op, "neg") == 0)
        return stack_push(st, -a) == 0 ? 
# 27 "make-build/rpn.c" 3 4
                                        ((void *)0) 
# 27 "make-build/rpn.c"
                                             : "stack overflow";
    if (strcmp(op, "dup") == 0)
        return stack_push(st, a) == 0 && stack_push(st, a) == 0 ? 
# 29 "make-build/rpn.c" 3 4
                                                                 ((void *)0) 
# 29 "make-build/rpn.c"
                                                                      : "stack overflow";

    if (stack_pop(st, &b) != 0)
        return "stack underflow";
    stack_push(st, a);
    stack_push(st, b);
    return 
# 35 "make-build/rpn.c" 3 4
          ((void *)0)
# 35 "make-build/rpn.c"
              ;
}

static const char *apply_binary(struct stack *st, char op)
{
    long left, right, result;
    if (stack_pop(st, &right) != 0 || stack_pop(st, &left) != 0)
        return "stack underflow";
    switch (op) {
    case '+':
        result = left + right;
        break;
    case '-':
        result = right - left;
        break;
    case 'x':
        result = left * right;
        break;
    default:
        if (right == 0)
            return "division by zero";
        result = op == '/' ? left / right : left % right;
        break;
    }
    stack_push(st, result);
    return 
# 61 "make-build/rpn.c" 3 4
          ((void *)0)
# 61 "make-build/rpn.c"
              ;
}

static enum outcome evaluate(int count, char **tokens, long *value)
{
    struct stack st;
    stack_init(&st);
    for (int i = 0; i < count; i++) {
        const char *tok = tokens[i];
        const char *error = 
# 70 "make-build/rpn.c" 3 4
                           ((void *)0)
# 70 "make-build/rpn.c"
                               ;
        long number;
        if (parse_long(tok, &number))
            error = stack_push(&st, number) == 0 ? 
# 73 "make-build/rpn.c" 3 4
                                                  ((void *)0) 
# 73 "make-build/rpn.c"
                                                       : "stack overflow";
        else if (strlen(tok) == 1 && strchr("+-x/%", tok[0]) != 
# 74 "make-build/rpn.c" 3 4
                                                               ((void *)0)
# 74 "make-build/rpn.c"
                                                                   )
            error = apply_binary(&st, tok[0]);
        else if (strcmp(tok, "neg") == 0 || strcmp(tok, "dup") == 0 || strcmp(tok, "swap") == 0)
            error = apply_unary(&st, tok);
        else {
            fprintf(
# 79 "make-build/rpn.c" 3 4
                   stderr
# 79 "make-build/rpn.c"
                         , "rpn: unknown token '%s'\n", tok);
            return BAD_TOKEN;
        }
        if (error != 
# 82 "make-build/rpn.c" 3 4
                    ((void *)0)
# 82 "make-build/rpn.c"
                        ) {
            fprintf(
# 83 "make-build/rpn.c" 3 4
                   stderr
# 83 "make-build/rpn.c"
                         , "rpn: %s at token %d ('%s')\n", error, i + 1, tok);
            return FAILED;
        }
    }
    if (st.size != 1) {
        fprintf(
# 88 "make-build/rpn.c" 3 4
               stderr
# 88 "make-build/rpn.c"
                     , "rpn: expected one result, the stack holds %zu\n", st.size);
        return FAILED;
    }
    stack_pop(&st, value);
    return DONE;
}

int main(int argc, char **argv)
{
    long value;
    switch (evaluate(argc - 1, argv + 1, &value)) {
    case DONE:
        printf("%ld\n", value);
        return 0;
    case FAILED:
        return 1;
    default:
        return 2;
    }
}
