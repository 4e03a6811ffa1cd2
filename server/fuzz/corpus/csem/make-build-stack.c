# 145 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long int ptrdiff_t;
# 214 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef long unsigned int size_t;
# 329 "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h" 3 4
typedef int wchar_t;
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
# 2 "make-build/stack.c" 2

void stack_init(struct stack *st)
{
    st->size = 0;
}

int stack_push(struct stack *st, long value)
{
    if (st->size == 32)
        return -1;
    st->items[st->size++] = value;
    return 0;
}

int stack_pop(struct stack *st, long *value)
{
    if (st->size == 0)
        return -1;
    *value = st->items[--st->size];
    return 0;
}
