/* wordfreq: count the words of standard input and print the most frequent.
 *
 * A word is a maximal run of ASCII letters and digits, folded to lower case.
 * Words longer than MAX_LEN characters are cut to their first MAX_LEN
 * characters (their full length still decides the -m filter).
 *
 * usage: wordfreq [-n N] [-m MINLEN]
 *   -n N       print the N most frequent words (default 5)
 *   -m MINLEN  ignore words shorter than MINLEN characters (default 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 256
#define MAX_LEN 31
#define DEFAULT_TOP 5

struct entry {
    char word[MAX_LEN + 1];
    int count;
};

static struct entry table[MAX_WORDS];
static int distinct;
static long total;

static void usage(void)
{
    fprintf(stderr, "usage: wordfreq [-n N] [-m MINLEN]\n");
    exit(1);
}

static int is_word_char(int c)
{
    if (c >= 'a' && c <= 'z') {
        return 1;
    }
    if (c >= 'A' && c <= 'Z') {
        return 1;
    }
    if (c >= '0' && c <= '9') {
        return 1;
    }
    return 0;
}

static int fold(int c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A' + 'a';
    }
    return c;
}

/* Parses a decimal option value in 0..100000; returns -1 when malformed. */
static long parse_number(const char *text)
{
    char *end;
    long value;
    if (text[0] < '0' || text[0] > '9') {
        return -1;
    }
    value = strtol(text, &end, 10);
    if (*end != '\0') {
        return -1;
    }
    if (value > 100000) {
        return -1;
    }
    return value;
}

/* Reads the next word into buf (at most MAX_LEN characters kept).
 * Returns the word's full length, or 0 at the end of the input. */
static int read_word(char *buf)
{
    int c;
    int len = 0;
    c = getchar();
    while (c != EOF && !is_word_char(c)) {
        c = getchar();
    }
    while (c != EOF && is_word_char(c)) {
        if (len < MAX_LEN) {
            buf[len] = (char)fold(c);
        }
        len++;
        c = getchar();
    }
    if (len < MAX_LEN) {
        buf[len] = '\0';
    } else {
        buf[MAX_LEN] = '\0';
    }
    return len;
}

static int find_word(const char *word)
{
    int i;
    for (i = 0; i < distinct; i++) {
        if (strcmp(table[i].word, word) == 0) {
            return i;
        }
    }
    return -1;
}

/* Counts one occurrence of word; returns 0, or -1 when the table is full. */
static int add_word(const char *word)
{
    int i = find_word(word);
    if (i >= 0) {
        table[i].count++;
        return 0;
    }
    if (distinct == MAX_WORDS) {
        return -1;
    }
    strcpy(table[distinct].word, word);
    table[distinct].count = 1;
    distinct++;
    return 0;
}

/* Nonzero when a must be listed before b: higher count first, then
 * alphabetical order. */
static int comes_before(const struct entry *a, const struct entry *b)
{
    int cmp;
    if (a->count != b->count) {
        return a->count > b->count;
    }
    cmp = strcmp(a->word, b->word);
    return cmp < 0;
}

static void sort_table(void)
{
    int i;
    int j;
    struct entry key;
    for (i = 1; i < distinct; i++) {
        key = table[i];
        j = i - 1;
        while (j >= 0 && comes_before(&key, &table[j])) {
            table[j + 1] = table[j];
            j--;
        }
        table[j + 1] = key;
    }
}

static void print_top(int top)
{
    int i;
    int width = 1;
    int limit = top;
    if (limit > distinct) {
        limit = distinct;
    }
    for (i = 0; i < limit; i++) {
        int n = table[i].count;
        int digits = 1;
        while (n >= 10) {
            n = n / 10;
            digits++;
        }
        if (digits > width) {
            width = digits;
        }
    }
    for (i = 0; i < limit; i++) {
        printf("%*d %s\n", width, table[i].count, table[i].word);
    }
}

int main(int argc, char **argv)
{
    int top = DEFAULT_TOP;
    int minlen = 1;
    int i;
    int len;
    char word[MAX_LEN + 1];
    for (i = 1; i < argc; i++) {
        long value;
        if (i + 1 >= argc) {
            usage();
        }
        value = parse_number(argv[i + 1]);
        if (strcmp(argv[i], "-n") == 0) {
            if (value < 0) {
                usage();
            }
            top = (int)value;
        } else if (strcmp(argv[i], "-m") == 0) {
            if (value < 1) {
                usage();
            }
            minlen = (int)value;
        } else {
            usage();
        }
        i++;
    }
    len = read_word(word);
    while (len > 0) {
        if (len >= minlen) {
            total++;
            if (add_word(word) != 0) {
                fprintf(stderr, "wordfreq: too many distinct words (at most %d)\n", MAX_WORDS);
                return 2;
            }
        }
        len = read_word(word);
    }
    sort_table();
    print_top(top);
    printf("words: %ld distinct: %d\n", total, distinct);
    return 0;
}
