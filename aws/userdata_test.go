package aws

import (
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestUserData(t *testing.T) {
	b := bootstrap{
		ClusterName: "demo", Endpoint: "https://api.demo", CABundle: "Q0E=", ServiceCIDR: "10.100.0.0/16",
		Kubelet: &awsv1.KubeletConfiguration{MaxPods: ptr.To[int32](42)},
		Labels: map[string]string{"karpenter.sh/nodepool": "web", "team": "a", "kubernetes.io/arch": "amd64",
			"node.kubernetes.io/role": "web", "node-restriction.kubernetes.io/x": "y"},
		Taints: []corev1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}},
	}
	mimeCustom := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUND\"\n\n--BOUND\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho custom\n--BOUND--\n"
	tests := []struct {
		name    string
		family  string
		custom  *string
		want    []string
		notWant []string
	}{
		{"al2023 nodeadm", awsv1.AMIFamilyAL2023, nil, []string{
			"Content-Type: application/node.eks.aws", `"kind": "NodeConfig"`, `"apiServerEndpoint": "https://api.demo"`, `"cidr": "10.100.0.0/16"`,
			`"maxPods": 42`, "--node-labels=karpenter.sh/nodepool=web,node.kubernetes.io/role=web,team=a",
			"--register-with-taints=dedicated=web:NoSchedule,karpenter.sh/unregistered:NoExecute"},
			[]string{"kubernetes.io/arch=", "node-restriction"}},
		{"al2023 merges custom MIME parts first", awsv1.AMIFamilyAL2023, &mimeCustom, []string{"echo custom", "application/node.eks.aws"}, nil},
		{"al2023 takes a plain script as a part", awsv1.AMIFamilyAL2023, ptr.To("#!/bin/bash\necho hi"), []string{"Content-Type: text/x-shellscript", "echo hi"}, nil},
		{"al2 bootstrap.sh", awsv1.AMIFamilyAL2, nil, []string{"/etc/eks/bootstrap.sh 'demo'", "--b64-cluster-ca 'Q0E='", "--use-max-pods false", "--max-pods=42"}, nil},
		{"bottlerocket toml", awsv1.AMIFamilyBottlerocket, ptr.To("[settings.host-containers.admin]\nenabled = true"), []string{
			"[settings.kubernetes]", `cluster-name = "demo"`, "max-pods = 42", `"team" = "a"`,
			`"karpenter.sh/unregistered" = [":NoExecute"]`, "[settings.host-containers.admin]"}, nil},
		{"windows powershell", awsv1.AMIFamilyWindows2022, nil, []string{"<powershell>", "-EKSClusterName 'demo'"}, nil},
		{"windows 2025 powershell", awsv1.AMIFamilyWindows2025, nil, []string{"<powershell>", "-EKSClusterName 'demo'"}, nil},
		{"custom is as given", awsv1.AMIFamilyCustom, ptr.To("anything"), []string{"anything"}, []string{"demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := b
			b.Custom = tt.custom
			encoded, err := userData(tt.family, b)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := base64.StdEncoding.DecodeString(encoded)
			if err != nil {
				t.Fatal(err)
			}
			text := string(raw)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("user data lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("user data has %q:\n%s", w, text)
				}
			}
			if tt.custom == &mimeCustom && strings.Index(text, "echo custom") > strings.Index(text, "NodeConfig") {
				t.Errorf("the custom part comes after the NodeConfig:\n%s", text)
			}
		})
	}
	if _, err := userData(awsv1.AMIFamilyAL2023, bootstrap{Custom: ptr.To("MIME-Version: 1.0\nContent-Type: text/plain\n\nx")}); err == nil {
		t.Error("a MIME document that is not multipart was accepted")
	}
}

// FuzzUserData proves that merging an EC2NodeClass's spec.userData never panics, whatever it
// holds, and that whatever it accepts comes out as base64.
func FuzzUserData(f *testing.F) {
	f.Add("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/sh\n--B--\n")
	f.Add("#!/bin/bash\necho hi")
	f.Add("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n\r\nbody\r\n--x--")
	f.Add("MIME-Version:")
	f.Fuzz(func(t *testing.T, custom string) {
		for _, family := range []string{awsv1.AMIFamilyAL2023, awsv1.AMIFamilyAL2, awsv1.AMIFamilyBottlerocket} {
			out, err := userData(family, bootstrap{ClusterName: "c", Custom: &custom})
			if err != nil {
				continue
			}
			if _, err := base64.StdEncoding.DecodeString(out); err != nil {
				t.Fatalf("%s user data is not base64: %v", family, err)
			}
		}
	})
}
