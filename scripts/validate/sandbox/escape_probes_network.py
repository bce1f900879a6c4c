# The escape suite's network probes (see escape_probes.py, which this text follows).


def connect(address, family=socket.AF_INET, kind=socket.SOCK_STREAM):
    with socket.socket(family, kind) as sock:
        sock.settimeout(5)
        sock.connect(address)
        return "connected"


def probe_tcp_service(harm, seen):
    attempt(harm, seen, "connect to the service", lambda: connect(("127.0.0.1", PARAMS["servicePort"])))


def probe_tcp_postgres(harm, seen):
    attempt(harm, seen, "connect to PostgreSQL", lambda: connect(("127.0.0.1", PARAMS["postgresPort"])))


def probe_tcp_public(harm, seen):
    for host, port in (("1.1.1.1", 443), ("8.8.8.8", 53)):
        attempt(harm, seen, f"connect to {host}:{port}", lambda a=(host, port): connect(a))
    attempt(harm, seen, "connect to [2606:4700:4700::1111]:443",
            lambda: connect(("2606:4700:4700::1111", 443), socket.AF_INET6))
    interfaces = [name for _, name in socket.if_nameindex()]
    seen["interfaces"] = interfaces
    if interfaces != ["lo"]:
        harm.append(f"network interfaces: {interfaces}")


def probe_dns(harm, seen):
    for name in ("example.com", "localhost.localdomain", "metadata.google.internal"):
        attempt(harm, seen, f"resolve {name}", lambda n=name: socket.getaddrinfo(n, 443)[0][4])
    attempt(harm, seen, "read /etc/resolv.conf", lambda: read("/etc/resolv.conf"))


def send_udp(address):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        return sock.sendto(b"fgw", address)


def probe_udp(harm, seen):
    attempt(harm, seen, "UDP to 8.8.8.8:53", lambda: send_udp(("8.8.8.8", 53)))
    attempt(harm, seen, "UDP to 1.1.1.1:53", lambda: send_udp(("1.1.1.1", 53)))
    # The sandbox's own loopback takes it; the host's listener counts what reaches it.
    seen["UDP to the host's 127.0.0.1"] = send_udp(("127.0.0.1", PARAMS["udpPort"]))


def probe_raw_socket(harm, seen):
    attempt(harm, seen, "raw ICMP socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close())
    attempt(harm, seen, "packet socket", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW).close())


def probe_host_sockets(harm, seen):
    for path in PARAMS["hostSockets"]:
        attempt(harm, seen, f"connect {path}", lambda p=path: connect(p, socket.AF_UNIX))
