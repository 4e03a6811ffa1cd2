/* roman: converts between Roman numerals and integers (1..3999).
 *
 *   roman 1994       prints MCMXCIV
 *   roman MCMXCIV    prints 1994
 *
 * Each argument gives one line of output. Numerals must be in canonical
 * form (upper case, subtractive pairs IV IX XL XC CD CM, no symbol repeated
 * more than three times); anything else prints "invalid: ARG".
 * Exit status: 0 if every argument converted, 1 otherwise, 2 without any.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#define MIN_VALUE 1
#define MAX_VALUE 3999
#define OUT_SIZE 32

#define KIND_EMPTY 0
#define KIND_NUMBER 1
#define KIND_NUMERAL 2
#define KIND_OTHER 3

static const int values[13] = {
    1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1
};

static const char *symbols[13] = {
    "M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int symbol_value(char c)
{
    switch (c) {
    case 'I':
        return 1;
    case 'V':
        return 5;
    case 'X':
        return 10;
    case 'L':
        return 50;
    case 'C':
        return 100;
    case 'D':
        return 500;
    case 'M':
        return 1000;
    default:
        return 0;
    }
}

/* What an argument looks like: digits only, Roman symbols only, or neither. */
static int classify(const char *arg)
{
    int digits = 0;
    int letters = 0;
    int i = 0;
    if (arg[0] == '\0') {
        return KIND_EMPTY;
    }
    while (arg[i] != '\0') {
        if (is_digit(arg[i])) {
            digits++;
        } else if (symbol_value(arg[i]) > 0) {
            letters++;
        } else {
            return KIND_OTHER;
        }
        i++;
    }
    if (letters == 0) {
        return KIND_NUMBER;
    }
    if (digits == 0) {
        return KIND_NUMERAL;
    }
    return KIND_OTHER;
}

/* Decimal value of a string of digits, or -1 once it exceeds MAX_VALUE. */
static int parse_number(const char *arg)
{
    int value = 0;
    int i;
    for (i = 0; arg[i] != '\0'; i++) {
        value = value * 10 + (arg[i] - '0');
        if (value > MAX_VALUE) {
            return -1;
        }
    }
    return value;
}

/* Writes the canonical numeral of n (MIN_VALUE..MAX_VALUE) into out. */
static void to_roman(int n, char *out)
{
    int k = 0;
    out[0] = '\0';
    while (n > 0) {
        while (values[k] > n) {
            k++;
        }
        strcat(out, symbols[k]);
        n -= values[k];
    }
}

/* Reads one decimal place of a numeral starting at s[*pos], written with
 * the symbols one, five and ten of that place (e.g. I, V, X), and returns
 * its digit 0..9, advancing *pos past it. */
static int read_place(const char *s, int *pos, char one, char five, char ten)
{
    int p = *pos;
    int digit = 0;
    int ones = 0;
    if (s[p] == one && s[p + 1] == ten) {
        *pos = p + 2;
        return 9;
    }
    if (s[p] == one && s[p + 1] == five) {
        *pos = p + 2;
        return 4;
    }
    if (s[p] == five) {
        digit = 5;
        p++;
    }
    while (s[p] == one && ones < 3) {
        ones++;
        p++;
    }
    *pos = p;
    return digit + ones;
}

/* Value of a canonical numeral, or -1 if s is not one. */
static int from_roman(const char *s)
{
    int pos = 0;
    int thousands = 0;
    int value;
    while (s[pos] == 'M') {
        thousands++;
        pos++;
    }
    if (thousands > 3) {
        return -1;
    }
    value = thousands * 1000;
    value += read_place(s, &pos, 'C', 'D', 'M') * 100;
    value += read_place(s, &pos, 'X', 'L', 'C') * 10;
    value += read_place(s, &pos, 'I', 'V', 'X');
    if (s[pos] != '\0') {
        return -1;
    }
    return value;
}

/* Converts one argument and prints the result; returns 1 if it is invalid. */
static int convert(const char *arg)
{
    char out[OUT_SIZE];
    int kind = classify(arg);
    int n;
    if (kind == KIND_EMPTY) {
        puts("invalid: (empty)");
        return 1;
    }
    if (kind == KIND_NUMBER) {
        n = parse_number(arg);
        if (n < MIN_VALUE || n > MAX_VALUE) {
            printf("invalid: %s (out of range)\n", arg);
            return 1;
        }
        to_roman(n, out);
        printf("%s\n", out);
        return 0;
    }
    if (kind == KIND_NUMERAL) {
        n = from_roman(arg);
        if (n < 0) {
            printf("invalid: %s\n", arg);
            return 1;
        }
        printf("%d\n", n);
        return 0;
    }
    printf("invalid: %s\n", arg);
    return 1;
}

int main(int argc, char **argv)
{
    int status = 0;
    int i;
    if (argc < 2) {
        puts("usage: roman NUMBER|NUMERAL...");
        return 2;
    }
    for (i = 1; i < argc; i++) {
        if (convert(argv[i]) != 0) {
            status = 1;
        }
    }
    return status;
}
