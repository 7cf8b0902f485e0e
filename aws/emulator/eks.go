package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
)

// EKSCluster is the cluster EKS DescribeCluster describes.
type EKSCluster struct {
	// Endpoint is the API server's URL; CAData its CA bundle, base64 PEM.
	Endpoint, CAData string
	// Version is the Kubernetes minor version ("1.33", default).
	Version string
	// ServiceCIDR is the Service IPv4 range (default 10.100.0.0/16, EKS's).
	ServiceCIDR string
}

// eksPrefix is where EKS's REST-JSON protocol puts clusters.
const eksPrefix = "/clusters/"

// serveEKS serves EKS DescribeCluster (GET /clusters/NAME), the one EKS operation Karpenter
// calls; the emulator knows the one cluster of its configuration.
func (e *Emulator) serveEKS(w http.ResponseWriter, r *http.Request) {
	requestID := e.requestID()
	name := strings.TrimPrefix(r.URL.Path, eksPrefix)
	if r.Method != http.MethodGet || name == "" || strings.Contains(name, "/") {
		writeEKSError(w, requestID, newError(http.StatusNotFound, "UnknownOperationException", "the emulator serves EKS DescribeCluster only, got "+r.Method+" "+r.URL.Path))
		return
	}
	if err := e.begin(r.Context(), serviceEKS, "DescribeCluster"); err != nil {
		writeEKSError(w, requestID, asAPIError(err))
		return
	}
	if err := e.authorizeEKS(r, name); err != nil {
		writeEKSError(w, requestID, asAPIError(err))
		return
	}
	if name != e.cfg.ClusterName {
		writeEKSError(w, requestID, newError(http.StatusNotFound, "ResourceNotFoundException", "No cluster found for name: "+name+"."))
		return
	}
	c := e.cfg.Cluster
	e.mu.Lock()
	var subnetIDs []string
	for _, s := range e.world.subnets {
		subnetIDs = append(subnetIDs, s.ID)
	}
	e.mu.Unlock()
	out := map[string]any{"cluster": map[string]any{
		"name": name, "arn": "arn:aws:eks:" + e.cfg.Region + ":" + e.cfg.AccountID + ":cluster/" + name,
		"createdAt": float64(e.started.Unix()), "version": c.Version, "endpoint": c.Endpoint, "status": "ACTIVE", "platformVersion": "eks.1",
		"roleArn":                 "arn:aws:iam::" + e.cfg.AccountID + ":role/eks-cluster-role",
		"certificateAuthority":    map[string]string{"data": c.CAData},
		"kubernetesNetworkConfig": map[string]string{"serviceIpv4Cidr": c.ServiceCIDR, "ipFamily": "ipv4"},
		"resourcesVpcConfig": map[string]any{"vpcId": e.world.vpcID, "subnetIds": subnetIDs, "endpointPublicAccess": true,
			"endpointPrivateAccess": true},
		"accessConfig": map[string]string{"authenticationMode": "API_AND_CONFIG_MAP"},
		"tags":         map[string]string{},
	}}
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-RequestId", requestID)
	_, _ = w.Write(b)
}

// writeEKSError writes EKS's REST-JSON error: the code in X-Amzn-ErrorType, the message in the
// body.
func writeEKSError(w http.ResponseWriter, requestID string, err *apiError) {
	b, _ := json.Marshal(map[string]string{"message": err.message})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.Header().Set("X-Amzn-ErrorType", err.code)
	w.WriteHeader(err.status)
	_, _ = w.Write(b)
}
