/* mid: print the middle value of three integers given as arguments. */
#include <stdio.h>
#include <stdlib.h>

/* Parses a whole argument as a decimal integer; returns 0 on junk. */
static int parse_number(const char *text, long *value)
{
    char *end;
    *value = strtol(text, &end, 10);
    if (end == text || *end != '\0')
        return 0;
    return 1;
}

static long middle(long a, long b, long c)
{
    if (a > b) {
        if (b > c)
            return b;
        if (a > c)
            return c;
        return c;
    }
    if (a > c)
        return a;
    if (b > c)
        return c;
    return b;
}

int main(int argc, char **argv)
{
    long n[3];
    if (argc != 4) {
        fprintf(stderr, "usage: mid A B C\n");
        return 2;
    }
    for (int i = 0; i < 3; i++) {
        if (!parse_number(argv[i + 1], &n[i])) {
            fprintf(stderr, "mid: not a number: %s\n", argv[i + 1]);
            return 2;
        }
    }
    printf("%ld\n", middle(n[0], n[1], n[2]));
    return 0;
}
