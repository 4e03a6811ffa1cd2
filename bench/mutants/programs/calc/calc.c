/* calc: integer expression evaluator.
 *
 *   calc EXPR     evaluates one expression
 *   calc          evaluates each line of stdin (blank lines are skipped)
 *
 * Grammar (recursive descent):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := ('-' | '+') unary | primary
 *   primary := NUMBER | '(' expr ')'
 *
 * Values stay within +-MAX_VALUE (else overflow); division truncates.
 * Exit status: 0 if every expression was valid, 1 otherwise, 2 on misuse.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#define MAX_VALUE 999999999
#define MAX_DEPTH 16
#define LINE_SIZE 256

#define ERR_NONE 0
#define ERR_SYNTAX 1
#define ERR_DIVZERO 2
#define ERR_OVERFLOW 3
#define ERR_DEPTH 4
#define ERR_EMPTY 5

struct parser {
    const char *text;
    int pos;
    int err;
    int err_pos;
    int depth;
};

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void fail(struct parser *p, int code)
{
    if (p->err != ERR_NONE) {
        return;
    }
    p->err = code;
    p->err_pos = p->pos;
}

static char peek(struct parser *p)
{
    while (is_space(p->text[p->pos])) {
        p->pos++;
    }
    return p->text[p->pos];
}

static int magnitude(int v)
{
    if (v < 0) {
        return -v;
    }
    return v;
}

static int checked_add(struct parser *p, int a, int b)
{
    int r = a + b;
    if (r > MAX_VALUE || r < -MAX_VALUE) {
        fail(p, ERR_OVERFLOW);
        return 0;
    }
    return r;
}

static int checked_mul(struct parser *p, int a, int b)
{
    if (a == 0 || b == 0) {
        return 0;
    }
    if (magnitude(b) > MAX_VALUE / magnitude(a)) {
        fail(p, ERR_OVERFLOW);
        return 0;
    }
    return a * b;
}

static int parse_number(struct parser *p)
{
    int value = 0;
    while (is_digit(p->text[p->pos])) {
        int d = p->text[p->pos] - '0';
        if (value > (MAX_VALUE - d) / 10) {
            fail(p, ERR_OVERFLOW);
            return 0;
        }
        value = value * 10 + d;
        p->pos++;
    }
    return value;
}

static int parse_expr(struct parser *p);

static int parse_primary(struct parser *p)
{
    char c = peek(p);
    if (is_digit(c)) {
        return parse_number(p);
    }
    if (c == '(') {
        p->pos++;
        int v = parse_expr(p);
        if (p->err != ERR_NONE) {
            return 0;
        }
        if (peek(p) != ')') {
            fail(p, ERR_SYNTAX);
            return 0;
        }
        p->pos++;
        return v;
    }
    fail(p, ERR_SYNTAX);
    return 0;
}

static int parse_unary(struct parser *p)
{
    char c = peek(p);
    if (c != '-' && c != '+') {
        return parse_primary(p);
    }
    p->depth++;
    if (p->depth > MAX_DEPTH) {
        fail(p, ERR_DEPTH);
        return 0;
    }
    p->pos++;
    int v = parse_unary(p);
    p->depth--;
    if (c == '-') {
        v = -v;
    }
    return v;
}

static int parse_term(struct parser *p)
{
    int left = parse_unary(p);
    while (p->err == ERR_NONE) {
        char op = peek(p);
        if (op != '*' && op != '/' && op != '%') {
            break;
        }
        int op_pos = p->pos;
        p->pos++;
        int right = parse_unary(p);
        if (p->err != ERR_NONE) {
            break;
        }
        if (op == '*') {
            left = checked_mul(p, left, right);
        } else if (right == 0) {
            p->pos = op_pos;
            fail(p, ERR_DIVZERO);
        } else if (op == '/') {
            left = left / right;
        } else {
            left = left % right;
        }
    }
    return left;
}

static int parse_expr(struct parser *p)
{
    p->depth++;
    if (p->depth > MAX_DEPTH) {
        fail(p, ERR_DEPTH);
        return 0;
    }
    int left = parse_term(p);
    while (p->err == ERR_NONE) {
        char op = peek(p);
        if (op != '+' && op != '-') {
            break;
        }
        p->pos++;
        int right = parse_term(p);
        if (op == '-') {
            right = -right;
        }
        left = checked_add(p, left, right);
    }
    p->depth--;
    return left;
}

/* Prints the value of one expression or an error; returns 1 on error. */
static int evaluate(const char *text)
{
    struct parser p;
    p.text = text;
    p.pos = 0;
    p.err = ERR_NONE;
    p.err_pos = 0;
    p.depth = 0;
    if (peek(&p) == '\0') {
        fail(&p, ERR_EMPTY);
    }
    int value = 0;
    if (p.err == ERR_NONE) {
        value = parse_expr(&p);
    }
    if (p.err == ERR_NONE && peek(&p) != '\0') {
        fail(&p, ERR_SYNTAX);
    }
    switch (p.err) {
    case ERR_NONE:
        printf("%d\n", value);
        return 0;
    case ERR_SYNTAX:
        printf("error: syntax error at column %d\n", p.err_pos + 1);
        break;
    case ERR_DIVZERO:
        printf("error: division by zero at column %d\n", p.err_pos + 1);
        break;
    case ERR_OVERFLOW:
        puts("error: overflow");
        break;
    case ERR_DEPTH:
        puts("error: nesting too deep");
        break;
    default:
        puts("error: empty expression");
        break;
    }
    return 1;
}

static int is_blank(const char *line)
{
    int i = 0;
    while (line[i] != '\0') {
        if (!is_space(line[i]) && line[i] != '\n') {
            return 0;
        }
        i++;
    }
    return 1;
}

static int run_stdin(void)
{
    char line[LINE_SIZE];
    int status = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        int len = strlen(line);
        if (len > 0 && line[len - 1] == '\n') {
            line[len - 1] = '\0';
        } else if (len == LINE_SIZE - 1) {
            int c = getchar();
            if (c != '\n' && c != EOF) {
                while (c != '\n' && c != EOF) {
                    c = getchar();
                }
                puts("error: line too long");
                status = 1;
                continue;
            }
        }
        if (is_blank(line)) {
            continue;
        }
        if (evaluate(line) != 0) {
            status = 1;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        puts("usage: calc [EXPR]");
        return 2;
    }
    if (argc == 2) {
        return evaluate(argv[1]);
    }
    return run_stdin();
}
