package aws

import (
	"errors"
	"testing"

	karpv1 "github.com/nodepilot/nodepilot/kube/apis/karpenter/v1"
	awsv1 "github.com/nodepilot/nodepilot/kube/apis/karpenteraws/v1"
)

func TestAliasParameters(t *testing.T) {
	tests := []struct {
		alias string
		want  map[string]string
	}{
		{"al2023@latest", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			karpv1.ArchitectureArm64: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id",
		}},
		{"bottlerocket@v1.40.0", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.40.0/image_id",
			karpv1.ArchitectureArm64: "/aws/service/bottlerocket/aws-k8s-1.33/arm64/1.40.0/image_id",
		}},
		{"windows2022@latest", map[string]string{
			karpv1.ArchitectureAmd64: "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.alias, func(t *testing.T) {
			alias, err := awsv1.ParseAlias(tt.alias)
			if err != nil {
				t.Fatal(err)
			}
			got, err := aliasParameters(alias, "1.33")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("parameters %v, want %v", got, tt.want)
			}
			for arch, want := range tt.want {
				if got[arch] != want {
					t.Errorf("%s: %s, want %s", arch, got[arch], want)
				}
			}
		})
	}
}

// TestAliasVersions: AL2 aliases end at Kubernetes 1.32 and Windows Server 2025's begin at 1.35,
// as EKS publishes their AMIs; Karpenter refuses the others, and so does nodepilot.
func TestAliasVersions(t *testing.T) {
	for _, tc := range []struct {
		alias, k8s string
		refused    bool
	}{
		{"al2@latest", "1.32", false},
		{"al2@latest", "1.33", true},
		{"al2@v20240625", "1.37", true},
		{"al2023@latest", "1.37", false},
		{"bottlerocket@latest", "1.37", false},
		{"windows2025@latest", "1.34", true},
		{"windows2025@latest", "1.35", false},
		{"windows2022@latest", "1.34", false},
	} {
		alias, err := awsv1.ParseAlias(tc.alias)
		if err != nil {
			t.Fatal(err)
		}
		_, err = aliasParameters(alias, tc.k8s)
		var unsupported *unsupportedAliasError
		if errors.As(err, &unsupported) != tc.refused {
			t.Errorf("%s on %s: error %v, want refused %v", tc.alias, tc.k8s, err, tc.refused)
		}
	}
}
