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
# 9 "autodetect-io/charstack.h"
struct opener {
    char bracket;
    int line;
    int column;
};

struct charstack {
    struct opener items[64];
    size_t size;
};

void cs_init(struct charstack *st);

int cs_push(struct charstack *st, struct opener item);
int cs_pop(struct charstack *st, struct opener *item);
# 6 "autodetect-io/brackets.c" 2

static char opening_for(char closing)
{
    switch (closing) {
    case ')':
        return '(';
    case ']':
        return '[';
    default:
        return '{';
    }
}

int main(void)
{
    struct charstack st;
    struct opener open;
    int line = 1, column = 0, matched = 0;
    int c;

    cs_init(&st);
    while ((c = getchar()) != 
# 27 "autodetect-io/brackets.c" 3 4
                             (-1)
# 27 "autodetect-io/brackets.c"
                                ) {
        column++;
        if (c == '\n') {
            line++;
            column = 0;
        } else if (c == '(' || c == '[' || c == '{') {
            struct opener item = {(char)c, line, column};
            if (!cs_push(&st, item)) {
                printf("error: line %d column %d: nesting deeper than %d\n", line, column,
                       64);
                return 0;
            }
        } else if (c == ')' || c == ']' || c == '}') {
            if (!cs_pop(&st, &open) || open.bracket != opening_for((char)c)) {
                printf("error: line %d column %d: unexpected '%c'\n", line, column, c);
                return 0;
            }
            matched++;
        }
    }
    if (st.size > 1) {
        cs_pop(&st, &open);
        printf("error: line %d column %d: '%c' is never closed\n", open.line, open.column,
               open.bracket);
        return 0;
    }
    printf("ok: %d pairs\n", matched);
    return 0;
}
