package localcluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// lowestPort is the lowest port freePorts picks from below the ephemeral range: above the
// well-known and most registered service ports.
const lowestPort = 10000

// ephemeralRange is where Linux keeps the local ports it gives outgoing connections.
const ephemeralRange = "/proc/sys/net/ipv4/ip_local_port_range"

// freePorts returns n distinct TCP ports on 127.0.0.1 that were free a moment ago. It holds all n
// listeners open until it has them all, so they differ. It picks them below the kernel's
// ephemeral range where it can read that range: a port the kernel hands out (127.0.0.1:0) may be
// given again, before the component that gets it binds it, to any outgoing connection, such as
// kube-apiserver's to etcd while kwok waits for it, and the component then fails to start.
// Another process may still bind one of these ports first; the component then fails to start and
// says so in its log.
func freePorts(n int) ([]int, error) {
	below, _ := ephemeralStart() // 0 where unknown: listenBelow lets the kernel pick
	ports := make([]int, 0, n)
	for range n {
		l, err := listenBelow(below)
		if err != nil {
			return nil, fmt.Errorf("localcluster: find a free port on 127.0.0.1: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ephemeralStart is the first port of the kernel's ephemeral range, read from ephemeralRange.
func ephemeralStart() (int, error) {
	b, err := os.ReadFile(ephemeralRange)
	if err != nil {
		return 0, err
	}
	return ephemeralLow(string(b))
}

// ephemeralLow reads the first port of the ephemeral range from ip_local_port_range's text
// ("32768\t60999").
func ephemeralLow(text string) (int, error) {
	fields := strings.Fields(text)
	if len(fields) != 2 {
		return 0, fmt.Errorf("%s: want two ports, got %q", ephemeralRange, text)
	}
	return strconv.Atoi(fields[0])
}

// listenBelow listens on a free port from lowestPort to below, tried at random, or on one the
// kernel picks when that span is too narrow or full.
func listenBelow(below int) (net.Listener, error) {
	if span := below - lowestPort; span >= 1000 {
		for range 100 {
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(lowestPort+rand.IntN(span))); err == nil {
				return l, nil
			}
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}
