/* dates: Gregorian date arithmetic on the command line.
 *
 *   dates YYYY-MM-DD +N          the date N days later (-N: earlier)
 *   dates YYYY-MM-DD YYYY-MM-DD  the number of days from the first to the second
 *   dates YYYY-MM-DD             the weekday and the day of the year
 *
 * Years run from 1 to 9999 (proleptic Gregorian calendar); the year has
 * one to six digits, the month and the day one or two.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_YEAR 1
#define MAX_YEAR 9999
#define MAX_OFFSET 9999999L

struct date {
    int year;
    int month;
    int day;
};

static const char *weekdays[7] = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"
};

static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

static void usage(void)
{
    fprintf(stderr, "usage: dates YYYY-MM-DD [+N | -N | YYYY-MM-DD]\n");
    exit(2);
}

static int is_leap(int year)
{
    if (year % 400 == 0) {
        return 1;
    }
    if (year % 100 == 0) {
        return 0;
    }
    return year % 4 == 0;
}

static int days_in_month(int year, int month)
{
    if (month == 2 && is_leap(year)) {
        return 29;
    }
    return month_days[month - 1];
}

/* Reads between min and max decimal digits from text at *pos into *out.
 * Returns 1 on success and advances *pos past the digits. */
static int read_digits(const char *text, int *pos, int min, int max, int *out)
{
    int count = 0;
    int value = 0;
    int i = *pos;
    while (text[i] >= '0' && text[i] <= '9') {
        if (count == max) {
            return 0;
        }
        value = value * 10 + (text[i] - '0');
        count++;
        i++;
    }
    if (count < min) {
        return 0;
    }
    *pos = i;
    *out = value;
    return 1;
}

/* Parses YYYY-MM-DD; returns 1 when text is a valid date. */
static int parse_date(const char *text, struct date *d)
{
    int pos = 0;
    if (!read_digits(text, &pos, 1, 6, &d->year)) {
        return 0;
    }
    if (text[pos] != '-') {
        return 0;
    }
    pos++;
    if (!read_digits(text, &pos, 1, 2, &d->month)) {
        return 0;
    }
    if (text[pos] != '-') {
        return 0;
    }
    pos++;
    if (!read_digits(text, &pos, 1, 2, &d->day)) {
        return 0;
    }
    if (text[pos] != '\0') {
        return 0;
    }
    if (d->year < MIN_YEAR || d->year > MAX_YEAR) {
        return 0;
    }
    if (d->month < 1 || d->month > 12) {
        return 0;
    }
    if (d->day < 1 || d->day > days_in_month(d->year, d->month)) {
        return 0;
    }
    return 1;
}

/* Parses +N or -N; returns 1 when valid. */
static int parse_offset(const char *text, long *out)
{
    char *end;
    long value;
    if (text[0] != '+' && text[0] != '-') {
        return 0;
    }
    if (text[1] < '0' || text[1] > '9') {
        return 0;
    }
    if (strlen(text) > 9) {
        return 0;
    }
    value = strtol(text, &end, 10);
    if (*end != '\0') {
        return 0;
    }
    *out = value;
    return 1;
}

static int day_of_year(const struct date *d)
{
    int total = d->day;
    int m;
    for (m = 1; m < d->month; m++) {
        total += days_in_month(d->year, m);
    }
    return total;
}

/* Days from 0001-01-01 to January 1st of year. */
static long days_before_year(int year)
{
    long y = year - 1;
    return y * 365 + y / 4 - y / 100 + y / 400;
}

/* Day number: 0 for 0001-01-01 (a Monday). */
static long to_days(const struct date *d)
{
    return days_before_year(d->year) + day_of_year(d) - 1;
}

static struct date from_days(long n)
{
    struct date d;
    int year = (int)(n / 366) + 1;
    long rest;
    while (days_before_year(year + 1) <= n) {
        year++;
    }
    rest = n - days_before_year(year);
    d.year = year;
    d.month = 1;
    while (rest >= days_in_month(year, d.month)) {
        rest -= days_in_month(year, d.month);
        d.month++;
    }
    d.day = (int)rest + 1;
    return d;
}

static void print_date(const struct date *d)
{
    printf("%04d-%02d-%02d\n", d->year, d->month, d->day);
}

static int invalid_date(const char *text)
{
    fprintf(stderr, "invalid date: %s\n", text);
    return 1;
}

int main(int argc, char **argv)
{
    struct date first;
    struct date second;
    long offset;
    long n;
    if (argc < 2 || argc > 3) {
        usage();
    }
    if (!parse_date(argv[1], &first)) {
        return invalid_date(argv[1]);
    }
    n = to_days(&first);
    if (argc == 2) {
        int year_len = is_leap(first.year) ? 366 : 365;
        printf("%s, day %d of %d\n", weekdays[n % 7], day_of_year(&first), year_len);
        return 0;
    }
    if (argv[2][0] == '+' || argv[2][0] == '-') {
        if (!parse_offset(argv[2], &offset)) {
            fprintf(stderr, "invalid offset: %s\n", argv[2]);
            return 1;
        }
        if (offset > MAX_OFFSET || offset < -MAX_OFFSET) {
            fprintf(stderr, "invalid offset: %s\n", argv[2]);
            return 1;
        }
        n = n + offset;
        if (n < 0 || n >= days_before_year(MAX_YEAR + 1)) {
            fprintf(stderr, "result out of range\n");
            return 1;
        }
        second = from_days(n);
        print_date(&second);
        return 0;
    }
    if (!parse_date(argv[2], &second)) {
        return invalid_date(argv[2]);
    }
    printf("%ld\n", to_days(&second) - n);
    return 0;
}
