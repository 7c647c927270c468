/* What the seccomp filter costs a bot per system call (docs/benchmarks.md): a minimal bot
 * that, before its handshake, times 2,000,000 getppid() calls and 2,000,000 fcntl(F_GETFL)
 * calls (the filter looks at fcntl's command), and 20,000 keyctl() calls (refused: contained,
 * each is a round trip to the bot's init, which counts it), and writes the mean ns a call on
 * stderr, then answers every turn with its first legal move.
 *
 *   cc -O2 -o /tmp/syscall_cost scripts/syscall_cost.c
 *   allfives check -v /tmp/syscall_cost; allfives check -v --no-sandbox /tmp/syscall_cost
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { CALLS = 2000000 };

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void timed(const char *what, long nr, long arg1, int calls) {
    double start = now_ns();
    for (int i = 0; i < calls; i++) syscall(nr, 0, arg1);
    fprintf(stderr, "%s: %.1f ns a call\n", what, (now_ns() - start) / calls);
}

/* The value after `"key":` in a line (a number), or -1. */
static long number_after(const char *line, const char *key) {
    const char *at = strstr(line, key);
    long n = -1;
    if (at) sscanf(at + strlen(key), "%ld", &n);
    return n;
}

int main(void) {
    timed("getppid", SYS_getppid, 0, CALLS);
    timed("fcntl(F_GETFL)", SYS_fcntl, F_GETFL, CALLS);
    /* KEYCTL_GET_KEYRING_ID (0) of the session keyring (-3), not created. */
    timed("keyctl (counted)", SYS_keyctl, -3, CALLS / 100);
    static char line[1 << 20];
    while (fgets(line, sizeof line, stdin)) {
        long id = number_after(line, "\"id\":");
        if (strstr(line, "\"type\":\"hello\"")) {
            printf("{\"type\":\"hello\",\"id\":%ld}\n", id);
        } else if (strstr(line, "\"type\":\"turn\"")) {
            /* The first legal move: its tile and end, copied from the "legal" list. */
            const char *legal = strstr(line, "\"legal\":[{\"tile\":");
            int a, b;
            char end[16] = "null";
            sscanf(legal + strlen("\"legal\":[{\"tile\":"), "[%d,%d],\"end\":%15[^,}]", &a, &b, end);
            printf("{\"type\":\"move\",\"id\":%ld,\"tile\":[%d,%d],\"end\":%s}\n", id, a, b, end);
        } else if (strstr(line, "\"type\":\"bye\"")) {
            break;
        }
        fflush(stdout);
    }
    return 0;
}
