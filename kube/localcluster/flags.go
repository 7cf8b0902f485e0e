package localcluster

import (
	"fmt"
	"path/filepath"
	"strconv"
)

// layout is where every component listens and keeps its files.
type layout struct {
	dir        string
	kubeconfig string
	kwokConfig string
	// kwokMetrics configures kwok's simulated kubelet resource metrics and pod usage.
	kwokMetrics string
	// kwokStreams configures kwok's pod logs and exec (kwokstreams.go).
	kwokStreams string
	creds       credentials

	etcdPort, etcdPeerPort, apiserverPort, schedulerPort, controllerPort, kwokPort, metricsServerPort int
}

// newLayout assigns free loopback ports to the components of a cluster in dir.
func newLayout(dir string, creds credentials) (layout, error) {
	ports, err := freePorts(7)
	if err != nil {
		return layout{}, err
	}
	return layout{
		dir:               dir,
		kubeconfig:        filepath.Join(dir, "kubeconfig"),
		kwokConfig:        filepath.Join(dir, "kwok-stages.yaml"),
		kwokMetrics:       filepath.Join(dir, "kwok-metrics.yaml"),
		kwokStreams:       filepath.Join(dir, "kwok-streams.yaml"),
		creds:             creds,
		etcdPort:          ports[0],
		etcdPeerPort:      ports[1],
		apiserverPort:     ports[2],
		schedulerPort:     ports[3],
		controllerPort:    ports[4],
		kwokPort:          ports[5],
		metricsServerPort: ports[6],
	}, nil
}

// loopback returns "scheme://127.0.0.1:port".
func loopback(scheme string, port int) string {
	return scheme + "://127.0.0.1:" + strconv.Itoa(port)
}

// apiserverURL is where clients reach kube-apiserver.
func (l layout) apiserverURL() string { return loopback("https", l.apiserverPort) }

// etcdArgs: a single member on loopback that does not fsync (its data is thrown away anyway).
func (l layout) etcdArgs() []string {
	client, peer := loopback("http", l.etcdPort), loopback("http", l.etcdPeerPort)
	return []string{
		"--data-dir=" + filepath.Join(l.dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync=true",
		"--quota-backend-bytes=" + strconv.Itoa(2<<30),
	}
}

// ServiceCIDR is the cluster's Service IP range.
const ServiceCIDR = "10.0.0.0/24"

// apiserverArgs: static-token admin, RBAC, service-account keys from Go, a self-signed serving
// certificate in certs/, and the aggregation layer's front proxy (for metrics-server). Kubernetes
// 1.37 refuses a loopback --advertise-address unless the endpoint reconciler is off.
func (l layout) apiserverArgs() []string {
	return []string{
		"--etcd-servers=" + loopback("http", l.etcdPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(l.apiserverPort),
		"--cert-dir=" + l.creds.apiserverCerts,
		"--token-auth-file=" + l.creds.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=" + l.apiserverURL(),
		"--service-account-key-file=" + l.creds.servicePubKey,
		"--service-account-signing-key-file=" + l.creds.serviceKey,
		"--service-cluster-ip-range=" + ServiceCIDR,
		"--allow-privileged=true",
		"--disable-admission-plugins=ServiceAccount",
		"--requestheader-client-ca-file=" + l.creds.frontProxyCA,
		"--requestheader-allowed-names=" + frontProxyUser,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + l.creds.frontProxyCert,
		"--proxy-client-key-file=" + l.creds.frontProxyKey,
	}
}

// schedulerArgs: no leader election, health on its own loopback secure port.
func (l layout) schedulerArgs() []string {
	return append(l.clientServing(l.schedulerPort), "--leader-elect=false")
}

// clientServing are the flags of a component that reaches the API server as its admin and
// serves on a loopback secure port, delegating who may call it to the API server.
func (l layout) clientServing(port int) []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--authentication-kubeconfig=" + l.kubeconfig,
		"--authorization-kubeconfig=" + l.kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
	}
}

// controllerArgs: every controller but node IPAM (no pod CIDRs here), and the node-lifecycle
// controller's grace periods shortened so that a node nobody heartbeats turns NotReady in about 20 s.
func (l layout) controllerArgs() []string {
	return append(l.clientServing(l.controllerPort),
		"--leader-elect=false",
		"--service-account-private-key-file="+l.creds.serviceKey,
		"--use-service-account-credentials=false",
		"--controllers=*,-node-ipam-controller",
		"--node-monitor-grace-period=20s",
		"--node-startup-grace-period=20s",
	)
}

// kwokArgs: kwok plays the kubelet of the nodes labelled KwokNodeLabel=KwokNodeValue only, so a
// test can still create a Node that nobody heartbeats. It renews node leases as a kubelet does
// (the stages only rewrite node status every ten minutes), and hands out pod IPs from a /12.
// Its server (HTTP and HTTPS on one port) plays every node's kubelet endpoint: the nodes' address
// and kubelet port point at it, and it serves each node's resource metrics for metrics-server.
func (l layout) kwokArgs() []string {
	return []string{
		"--kubeconfig=" + l.kubeconfig,
		"--config=" + l.kwokConfig,
		"--config=" + l.kwokMetrics,
		"--config=" + l.kwokStreams,
		"--server-address=" + fmt.Sprintf("127.0.0.1:%d", l.kwokPort),
		"--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(l.kwokPort),
		"--manage-all-nodes=false",
		"--manage-nodes-with-label-selector=" + KwokNodeLabel + "=" + KwokNodeValue,
		"--manage-nodes-with-annotation-selector=",
		"--node-lease-duration-seconds=40",
		"--cidr=10.64.0.0/12",
	}
}

// metricsServerArgs: metrics-server as an extension API server of the cluster's admin, serving a
// certificate of its own on loopback, scraping each node's kubelet endpoint (kwok's server, whose
// test certificate it cannot verify) at the port and metrics path the node names, every 15 s.
func (l layout) metricsServerArgs() []string {
	return append(l.clientServing(l.metricsServerPort),
		"--cert-dir="+filepath.Join(l.dir, "metrics-server"),
		"--kubelet-insecure-tls",
		"--kubelet-use-node-status-port",
		"--kubelet-preferred-address-types=InternalIP",
		"--metric-resolution=15s",
	)
}
