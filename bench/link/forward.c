/*
 * The link emulator's packet loop (bench/link/emulator.ts runs it): two TUN devices, one for each end of the
 * link, and between them in each direction a drop-tail queue of `queue` bytes drained at `rate` bit/s, then
 * `delay` µs of propagation, with each packet lost at random with probability `loss` (parts per million).
 *
 *   forward TUN_A TUN_B RATE_BPS DELAY_US LOSS_PPM QUEUE_BYTES SEED
 *
 * It creates both devices (not persistent: they vanish when it exits, wherever they were moved), prints
 * "ready", and forwards until its standard input closes (its parent ended, however it ended) or it gets
 * SIGTERM; then it prints one JSON line of counts per direction. In C because each packet is timed to the
 * microsecond at up to 10,000 packets a second in each direction on cores the browser and the service share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16384 /* packets in flight per direction: queue + delay line (100 Mbit/s x 150 ms is ~1,300) */
#define MTU 2048

struct packet {
  uint64_t due_ns; /* when it leaves the delay line */
  uint16_t len;
  uint8_t data[MTU];
};

struct direction {
  int from, to;
  uint64_t free_ns; /* when the link has sent everything queued so far */
  struct packet *ring;
  unsigned head, tail; /* ring[head..tail) is in flight, oldest first: due times only grow */
  uint64_t packets, bytes, lost, dropped, overflow;
};

static uint64_t rate_bps, delay_ns, loss_ppm, queue_bytes;
static volatile sig_atomic_t stop;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int tun_open(const char *name) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) return -1;
  return fd;
}

/* xorshift64*: a seeded, repeatable loss pattern */
static uint64_t rng;
static uint64_t next_random(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

/* Reads every packet waiting on d->from and puts it on the link, or drops it. */
static void receive(struct direction *d, uint64_t now) {
  for (;;) {
    struct packet *p = &d->ring[d->tail % SLOTS];
    ssize_t n = read(d->from, p->data, MTU);
    if (n <= 0) return;
    if (loss_ppm && next_random() % 1000000 < loss_ppm) {
      d->lost++;
      continue;
    }
    uint64_t start = d->free_ns > now ? d->free_ns : now;
    uint64_t backlog = (start - now) * rate_bps / 8 / 1000000000u;
    if (backlog + (uint64_t)n > queue_bytes) {
      d->dropped++;
      continue;
    }
    if (d->tail - d->head >= SLOTS) {
      d->overflow++;
      continue;
    }
    d->free_ns = start + (uint64_t)n * 8 * 1000000000u / rate_bps;
    p->due_ns = d->free_ns + delay_ns;
    p->len = (uint16_t)n;
    d->tail++;
  }
}

/* Hands on every packet whose time has come; returns when the next one is due (0: none in flight). */
static uint64_t deliver(struct direction *d, uint64_t now) {
  while (d->head != d->tail) {
    struct packet *p = &d->ring[d->head % SLOTS];
    if (p->due_ns > now) return p->due_ns;
    if (write(d->to, p->data, p->len) == p->len) {
      d->packets++;
      d->bytes += p->len;
    }
    d->head++;
  }
  return 0;
}

static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

static void report(const char *name, struct direction *d) {
  printf("\"%s\":{\"packets\":%llu,\"bytes\":%llu,\"lost\":%llu,\"dropped\":%llu,\"overflow\":%llu}", name,
         (unsigned long long)d->packets, (unsigned long long)d->bytes, (unsigned long long)d->lost,
         (unsigned long long)d->dropped, (unsigned long long)d->overflow);
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: %s TUN_A TUN_B RATE_BPS DELAY_US LOSS_PPM QUEUE_BYTES SEED\n", argv[0]);
    return 2;
  }
  rate_bps = strtoull(argv[3], 0, 10);
  delay_ns = strtoull(argv[4], 0, 10) * 1000u;
  loss_ppm = strtoull(argv[5], 0, 10);
  queue_bytes = strtoull(argv[6], 0, 10);
  rng = strtoull(argv[7], 0, 10) | 1;
  if (!rate_bps || !queue_bytes) {
    fprintf(stderr, "RATE_BPS and QUEUE_BYTES must be positive\n");
    return 2;
  }
  int a = tun_open(argv[1]), b = tun_open(argv[2]);
  if (a < 0 || b < 0) {
    perror("TUN device (root and /dev/net/tun are needed)");
    return 1;
  }
  struct direction ab = {.from = a, .to = b, .ring = calloc(SLOTS, sizeof(struct packet))};
  struct direction ba = {.from = b, .to = a, .ring = calloc(SLOTS, sizeof(struct packet))};
  if (!ab.ring || !ba.ring) return 1;
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  signal(SIGPIPE, SIG_IGN);
  printf("ready\n");
  fflush(stdout);

  struct pollfd fds[3] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
  while (!stop) {
    uint64_t now = now_ns();
    uint64_t due_ab = deliver(&ab, now), due_ba = deliver(&ba, now);
    uint64_t due = due_ab && due_ba ? (due_ab < due_ba ? due_ab : due_ba) : (due_ab | due_ba);
    struct timespec wait = {1, 0};
    if (due) {
      uint64_t left = due > now ? due - now : 0;
      wait.tv_sec = (time_t)(left / 1000000000u);
      wait.tv_nsec = (long)(left % 1000000000u);
    }
    int ready = ppoll(fds, 3, &wait, 0);
    if (ready < 0 && errno != EINTR) break;
    if (fds[2].revents) {
      char buf[64];
      if (read(0, buf, sizeof buf) <= 0) break; /* the parent is gone */
    }
    now = now_ns();
    if (fds[0].revents & POLLIN) receive(&ab, now);
    if (fds[1].revents & POLLIN) receive(&ba, now);
  }
  printf("{");
  report("ab", &ab);
  printf(",");
  report("ba", &ba);
  printf("}\n");
  return 0;
}
