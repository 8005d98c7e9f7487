/*
 * LD_PRELOAD shim: every TCP socket the process connects uses the congestion control named by
 * LINK_CONGESTION (default cubic), as Windows, macOS and most Linux clients do, without touching the
 * machine's default (BBR here, which hides loss). Setting a congestion control that is not in
 * net.ipv4.tcp_allowed_congestion_control takes CAP_NET_ADMIN: the benchmark runs as root.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  static int (*real_connect)(int, const struct sockaddr *, socklen_t);
  if (!real_connect) real_connect = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
  int type = 0;
  socklen_t size = sizeof type;
  if (addr && (addr->sa_family == AF_INET || addr->sa_family == AF_INET6) &&
      getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0 && type == SOCK_STREAM) {
    const char *name = getenv("LINK_CONGESTION");
    if (!name || !*name) name = "cubic";
    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
  }
  return real_connect(fd, addr, len);
}
