/* numfmt: group the digits of decimal numbers for reading.
 *   numfmt [-s SEP] [-g SIZE] [-w WIDTH] [NUMBER...]
 * Each NUMBER (optional sign, digits, optional .digits) is printed on its own
 * line with SEP (default ',') between groups of SIZE (default 3) digits of its
 * integer part, right-aligned to WIDTH columns. Without NUMBER arguments the
 * numbers are read from standard input, one per line. Exit status: 0, 1 when
 * some number was invalid, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUMBER 200
#define MAX_WIDTH 80

struct options {
    char sep;
    int group;
    int width;
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Checks the syntax and finds the integer part: text[start, start + len). */
static int split_number(const char *text, size_t *start, size_t *len)
{
    size_t i = 0;
    if (text[i] == '+' || text[i] == '-')
        i++;
    *start = i;
    while (is_digit(text[i]))
        i++;
    *len = i - *start;
    if (*len == 0)
        return 0;
    if (text[i] == '.') {
        i++;
        if (!is_digit(text[i]))
            return 0;
        while (is_digit(text[i]))
            i++;
    }
    return text[i] == '\0';
}

/* Copies len digits to out with sep before every complete group of size
 * digits counted from the right. Returns the number of chars written. */
static size_t group_digits(const char *digits, size_t len, char sep, int size, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && (len - i) % (size_t)size == 0)
            out[o++] = sep;
        out[o++] = digits[i];
    }
    return o;
}

static int format_number(const char *text, const struct options *opt)
{
    char out[2 * MAX_NUMBER + 2];
    size_t start, len;
    if (strlen(text) > MAX_NUMBER || !split_number(text, &start, &len)) {
        fprintf(stderr, "numfmt: invalid number: %s\n", text);
        return 0;
    }
    size_t o = start;
    memcpy(out, text, start);
    o += group_digits(text + start, len, opt->sep, opt->group, out + o);
    strcpy(out + o, text + start + len);
    printf("%*s\n", opt->width, out);
    return 1;
}

static int parse_small(const char *text, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: numfmt [-s SEP] [-g 1..9] [-w 0..%d] [NUMBER...]\n", MAX_WIDTH);
    return 2;
}

int main(int argc, char **argv)
{
    struct options opt = {',', 3, 0};
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] != '\0' && !is_digit(argv[i][1]); i += 2) {
        const char *value = argv[i + 1];
        if (strcmp(argv[i], "-s") == 0 && strlen(value) == 1)
            opt.sep = value[0];
        else if (strcmp(argv[i], "-g") == 0 && parse_small(value, 1, 9, &opt.group))
            continue;
        else if (strcmp(argv[i], "-w") == 0 && parse_small(value, 0, MAX_WIDTH, &opt.width))
            continue;
        else
            return usage();
    }
    if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0' && !is_digit(argv[i][1]))
        return usage();

    int ok = 1;
    if (i < argc) {
        for (; i < argc; i++)
            ok &= format_number(argv[i], &opt);
        return ok ? 0 : 1;
    }
    char line[MAX_NUMBER + 2];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0')
            ok &= format_number(line, &opt);
    }
    return ok ? 0 : 1;
}
